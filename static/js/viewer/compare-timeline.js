// @ts-check
// The shared clock of two transition clips played side by side: where each clip's
// frames sit on it, and which part (A, the blend, B) each clip shows at a frame.
// Pure functions (no DOM, no three.js), tested with node's test runner.
//
// A layout is a transition's `methods.<method>.layout` from the report (frames):
// {frames, cut_frame, entry_frame, blend_start_frame, blend_stop_frame}.

/**
 * @typedef {object} Layout
 * @property {number} frames the transition clip's
 * @property {number} cut_frame A's last frame before B
 * @property {number} entry_frame B's first frame used (at A's rate)
 * @property {number} blend_start_frame
 * @property {number} blend_stop_frame exclusive
 */

/** @typedef {"A" | "blend" | "B"} Part */

/**
 * Offsets (frames) of each clip on the shared clock and its length.
 * @param {Array<{frames: number, blend_start_frame: number}>} layouts
 * @param {"start" | "cut"} align "start": both start together; "cut": their blends start
 *   at the same moment (the later cut's clip starts first)
 * @returns {{offsets: number[], frames: number}}
 */
export function sharedClock(layouts, align) {
  const anchors = layouts.map((l) => (align === "cut" ? l.blend_start_frame : 0));
  const lead = Math.max(...anchors);
  const offsets = anchors.map((a) => lead - a);
  const frames = Math.max(...layouts.map((l, i) => offsets[i] + l.frames));
  return { offsets, frames };
}

/**
 * The clip's own frame at shared frame `frame` (held at its first / last frame outside).
 * @param {number} frame
 * @param {number} offset the clip's on the shared clock
 * @param {number} frames the clip's
 */
export function clipFrame(frame, offset, frames) {
  return Math.min(frames - 1, Math.max(0, frame - offset));
}

/**
 * What the clip shows at its frame `f`: A's frame, the blend, or B's frame.
 * @param {{cut_frame: number, entry_frame: number, blend_start_frame: number,
 *   blend_stop_frame: number}} layout
 * @param {number} f
 * @returns {{part: Part, frame: number}}
 */
export function partAt(layout, f) {
  if (f < layout.blend_start_frame) return { part: "A", frame: f };
  if (f < layout.blend_stop_frame) return { part: "blend", frame: f - layout.blend_start_frame };
  return { part: "B", frame: layout.entry_frame + f - layout.cut_frame };
}

/**
 * The clip's parts as fractions of the shared clock, for the timeline bands.
 * @param {{frames: number, blend_start_frame: number, blend_stop_frame: number}} layout
 * @param {number} offset the clip's on the shared clock
 * @param {number} total the shared clock's frames
 * @returns {Array<{part: Part, from: number, to: number}>}
 */
export function bands(layout, offset, total) {
  const at = (/** @type {number} */ f) => (offset + f) / total;
  /** @type {Array<{part: Part, from: number, to: number}>} */
  const all = [
    { part: "A", from: at(0), to: at(layout.blend_start_frame) },
    { part: "blend", from: at(layout.blend_start_frame), to: at(layout.blend_stop_frame) },
    { part: "B", from: at(layout.blend_stop_frame), to: at(layout.frames) },
  ];
  return all.filter((band) => band.to > band.from);
}
