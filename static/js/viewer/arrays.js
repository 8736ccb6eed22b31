// @ts-check
// Questions about the server's viewer arrays (motioncore.export.viewer_arrays) that the
// players ask; pure functions, no three.js.

/**
 * The viewer arrays of a clip (the `viewer.json` download): metres, Y up. A long
 * clip's are a preview (levels.js): `frames`, `fps` and `positions` are every
 * `stride`-th frame's, and `full` describes the full-rate file next to it.
 * @typedef {object} ViewerArrays
 * @property {number} frames frames held here
 * @property {number} joints
 * @property {number} fps frames per second of the frames held here
 * @property {ArrayLike<number>} positions flat [frames × joints × 3] world positions
 * @property {number[]} parents [joints] parent joint, -1 for roots
 * @property {boolean[]} [end_site] [joints] whether each joint is an end site
 * @property {string[]} [names] [joints] joint names
 * @property {ArrayLike<number>} [offsets] flat [joints × 3] rest offsets from the parent, metres
 * @property {ArrayLike<number>} [rotations_xyzw] flat [frames × joints × 4] local rotations (x, y, z, w)
 * @property {number} [start_s] where this motion starts in the raw take, seconds
 * @property {number} [stride] clip frames per frame held here (absent: 1)
 * @property {import("./levels.js").FullRateFile} [full] the full-rate file (when stride > 1)
 */

/**
 * The joint the follow camera tracks: of the roots and their children, the one that
 * travels furthest on the ground (a static carrier root such as Bandai's joint_Root
 * leaves the walking to its child, the hips).
 * @param {ViewerArrays} arrays
 * @returns {number} the joint's index
 */
export function travellingRoot(arrays) {
  const { parents, positions, frames, joints } = arrays;
  const near = parents.flatMap((p, j) => (p < 0 || parents[p] < 0 ? [j] : []));
  const travel = (/** @type {number} */ j) => {
    const a = j * 3;
    const b = ((frames - 1) * joints + j) * 3;
    return Math.hypot(positions[b] - positions[a], positions[b + 2] - positions[a + 2]);
  };
  return near.reduce((best, j) => (travel(j) > travel(best) ? j : best), near[0] ?? 0);
}

/**
 * "20 joints (+ 5 end sites) · 182 frames at 60.00 fps"; a long clip's preview adds
 * " (preview: every 108th frame)".
 * @param {ViewerArrays} arrays
 */
export function describe(arrays) {
  const ends = (arrays.end_site ?? []).filter(Boolean).length;
  const frames = arrays.full?.frames ?? arrays.frames;
  const fps = arrays.full?.fps ?? arrays.fps;
  const text = `${arrays.joints - ends} joints (+ ${ends} end sites) · ${frames} frames at ${Number(fps).toFixed(2)} fps`;
  const stride = arrays.stride ?? 1;
  return stride > 1 ? `${text} (preview: every ${ordinal(stride)} frame)` : text;
}

/** 2 → "2nd", 11 → "11th", 108 → "108th". @param {number} n */
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] ?? "th";
  return `${n}${suffix}`;
}
