// A skeleton drawn from the server's ready-to-play arrays (motioncore.export.viewer_arrays):
// joints as one instanced mesh of spheres, bones as one line-segment geometry. Buffers
// are allocated once and updated in place each frame; the browser does no kinematics.
//
// Arrays (metres, Y up): `positions` flat [frames × joints × 3] world positions,
// `parents` [joints] (-1 for roots), `end_site` [joints] booleans.

import * as THREE from "three";

const JOINT_RADIUS_M = 0.025;
const END_SITE_RADIUS_M = 0.012;

export class SkeletonView {
  /**
   * @param {{positions: number[] | Float32Array, parents: number[], end_site?: boolean[],
   *          frames: number, joints: number}} arrays
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
    this.group = new THREE.Group();
    this.group.name = "skeleton";
    const color = style.color ?? 0x2f6fde;
    const opacity = style.opacity ?? 1;
    this.material = new THREE.MeshStandardMaterial({
      color, roughness: 0.5, transparent: opacity < 1, opacity,
    });
    this.lineMaterial = new THREE.LineBasicMaterial({
      color, transparent: opacity < 1, opacity,
    });
    this.sphere = new THREE.SphereGeometry(1, 8, 6);
    this.jointMesh = new THREE.InstancedMesh(this.sphere, this.material, this.joints);
    this.jointMesh.frustumCulled = false;
    this.lineBuffer = new Float32Array(this.bones.length * 6);
    this.lineGeometry = new THREE.BufferGeometry();
    this.lineGeometry.setAttribute("position", new THREE.BufferAttribute(this.lineBuffer, 3));
    this.lines = new THREE.LineSegments(this.lineGeometry, this.lineMaterial);
    this.lines.frustumCulled = false;
    this.group.add(this.jointMesh, this.lines);
    this.matrix = new THREE.Matrix4();
    this.frame = -1;
    this.update(0);
  }

  /** World position [x, y, z] of `joint` at `frame`, metres. */
  jointPosition(frame, joint, out = new THREE.Vector3()) {
    const i = (frame * this.joints + joint) * 3;
    return out.set(this.positions[i], this.positions[i + 1], this.positions[i + 2]);
  }

  /** Pose the skeleton at `frame` (clamped to the clip). */
  update(frame) {
    const f = Math.min(this.frames - 1, Math.max(0, frame | 0));
    if (f === this.frame) return;
    this.frame = f;
    const base = f * this.joints * 3;
    const p = this.positions;
    for (let j = 0; j < this.joints; j += 1) {
      const r = this.endSite[j] ? END_SITE_RADIUS_M : JOINT_RADIUS_M;
      const i = base + j * 3;
      this.matrix.makeScale(r, r, r).setPosition(p[i], p[i + 1], p[i + 2]);
      this.jointMesh.setMatrixAt(j, this.matrix);
    }
    this.jointMesh.instanceMatrix.needsUpdate = true;
    for (let b = 0; b < this.bones.length; b += 1) {
      const child = base + this.bones[b] * 3;
      const parent = base + this.parents[this.bones[b]] * 3;
      this.lineBuffer.set(p.subarray(parent, parent + 3), b * 6);
      this.lineBuffer.set(p.subarray(child, child + 3), b * 6 + 3);
    }
    this.lineGeometry.attributes.position.needsUpdate = true;
  }

  dispose() {
    this.sphere.dispose();
    this.lineGeometry.dispose();
    this.material.dispose();
    this.lineMaterial.dispose();
    this.jointMesh.dispose();
  }
}
