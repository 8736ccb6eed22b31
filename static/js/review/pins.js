// @ts-check
// Comments pinned to motion data, placed on the proposal's player: which frames of the
// transition clip a comment points at, which joints are marked at a frame, the
// timeline's lanes, the words of a pin, and the @mentions of a body. Pure functions (no
// DOM, no three.js), tested with node's test runner.
//
// A comment (the API's CommentSerializer) pins `frame_start` … `frame_end` (inclusive,
// or one frame) counted in `frame_clip`: "transition" (the player's own frames), "a" or
// "b" (the uploaded clips, at their own frame rates). The context `ctx` is
// {frames, fps, layout, clips: {a: {fps}, b: {fps}}}: the player's length and rate and the
// transition's layout (cut_frame, entry_frame: B's frame at A's rate).

/** @typedef {"transition" | "a" | "b"} FrameClip */

/**
 * A comment or a reply as the API gives it (CommentSerializer); the fields read here.
 * @typedef {object} Comment
 * @property {number} id
 * @property {string | null} [author]
 * @property {string} body
 * @property {string[]} [mentions] the names the server resolved
 * @property {number} version
 * @property {string} created_at
 * @property {string | null} [resolved_at]
 * @property {string | null} [resolved_by]
 * @property {FrameClip | null} [frame_clip]
 * @property {number | null} [frame_start]
 * @property {number | null} [frame_end]
 * @property {string | null} [joint]
 * @property {Record<string, unknown> | null} [parameter_set]
 * @property {Comment[]} [replies]
 */

/**
 * A transition's layout (frames at A's rate), as far as the report has it.
 * @typedef {{frames?: number, cut_frame?: number, entry_frame?: number,
 *   blend_start_frame?: number, blend_stop_frame?: number}} PinLayout
 */

/**
 * The player's length and rate, the transition's layout and the clips' rates.
 * @typedef {{frames: number, fps: number, layout?: PinLayout,
 *   clips?: {a?: {fps: number}, b?: {fps: number}}}} PinContext
 */

/**
 * A comment's pin on the player (start/end: the player's frames, null for a joint pinned
 * without frames; `inside`: within the player's frames).
 * @typedef {{id: number, author: string, start: number | null, end: number | null,
 *   joint: string, resolved: boolean, reply: boolean, inside: boolean}} Pin
 */

/** @typedef {Pin & {start: number, end: number}} PlacedPin a pin with frames */

/** @type {Record<string, string | undefined>} */
const CLIP_NAMES = { transition: "", a: "A ", b: "B " };

/**
 * The player's frame showing `frame` of `clip` (may lie outside the player's frames).
 * A plays unchanged up to the cut; B's frame e (at A's rate) plays at cut + e - entry.
 * @param {FrameClip | null | undefined} clip
 * @param {number | null | undefined} frame
 * @param {PinContext} ctx
 * @returns {number | null}
 */
export function toPlayerFrame(clip, frame, ctx) {
  if (frame == null) return null;
  if (clip === "a") return Math.round((frame * ctx.fps) / (ctx.clips?.a?.fps || ctx.fps));
  if (clip === "b") {
    const layout = ctx.layout ?? {};
    const atRate = Math.round((frame * ctx.fps) / (ctx.clips?.b?.fps || ctx.fps));
    return atRate - (layout.entry_frame ?? 0) + (layout.cut_frame ?? 0);
  }
  return frame;
}

/**
 * Every comment and reply with a frame or a joint, as a pin on the player:
 * {id, author, start, end, joint, resolved, reply, inside} (start/end: the player's
 * frames, null for a joint pinned without frames; `inside`: within the player's frames).
 * @param {Comment[]} comments
 * @param {PinContext} ctx
 * @returns {Pin[]}
 */
export function timelinePins(comments, ctx) {
  /** @type {Pin[]} */
  const pins = [];
  /**
   * @param {Comment} comment
   * @param {boolean} resolved
   * @param {boolean} reply
   */
  const add = (comment, resolved, reply) => {
    if (comment.frame_start == null && !comment.joint) return;
    const start = toPlayerFrame(comment.frame_clip, comment.frame_start, ctx);
    const end = comment.frame_end == null ? start : toPlayerFrame(comment.frame_clip, comment.frame_end, ctx);
    // With a start there is an end (the start itself when the comment has none).
    const inside = start == null || (start >= 0 && end != null && end <= ctx.frames - 1);
    pins.push({
      id: comment.id, author: comment.author ?? "someone", start, end,
      joint: comment.joint || "", resolved, reply, inside,
    });
  };
  for (const comment of comments) {
    const resolved = Boolean(comment.resolved_at);
    add(comment, resolved, false);
    for (const reply of comment.replies ?? []) add(reply, resolved, true);
  }
  return pins;
}

/**
 * The unresolved joint pins shown at `frame` (a pin without frames shows throughout).
 * @param {Pin[]} pins
 * @param {number} frame
 */
export function activeJointPins(pins, frame) {
  return pins.filter((pin) => pin.joint && !pin.resolved
    && (pin.start == null || (pin.start <= frame && pin.end != null && frame <= pin.end)));
}

/**
 * Whether a pin has frames inside the player's.
 * @param {Pin} pin
 * @returns {pin is PlacedPin}
 */
