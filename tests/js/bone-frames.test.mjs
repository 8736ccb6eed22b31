// Joint rotations from positions (static/js/viewer/bone-frames.js): on a skeleton posed
// by known rotations (forward kinematics here), a joint with two spread bones gets its
// true world rotation, a joint with one bone carries that bone onto where it is, and the
// translation of a carrier root is told from a bone.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BoneFrames, translatedBones } from "../../static/js/viewer/bone-frames.js";

// hips(0) → spine(1) → chest(2) → neck(3); chest → arm(4) → hand(5); hips → leg(6) → foot(7); hips → leg(8)
const PARENTS = [-1, 0, 1, 2, 2, 4, 0, 6, 0];
const OFFSETS = [[0, 1, 0], [0, 0.2, 0], [0, 0.25, 0], [0, 0.15, 0], [0.2, 0.1, 0], [0.3, 0, 0], [0.1, -0.05, 0], [0, -0.45, 0], [-0.1, -0.05, 0]];

const mul = (a, b) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const rotate = (q, v) => {
  const p = mul(mul(q, [...v, 0]), [-q[0], -q[1], -q[2], q[3]]);
  return p.slice(0, 3);
};
const axisAngle = (axis, angle) => {
  const n = Math.hypot(...axis);
  const s = Math.sin(angle / 2);
  return [axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, Math.cos(angle / 2)];
};

/** World rotations and positions of the skeleton with local rotations `local`. */
function fk(local, root = [0, 1, 0]) {
  const world = [];
  const positions = [];
  PARENTS.forEach((p, j) => {
    world[j] = p < 0 ? local[j] : mul(world[p], local[j]);
    positions[j] = p < 0 ? root : rotate(world[p], OFFSETS[j]).map((x, k) => x + positions[p][k]);
  });
  return { world, positions };
}

const REST = fk(PARENTS.map(() => [0, 0, 0, 1])).positions.flat();

function randomPose(seed) {
  let s = seed;
  const random = () => ((s = (s * 16807) % 2147483647) / 2147483647);
  return PARENTS.map(() => axisAngle([random() - 0.5, random() - 0.5, random() - 0.5], 2 * random()));
}

const close = (a, b, tolerance = 1e-5) => a.every((x, i) => Math.abs(x - b[i]) < tolerance);
const sameRotation = (a, b) => Math.abs(a.reduce((sum, x, i) => sum + x * b[i], 0)) > 1 - 1e-6;

test("a joint with two spread bones gets its true world rotation", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const { world, positions } = fk(randomPose(seed));
    const out = new Float64Array(PARENTS.length * 4);
    new BoneFrames(PARENTS, REST).solve(positions.flat(), 0, out);
    for (const j of [0, 2]) { // the hips (spine, two legs) and the chest (neck, arm)
      assert.ok(sameRotation([...out.subarray(4 * j, 4 * j + 4)], world[j]), `joint ${j}, seed ${seed}`);
    }
  }
});

test("a joint with one bone carries it to where it is", () => {
  const { positions } = fk(randomPose(7));
  const out = new Float64Array(PARENTS.length * 4);
  new BoneFrames(PARENTS, REST).solve(positions.flat(), 0, out);
  for (const [j, c] of [[1, 2], [4, 5], [6, 7]]) {
    const restBone = OFFSETS[c];
    const turned = rotate([...out.subarray(4 * j, 4 * j + 4)], restBone);
    const now = positions[c].map((x, k) => x - positions[j][k]);
    assert.ok(close(turned, now), `bone ${j}→${c}: ${turned} vs ${now}`);
  }
});

test("the rest pose is the identity everywhere", () => {
  const out = new Float64Array(PARENTS.length * 4);
  new BoneFrames(PARENTS, REST).solve(REST, 0, out);
  for (let j = 0; j < PARENTS.length; j += 1) assert.ok(sameRotation([...out.subarray(4 * j, 4 * j + 4)], [0, 0, 0, 1]));
});

test("a carrier root's translation is found, a pinned pelvis that turns is not", () => {
  // a carrier (0) on the floor under hips (1) that walk away or only sway
  const frames = 30;
  const carried = (sway) => {
    const positions = [];
    for (let f = 0; f < frames; f += 1) {
      const x = sway ? 0.03 * Math.sin(f) : 0.05 * f;
      positions.push(0, 0, 0, x, 1, 0, x, 0.55, 0); // the leg goes with the hips
    }
    const rotations = [];
    for (let f = 0; f < 3 * frames; f += 1) rotations.push(0, 0, 0, 1);
    return translatedBones({ positions, parents: [-1, 0, 1], frames, joints: 3, rotations_xyzw: rotations });
  };
  assert.deepEqual([...carried(false)], [1]);
  assert.deepEqual([...carried(true)], [1]);
  // a pelvis root (0) pinned in place that turns: its bone to the spine (1) is a bone
  const positions = [];
  const rotations = [];
  for (let f = 0; f < frames; f += 1) {
    const q = axisAngle([0, 1, 0], 0.1 * f);
    positions.push(0, 1, 0, ...rotate(q, [0.1, 0.2, 0]).map((x, k) => x + [0, 1, 0][k]));
    rotations.push(...q, 0, 0, 0, 1);
  }
  assert.deepEqual([...translatedBones({ positions, parents: [-1, 0], frames, joints: 2, rotations_xyzw: rotations })], []);
});
