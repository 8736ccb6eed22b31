// @ts-check
// A skeleton drawn from the server's ready-to-play arrays (motioncore.export.viewer_arrays):
// joints as lit sphere impostors (joint-sprites.js), bones as one line-segment geometry,
// and on demand a capsule body (capsule-body.js). Buffers are allocated once and
// updated in place each frame; the browser does no kinematics.
//
// Arrays (metres, Y up): `positions` flat [frames × joints × 3] world positions,
// `parents` [joints] (-1 for roots), `end_site` [joints] booleans.

import * as THREE from "three";
import { CapsuleBody } from "./capsule-body.js";
import { JointSprites } from "./joint-sprites.js";

const JOINT_RADIUS_M = 0.025;
const END_SITE_RADIUS_M = 0.012;
const MIN_JOINT_RADIUS_M = 0.005;

export class SkeletonView {
  /**
   * @param {import("./arrays.js").ViewerArrays} arrays
   * @param {{color?: number, opacity?: number}} [style]
   */
  constructor(arrays, style = {}) {
    this.frames = arrays.frames;
    this.joints = arrays.joints;
    this.positions = Float32Array.from(arrays.positions);
    if (this.positions.length !== this.frames * this.joints * 3) {
      throw new Error(`positions hold ${this.positions.length} values, expected frames × joints × 3`);
    }
    this.parents = Int32Array.from(arrays.parents);
    this.endSite = arrays.end_site ?? new Array(this.joints).fill(false);
    this.bones = Int32Array.from(
      [...this.parents.keys()].filter((j) => this.parents[j] >= 0),
    );
    this.boneLengths = this.measureBones();
    this.group = new THREE.Group();
    this.group.name = "skeleton";
    this.style = { color: style.color ?? 0x2f6fde, opacity: style.opacity ?? 1 };
    const transparent = this.style.opacity < 1;
    this.lineMaterial = new THREE.LineBasicMaterial({ ...this.style, transparent });
    this.lineBuffer = new Float32Array(this.bones.length * 6);
    this.lineGeometry = new THREE.BufferGeometry();
    this.lineGeometry.setAttribute("position", new THREE.BufferAttribute(this.lineBuffer, 3));
    this.lines = new THREE.LineSegments(this.lineGeometry, this.lineMaterial);
    this.lines.frustumCulled = false;
    this.sprites = new JointSprites(this.jointRadii(), this.style);
    this.group.add(this.sprites.object, this.lines);
    /** @type {CapsuleBody | null} built on first use */
    this.body = null;
    /** The preview frame shown; -1 when the pose came from elsewhere (draw). */
    this.frame = -1;
    /**
     * The buffer and offset the pose shown came from (redrawn when the body is shown).
     * @type {{positions: Float32Array, base: number}}
     */
    this.shown = { positions: this.positions, base: 0 };
    this.update(0);
  }

  /** Each bone's length on the first frame, metres (bones are rigid). */
  measureBones() {
    const a = new THREE.Vector3();
    const b = new THREE.Vector3();
    return Float32Array.from(this.bones, (child) =>
      this.jointPosition(0, this.parents[child], a).distanceTo(this.jointPosition(0, child, b)));
  }

  /**
   * Sphere radius per joint, metres: JOINT_RADIUS_M (END_SITE_RADIUS_M at end sites),
   * but no more than 0.4 × the joint's shortest bone so that fingers and twist joints
   * stay apart (a joint on top of its parent does not count).
   */
  jointRadii() {
    const shortest = new Float32Array(this.joints).fill(Infinity);
    this.bones.forEach((child, i) => {
      const length = this.boneLengths[i];
      if (length < 1e-6) return;
      const parent = this.parents[child];
      shortest[child] = Math.min(shortest[child], length);
      shortest[parent] = Math.min(shortest[parent], length);
    });
    return Float32Array.from(shortest, (bone, j) => {
      const r = this.endSite[j] ? END_SITE_RADIUS_M : JOINT_RADIUS_M;
      return Math.max(MIN_JOINT_RADIUS_M, Math.min(r, 0.4 * bone));
    });
  }

  /**
   * Show or hide the capsule body (built on first use). The body of a skeleton drawn
   * whole is opaque and Lambert-shaded: software WebGL (a machine without a GPU) drew
   * a translucent, physically shaded one at 30 fps, not 60; a ghost's is translucent.
   * @param {boolean} visible
   */
  showBody(visible) {
    if (visible && !this.body) {
      const ghost = this.style.opacity < 1;
      const material = new THREE.MeshLambertMaterial({
        color: this.style.color, transparent: ghost, opacity: ghost ? 0.85 * this.style.opacity : 1,
      });
      this.body = new CapsuleBody(this.bones, this.parents, this.boneLengths, material);
      this.group.add(this.body.object);
    }
    if (this.body) this.body.object.visible = visible;
    this.pose(this.shown.positions, this.shown.base);
  }

  /**
   * World position [x, y, z] of `joint` at `frame`, metres, into `out`.
   * @param {number} frame
   * @param {number} joint
   * @param {THREE.Vector3} out
   * @returns {THREE.Vector3} out
   */
  jointPosition(frame, joint, out) {
    const i = (frame * this.joints + joint) * 3;
    return out.set(this.positions[i], this.positions[i + 1], this.positions[i + 2]);
  }

  /**
   * Pose the skeleton at `frame` (clamped to the clip).
   * @param {number} frame
   */
  update(frame) {
    const f = Math.min(this.frames - 1, Math.max(0, frame | 0));
    if (f === this.frame) return;
    this.frame = f;
    this.pose(this.positions, f * this.joints * 3);
  }

  /**
   * Pose the skeleton from another buffer of the same joints (a full-rate window of the
   * clip, full-rate.js): the frame whose positions start at `positions[base]`.
   * @param {Float32Array} positions flat [frames × joints × 3], metres
   * @param {number} base
   */
  draw(positions, base) {
    this.frame = -1;
    this.pose(positions, base);
  }

  /**
   * Put joints, bones and body at the frame starting at `p[base]`.
   * @param {Float32Array} p flat [frames × joints × 3], metres
   * @param {number} base
   */
  pose(p, base) {
    this.shown = { positions: p, base };
    this.sprites.setPositions(p, base);
    for (let b = 0; b < this.bones.length; b += 1) {
      const child = base + this.bones[b] * 3;
      const parent = base + this.parents[this.bones[b]] * 3;
      this.lineBuffer.set(p.subarray(parent, parent + 3), b * 6);
      this.lineBuffer.set(p.subarray(child, child + 3), b * 6 + 3);
    }
    this.lineGeometry.attributes.position.needsUpdate = true;
    if (this.body?.object.visible) this.body.setPositions(p, base);
  }

  dispose() {
    if (this.body) {
      this.body.dispose();
      this.body.material.dispose();
    }
    this.sprites.dispose();
    this.lineGeometry.dispose();
    this.lineMaterial.dispose();
  }
}