export function placedInside(pin) {
  return pin.start != null && pin.end != null && pin.inside;
}

/**
 * Lanes for the timeline so that no two pins overlap: pins sorted by start, each in the
 * first lane whose last pin ends `gap` frames before it. Returns lane per pin id and the
 * number of lanes.
 * @param {Pin[]} pins
 * @param {number} [gap] frames
 * @returns {{lane: Map<number, number>, count: number}}
 */
export function lanes(pins, gap = 1) {
  /** @type {number[]} */
  const ends = [];
  /** @type {Map<number, number>} */
  const lane = new Map();
  const placed = pins.filter(placedInside).sort((p, q) => p.start - q.start || p.id - q.id);
  for (const pin of placed) {
    let i = ends.findIndex((end) => end + gap <= pin.start);
    if (i < 0) i = ends.push(-Infinity) - 1;
    ends[i] = pin.end;
    lane.set(pin.id, i);
  }
  return { lane, count: ends.length };
}

/**
 * @param {number} frame
 * @param {number} fps
 */
function seconds(frame, fps) {
  return `${(frame / fps).toFixed(2)} s`;
}

/**
 * A comment's frames in words, with times at its clip's rate: "frame 12 · 0.20 s",
 * "frames 12–20 · 0.20–0.33 s", "B frame 3 · 0.05 s"; "" without frames.
 * @param {Comment} comment
 * @param {PinContext} ctx
 */
export function frameText(comment, ctx) {
  const { frame_start: start, frame_end: end } = comment;
  if (start == null) return "";
  const clip = comment.frame_clip ?? "transition";
  const fps = clip === "transition" ? ctx.fps : ctx.clips?.[clip]?.fps || ctx.fps;
  const prefix = CLIP_NAMES[clip] ?? "";
  if (end == null || end === start) return `${prefix}frame ${start} · ${seconds(start, fps)}`;
  return `${prefix}frames ${start}–${end} · ${(start / fps).toFixed(2)}–${seconds(end, fps)}`;
}

/**
 * A pinned parameter set in words: "α 0.6, θ_max 75°, speed, mtp".
 * @param {Record<string, unknown> | null | undefined} set
 */
export function parameterText(set) {
  if (!set) return "";
  /** @type {string[]} */
  const parts = [];
  if (set.alpha != null) parts.push(`α ${set.alpha}`);
  if (set.theta_max_deg != null) parts.push(`θ_max ${set.theta_max_deg}°`);
  for (const key of ["measure", "method", "blend"]) if (set[key]) parts.push(String(set[key]));
  return parts.join(", ");
}

/**
 * The API's body for a new comment (or reply).
 * @typedef {{body: string, frame_clip?: FrameClip, frame_start?: number, frame_end?: number,
 *   joint?: string, parameter_set?: Record<string, unknown>, reply_to?: number}} CommentPayload
 */

// The server's rule (webapp/reviews/pins.py): "@name" not preceded by a letter, digit,
// ".", "+", "-" or "@"; a trailing "." ends the name.
const MENTION = /(?<![\p{L}\p{N}_.+\-@])@([\p{L}\p{N}_.+\-]+)/gu;

/**
 * The body cut into text and mentions, [{text, mention}], where only the names the
 * server resolved (`mentions`) count.
 * @param {string} body
 * @param {string[]} [mentions]
 * @returns {{text: string, mention: boolean}[]}
 */
export function mentionSegments(body, mentions = []) {
  const known = new Set(mentions);
  /** @type {{text: string, mention: boolean}[]} */
  const parts = [];
  let last = 0;
  for (const match of body.matchAll(MENTION)) {
    const name = match[1].replace(/\.+$/, "");
    if (!known.has(name)) continue;
    if (match.index > last) parts.push({ text: body.slice(last, match.index), mention: false });
    parts.push({ text: `@${name}`, mention: true });
    last = match.index + 1 + name.length;
  }
  if (last < body.length) parts.push({ text: body.slice(last), mention: false });
  return parts;
}

/**
 * The API's comment body from the form's values: body, frames (transition clip), joint,
 * and the proposal's parameters when `pinParameters`. Empty fields are left out.
 * @param {{body: string, frameStart?: string | null, frameEnd?: string | null, joint?: string,
 *   pinParameters?: boolean, replyTo?: number | null}} values
 * @param {Record<string, unknown> | null | undefined} parameters
 * @returns {CommentPayload}
 */
export function commentPayload(values, parameters) {
  /** @type {CommentPayload} */
  const payload = { body: values.body.trim() };
  const frame = (/** @type {string | null | undefined} */ text) => (text === "" || text == null ? null : Number(text));
  const start = frame(values.frameStart);
  const end = frame(values.frameEnd);
  if (start != null) {
    payload.frame_clip = "transition";
    payload.frame_start = start;
  }
  if (end != null) payload.frame_end = end; // without a start the server says why not
  if (values.joint) payload.joint = values.joint;
  if (values.pinParameters) {
    payload.parameter_set = Object.fromEntries(
      Object.entries(parameters ?? {}).filter(([, value]) => value != null && value !== ""),
    );
  }
  if (values.replyTo != null) payload.reply_to = values.replyTo;
  return payload;
}
