// @ts-check
// The canonical character posed from a MotorNerve state: forward kinematics on the
// canonical skeleton (webapp.motornerve.presenters.drive_character: names, parents, rest
// offsets) as motioncore's state.to_clip and fk.positions do it — the 21 rotated joints
// from the state (the hips turned by the facing), every other joint at rest, the hips at
// (ground x, height, ground z) — then the whole figure scaled by `scale` about the
// origin (the character sized to a rig: its legs `scale` times the canonical ones).
//
// Buffers are allocated once; `pose` writes the joints' world positions (metres, Y up)
// into `positions`, the layout of a one-frame viewer array (viewer/skeleton-view.js).

import * as THREE from "three";
import { rootPosition, toQuaternions } from "../motornerve/state.js";

/**
 * @typedef {object} Skeleton drive_character()
 * @property {string[]} names
 * @property {number[]} parents -1 for the root; parents precede children
 * @property {number[][]} offsets [joints][3] rest offsets from the parent, metres
 * @property {boolean[]} end_site
 * @property {{left: number[], right: number[]}} feet each foot's joints (ankle, toe)
 * @property {import("../motornerve/foot-lock.js").FootLockConfig} foot_lock the live foot
 *   lock's constants and legs
 */

/**
 * The rest pose's world positions [joints × 3] (every rotation identity, the toes on the
 * floor: the hips as high as the legs are long), metres: what a skeleton view is built
 * from before the first pose (its bone lengths and capsules).
 * @param {Skeleton} skeleton
 */
export function restPositions(skeleton) {
  const out = new Float32Array(3 * skeleton.names.length);
  skeleton.parents.forEach((parent, j) => {
    for (let k = 0; k < 3; k += 1) out[3 * j + k] = (parent < 0 ? 0 : out[3 * parent + k]) + skeleton.offsets[j][k];
  });
  let lowest = Infinity;
  for (let j = 0; j < skeleton.names.length; j += 1) lowest = Math.min(lowest, out[3 * j + 1]);
  for (let j = 0; j < skeleton.names.length; j += 1) out[3 * j + 1] -= lowest;
  return out;
}

export class Character {
  /**
   * @param {Skeleton} skeleton
   * @param {import("../motornerve/state.js").StateLayout} layout the manifest's state layout
   */
  constructor(skeleton, layout) {
    this.skeleton = skeleton;
    this.layout = layout;
    this.joints = skeleton.names.length;
    this.parents = Int32Array.from(skeleton.parents);
    this.offsets = skeleton.offsets.map(([x, y, z]) => new THREE.Vector3(x, y, z));
    this.local = Array.from({ length: this.joints }, () => new THREE.Quaternion());
    this.world = Array.from({ length: this.joints }, () => new THREE.Quaternion());
    this.points = Array.from({ length: this.joints }, () => new THREE.Vector3());
    /** World positions [joints × 3], metres (scaled). */
    this.positions = new Float32Array(this.joints * 3);
    /** The canonical pose's world positions [joints × 3] (unscaled, metres) and world
     * rotations [joints × 4] (w, x, y, z): what the foot lock reads and moves. */
    this.canonical = new Float64Array(this.joints * 3);
    this.quaternions = new Float64Array(this.joints * 4);
    this.rotations = new Float32Array(layout.JOINTS.length * 4);
    this.root = new Float64Array(3);
    this.scratch = new THREE.Vector3();
    this.heel = new THREE.Vector3();
    this.soles = solesOf(skeleton);
    /** The scale of the last pose placed. */
    this.scale = 1;
  }

