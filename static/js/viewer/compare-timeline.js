// @ts-check
// The shared clock of two transition clips played side by side: where each clip's
// frames sit on it, and which part (A, the blend, B) each clip shows at a frame.
// Pure functions (no DOM, no three.js), tested with node's test runner.
//
// A layout is a transition's `methods.<method>.layout` from the report (frames):
// {frames, cut_frame, entry_frame, blend_start_frame, blend_stop_frame}. A bridge's
// layout (A → C → B) has the first join there (its entry is C's frame) and the second
// in `bridge` ({cut_frame, entry_frame, blend_start_frame, blend_stop_frame} in the
// bridge clip's frames; its entry is B's frame).

/**
 * @typedef {object} Layout
 * @property {number} frames the transition clip's
 * @property {number} cut_frame A's last frame before B
 * @property {number} entry_frame B's first frame used (at A's rate)
 * @property {number} blend_start_frame
 * @property {number} blend_stop_frame exclusive
 * @property {Join} [bridge] the second join of a bridge through a clip C
 */

/**
 * @typedef {object} Join
 * @property {number} cut_frame
 * @property {number} entry_frame
 * @property {number} blend_start_frame
 * @property {number} blend_stop_frame exclusive
 */

/** @typedef {"A" | "blend" | "C" | "B"} Part */

/** The colour of each part on the timelines (A blue, blends orange, C purple, B green). */
export const PART_COLOURS = { A: "#2f6fde", blend: "#e0861a", C: "#8a5cc2", B: "#1f9d74" };

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
 * What the clip shows at its frame `f`: A's frame, a blend, C's frame (a bridge) or B's.
 * @param {{cut_frame: number, entry_frame: number, blend_start_frame: number,
 *   blend_stop_frame: number, bridge?: Join}} layout
 * @param {number} f
 * @returns {{part: Part, frame: number}}
 */
export function partAt(layout, f) {
  if (f < layout.blend_start_frame) return { part: "A", frame: f };
  if (f < layout.blend_stop_frame) return { part: "blend", frame: f - layout.blend_start_frame };
  const second = layout.bridge;
  if (!second) return { part: "B", frame: layout.entry_frame + f - layout.cut_frame };
  if (f < second.blend_start_frame) {
    return { part: "C", frame: layout.entry_frame + f - layout.cut_frame };
  }
  if (f < second.blend_stop_frame) return { part: "blend", frame: f - second.blend_start_frame };
  return { part: "B", frame: second.entry_frame + f - second.cut_frame };
}

/**
 * The clip's parts as fractions of the shared clock, for the timeline bands.
 * @param {{frames: number, blend_start_frame: number, blend_stop_frame: number,
 *   bridge?: {blend_start_frame: number, blend_stop_frame: number}}} layout
 * @param {number} offset the clip's on the shared clock
 * @param {number} total the shared clock's frames
 * @returns {Array<{part: Part, from: number, to: number}>}
 */
export function bands(layout, offset, total) {
  const at = (/** @type {number} */ f) => (offset + f) / total;
  const second = layout.bridge;
  /** @type {Array<{part: Part, from: number, to: number}>} */
  const all = [
    { part: "A", from: at(0), to: at(layout.blend_start_frame) },
    { part: "blend", from: at(layout.blend_start_frame), to: at(layout.blend_stop_frame) },
  ];
  if (second) {
    all.push(
      { part: "C", from: at(layout.blend_stop_frame), to: at(second.blend_start_frame) },
      { part: "blend", from: at(second.blend_start_frame), to: at(second.blend_stop_frame) },
      { part: "B", from: at(second.blend_stop_frame), to: at(layout.frames) },
    );
  } else {
    all.push({ part: "B", from: at(layout.blend_stop_frame), to: at(layout.frames) });
  }
  return all.filter((band) => band.to > band.from);
}
