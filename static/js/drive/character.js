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
    this.rotations = new Float32Array(layout.JOINTS.length * 4);
    this.root = new Float64Array(3);
    this.scratch = new THREE.Vector3();
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
      this.points[j].toArray(this.positions, 3 * j);
    }
    for (let i = 0; i < this.positions.length; i += 1) this.positions[i] *= scale;
    return this.positions;
  }

  /**
   * The lowest point of `side`'s foot (its ankle or its toe, whichever is lower) in the
   * last pose, into `out`.
   * @param {"left" | "right"} side
   * @param {THREE.Vector3} out
   */
  footPoint(side, out) {
    const [ankle, toe] = this.skeleton.feet[side];
    const p = this.positions;
    const low = p[3 * toe + 1] < p[3 * ankle + 1] ? toe : ankle;
    return out.fromArray(p, 3 * low);
  }

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
  };
}
