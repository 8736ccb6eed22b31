// A skeleton drawn from the server's ready-to-play arrays (motioncore.export.viewer_arrays):
// joints as one instanced mesh of spheres, bones as one line-segment geometry. Buffers
// are allocated once and updated in place each frame; the browser does no kinematics.
//
// Arrays (metres, Y up): `positions` flat [frames × joints × 3] world positions,
// `parents` [joints] (-1 for roots), `end_site` [joints] booleans.
//
// The optional body (`showBody(true)`) is a capsule per bone: an instanced cylinder
// from parent to child and an instanced sphere of the same radius at each end, the
// radius a third of the bone's length within [BODY_MIN_RADIUS_M, BODY_MAX_RADIUS_M].
// Bones longer than BODY_MAX_BONE_M (no human bone is; a carrier root on the ground
// hanging the hips a metre above it is) get no capsule.

import * as THREE from "three";

const JOINT_RADIUS_M = 0.025;
const END_SITE_RADIUS_M = 0.012;
const BODY_MIN_RADIUS_M = 0.01;
const BODY_MAX_RADIUS_M = 0.055;
const BODY_MAX_BONE_M = 0.6;
const UP = new THREE.Vector3(0, 1, 0);

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
    this.body = null;
    this.frame = -1;
    this.update(0);
  }

  /** Show or hide the capsule body (built on first use). */
  showBody(visible) {
    if (visible && !this.body) this.body = this.makeBody();
    if (this.body) this.body.group.visible = visible;
    const frame = this.frame;
    this.frame = -1;
    this.update(frame);
  }

  /** Instanced cylinders (one per bone) and spheres (two per bone), radii from the
   * first frame's bone lengths (rigid bones: the same on every frame). */
  makeBody() {
    const group = new THREE.Group();
    group.name = "body";
    const material = this.material.clone();
    material.opacity = Math.min(1, this.material.opacity * 0.85);
    material.transparent = true;
    const cylinder = new THREE.CylinderGeometry(1, 1, 1, 14, 1, true).translate(0, 0.5, 0);
    const n = this.bones.length;
    const limbs = new THREE.InstancedMesh(cylinder, material, n);
    const ends = new THREE.InstancedMesh(this.sphere, material, 2 * n);
    const radii = new Float32Array(n);
    const a = new THREE.Vector3();
    const b = new THREE.Vector3();
    this.bones.forEach((child, i) => {
      const length = this.jointPosition(0, this.parents[child], a).distanceTo(this.jointPosition(0, child, b));
      radii[i] = length > BODY_MAX_BONE_M
        ? 0
        : Math.min(BODY_MAX_RADIUS_M, Math.max(BODY_MIN_RADIUS_M, length / 3));
    });
    for (const mesh of [limbs, ends]) mesh.frustumCulled = false;
    group.add(limbs, ends);
    this.group.add(group);
    return {
      group, limbs, ends, radii, material, cylinder,
      a, b, direction: new THREE.Vector3(), rotation: new THREE.Quaternion(), scale: new THREE.Vector3(),
    };
  }

  /** Pose the body's capsules at the frame whose positions start at `base`. */
  updateBody(base) {
    const { limbs, ends, radii, a, b, direction, rotation, scale } = this.body;
    const p = this.positions;
    this.bones.forEach((child, i) => {
      const from = base + this.parents[child] * 3;
      const to = base + child * 3;
      a.set(p[from], p[from + 1], p[from + 2]);
      b.set(p[to], p[to + 1], p[to + 2]);
      direction.subVectors(b, a);
      const length = direction.length();
      rotation.setFromUnitVectors(UP, length > 1e-9 ? direction.divideScalar(length) : UP);
      const r = radii[i];
      limbs.setMatrixAt(i, this.matrix.compose(a, rotation, scale.set(r, r > 0 ? length : 0, r)));
      ends.setMatrixAt(2 * i, this.matrix.makeScale(r, r, r).setPosition(a));
      ends.setMatrixAt(2 * i + 1, this.matrix.makeScale(r, r, r).setPosition(b));
    });
    limbs.instanceMatrix.needsUpdate = true;
    ends.instanceMatrix.needsUpdate = true;
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
    if (this.body?.group.visible) this.updateBody(base);
  }

  dispose() {
    if (this.body) {
      this.body.cylinder.dispose();
      this.body.material.dispose();
      this.body.limbs.dispose();
      this.body.ends.dispose();
    }
    this.sphere.dispose();
    this.lineGeometry.dispose();
    this.material.dispose();
    this.lineMaterial.dispose();
    this.jointMesh.dispose();
  }
}
