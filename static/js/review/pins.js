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

const CLIP_NAMES = { transition: "", a: "A ", b: "B " };

/**
 * The player's frame showing `frame` of `clip` (may lie outside the player's frames).
 * A plays unchanged up to the cut; B's frame e (at A's rate) plays at cut + e - entry.
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
 */
export function timelinePins(comments, ctx) {
  const pins = [];
  const add = (comment, resolved, reply) => {
    if (comment.frame_start == null && !comment.joint) return;
    const start = toPlayerFrame(comment.frame_clip, comment.frame_start, ctx);
    const end = comment.frame_end == null ? start : toPlayerFrame(comment.frame_clip, comment.frame_end, ctx);
    const inside = start == null || (start >= 0 && end <= ctx.frames - 1);
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

/** The unresolved joint pins shown at `frame` (a pin without frames shows throughout). */
export function activeJointPins(pins, frame) {
  return pins.filter((pin) => pin.joint && !pin.resolved
    && (pin.start == null || (pin.start <= frame && frame <= pin.end)));
}

/**
 * Lanes for the timeline so that no two pins overlap: pins sorted by start, each in the
 * first lane whose last pin ends `gap` frames before it. Returns lane per pin id and the
 * number of lanes.
 */
export function lanes(pins, gap = 1) {
  const ends = [];
  const lane = new Map();
  const placed = pins.filter((p) => p.start != null && p.inside).sort((p, q) => p.start - q.start || p.id - q.id);
  for (const pin of placed) {
    let i = ends.findIndex((end) => end + gap <= pin.start);
    if (i < 0) i = ends.push(-Infinity) - 1;
    ends[i] = pin.end;
    lane.set(pin.id, i);
  }
  return { lane, count: ends.length };
}

function seconds(frame, fps) {
  return `${(frame / fps).toFixed(2)} s`;
}

/**
 * A comment's frames in words, with times at its clip's rate: "frame 12 · 0.20 s",
 * "frames 12–20 · 0.20–0.33 s", "B frame 3 · 0.05 s"; "" without frames.
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

/** A pinned parameter set in words: "α 0.6, θ_max 75°, speed, mtp". */
export function parameterText(set) {
  if (!set) return "";
  const parts = [];
  if (set.alpha != null) parts.push(`α ${set.alpha}`);
  if (set.theta_max_deg != null) parts.push(`θ_max ${set.theta_max_deg}°`);
  for (const key of ["measure", "method", "blend"]) if (set[key]) parts.push(String(set[key]));
  return parts.join(", ");
}

// The server's rule (webapp/reviews/pins.py): "@name" not preceded by a letter, digit,
// ".", "+", "-" or "@"; a trailing "." ends the name.
const MENTION = /(?<![\p{L}\p{N}_.+\-@])@([\p{L}\p{N}_.+\-]+)/gu;

/**
 * The body cut into text and mentions, [{text, mention}], where only the names the
 * server resolved (`mentions`) count.
 */
export function mentionSegments(body, mentions = []) {
  const known = new Set(mentions);
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
 */
export function commentPayload(values, parameters) {
  const payload = { body: values.body.trim() };
  const frame = (text) => (text === "" || text == null ? null : Number(text));
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
