// Questions about the server's viewer arrays (motioncore.export.viewer_arrays) that the
// players ask; pure functions, no three.js.

/**
 * The joint the follow camera tracks: of the roots and their children, the one that
 * travels furthest on the ground (a static carrier root such as Bandai's joint_Root
 * leaves the walking to its child, the hips).
 */
export function travellingRoot(arrays) {
  const { parents, positions, frames, joints } = arrays;
  const near = parents.flatMap((p, j) => (p < 0 || parents[p] < 0 ? [j] : []));
  const travel = (j) => {
    const a = j * 3;
    const b = ((frames - 1) * joints + j) * 3;
    return Math.hypot(positions[b] - positions[a], positions[b + 2] - positions[a + 2]);
  };
  return near.reduce((best, j) => (travel(j) > travel(best) ? j : best), near[0] ?? 0);
}

/** "20 joints (+ 5 end sites) · 182 frames at 60.00 fps". */
export function describe(arrays) {
  const ends = (arrays.end_site ?? []).filter(Boolean).length;
  return `${arrays.joints - ends} joints (+ ${ends} end sites) · ${arrays.frames} frames at ${Number(arrays.fps).toFixed(2)} fps`;
}
