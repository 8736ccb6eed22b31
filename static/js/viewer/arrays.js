// @ts-check
// Questions about the server's viewer arrays (motioncore.export.viewer_arrays) that the
// players ask; pure functions, no three.js.

/**
 * The viewer arrays of a clip (the `viewer.json` download): metres, Y up.
 * @typedef {object} ViewerArrays
 * @property {number} frames
 * @property {number} joints
 * @property {number} fps frames per second
 * @property {ArrayLike<number>} positions flat [frames × joints × 3] world positions
 * @property {number[]} parents [joints] parent joint, -1 for roots
 * @property {boolean[]} [end_site] [joints] whether each joint is an end site
 * @property {string[]} [names] [joints] joint names
 * @property {number} [start_s] where this motion starts in the raw take, seconds
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
 * "20 joints (+ 5 end sites) · 182 frames at 60.00 fps".
 * @param {ViewerArrays} arrays
 */
export function describe(arrays) {
  const ends = (arrays.end_site ?? []).filter(Boolean).length;
  return `${arrays.joints - ends} joints (+ ${ends} end sites) · ${arrays.frames} frames at ${Number(arrays.fps).toFixed(2)} fps`;
}