  /**
   * Pose the canonical character: `state` at `ground` facing `facing`, into `canonical`
   * and `quaternions`; `place(scale)` then sizes it into `positions`.
   * @param {ArrayLike<number>} state
   * @param {ArrayLike<number>} ground (x, z) metres, canonical
   * @param {number} facing radians about +Y
   */
  solve(state, ground, facing) {
    const q = toQuaternions(this.layout, state, facing, this.rotations);
    for (const quaternion of this.local) quaternion.identity();
    this.layout.JOINTS.forEach((joint, i) => {
      this.local[joint].set(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    });
    const root = rootPosition(this.layout, state, ground, this.root);
    for (let j = 0; j < this.joints; j += 1) {
      const parent = this.parents[j];
      if (parent < 0) {
        this.world[j].copy(this.local[j]);
        this.points[j].set(root[0], root[1], root[2]);
      } else {
        this.world[j].multiplyQuaternions(this.world[parent], this.local[j]);
        this.scratch.copy(this.offsets[j]).applyQuaternion(this.world[parent]);
        this.points[j].copy(this.points[parent]).add(this.scratch);
      }
      this.points[j].toArray(this.canonical, 3 * j);
      const w = this.world[j];
      this.quaternions.set([w.w, w.x, w.y, w.z], 4 * j);
    }
    return this.canonical;
  }

  /**
   * The canonical pose (as `solve` left it, or moved since) scaled by `scale` about the
   * origin into `positions`.
   * @param {number} scale
   * @returns {Float32Array} the positions
   */
  place(scale) {
    this.scale = scale;
    for (let i = 0; i < this.positions.length; i += 1) this.positions[i] = this.canonical[i] * scale;
    return this.positions;
  }

  /**
   * Pose the character: `state` on the canonical skeleton at `ground` facing `facing`,
   * scaled by `scale`.
   * @param {ArrayLike<number>} state
   * @param {ArrayLike<number>} ground (x, z) metres, canonical
   * @param {number} facing radians about +Y
   * @param {number} scale
   * @returns {Float32Array} the positions
   */
  pose(state, ground, facing, scale) {
    this.solve(state, ground, facing);
    return this.place(scale);
  }

  /**
   * The lowest point of `side`'s sole in the last pose placed — the heel (under the
   * ankle as far as the ankle stands above the toe at rest, turned with the foot), the
   * toe or the toe's tip — into `out` (scaled metres).
   * @param {"left" | "right"} side
   * @param {THREE.Vector3} out
   */
  footPoint(side, out) {
    const sole = this.soles[side];
    const p = this.positions;
    const world = this.world[sole.ankle];
    const heel = this.heel.copy(sole.heel).applyQuaternion(world).multiplyScalar(this.scale);
    heel.add(this.scratch.fromArray(p, 3 * sole.ankle));
    out.copy(heel);
    for (const j of sole.joints) if (p[3 * j + 1] < out.y) out.fromArray(p, 3 * j);
    return out;
  }
}

/**
 * Each foot's sole: the ankle, the heel in the ankle's frame (metres, canonical) and the
 * joints below it (the toe and, where the skeleton has one, its end site).
 * @param {Skeleton} skeleton
 * @returns {Record<string, {ankle: number, heel: THREE.Vector3, joints: number[]}>}
 */
function solesOf(skeleton) {
  const rest = restPositions(skeleton);
  /** @type {Record<string, {ankle: number, heel: THREE.Vector3, joints: number[]}>} */
  const out = {};
  for (const side of ["left", "right"]) {
    const [ankle, toe] = skeleton.feet[/** @type {"left" | "right"} */ (side)];
    const joints = [toe, ...skeleton.parents.flatMap((parent, j) => (parent === toe ? [j] : []))];
    const below = rest[3 * ankle + 1] - Math.min(...joints.map((j) => rest[3 * j + 1]));
    out[side] = { ankle, heel: new THREE.Vector3(0, -below, 0), joints };
  }
  return out;
}

/**
 * A one-frame viewer array of the rest pose (what viewer/skeleton-view.js is built from).
 * @param {Skeleton} skeleton
 * @returns {import("../viewer/arrays.js").ViewerArrays}
 */
export function restArrays(skeleton) {
  return {
    frames: 1,
    joints: skeleton.names.length,
    fps: 60,
    positions: restPositions(skeleton),
    parents: skeleton.parents,
    end_site: skeleton.end_site,
    names: skeleton.names,
    offsets: skeleton.offsets.flat(),
  };
}
