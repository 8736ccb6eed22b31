// @ts-check
// The optional body of a skeleton: a capsule per bone, i.e. an instanced cylinder
// from parent to child and an instanced sphere of the same radius at each end. The
// radius is a third of the bone's length within [MIN_RADIUS_M, MAX_RADIUS_M]; bones
// longer than MAX_BONE_M (no human bone is; a carrier root on the ground hanging the
// hips a metre above it is) get no capsule.

import * as THREE from "three";

const MIN_RADIUS_M = 0.01;
const MAX_RADIUS_M = 0.055;
const MAX_BONE_M = 0.6;
const UP = new THREE.Vector3(0, 1, 0);

export class CapsuleBody {
  /**
   * @param {Int32Array} bones child joint of each bone
   * @param {Int32Array} parents parent per joint
   * @param {Float32Array} lengths each bone's length, metres (rigid: any frame)
   * @param {THREE.Material} material
   */
  constructor(bones, parents, lengths, material) {
    this.bones = bones;
    this.parents = parents;
    this.radii = Float32Array.from(lengths, (length) => (
      length > MAX_BONE_M ? 0 : Math.min(MAX_RADIUS_M, Math.max(MIN_RADIUS_M, length / 3))
    ));
    this.material = material;
    this.cylinder = new THREE.CylinderGeometry(1, 1, 1, 14, 1, true).translate(0, 0.5, 0);
    this.sphere = new THREE.SphereGeometry(1, 12, 8);
    this.limbs = new THREE.InstancedMesh(this.cylinder, material, bones.length);
    this.ends = new THREE.InstancedMesh(this.sphere, material, 2 * bones.length);
    this.object = new THREE.Group();
    this.object.name = "body";
    for (const mesh of [this.limbs, this.ends]) {
      mesh.frustumCulled = false;
      this.object.add(mesh);
    }
    this.matrix = new THREE.Matrix4();
    this.a = new THREE.Vector3();
    this.b = new THREE.Vector3();
    this.direction = new THREE.Vector3();
    this.rotation = new THREE.Quaternion();
    this.scale = new THREE.Vector3();
  }

  /**
   * Pose the capsules at the frame whose positions start at `positions[base]`.
   * @param {Float32Array} positions flat [frames × joints × 3], metres
   * @param {number} base
   */
  setPositions(positions, base) {
    const { a, b, direction, rotation, scale, matrix } = this;
    const p = positions;
    this.bones.forEach((child, i) => {
      const from = base + this.parents[child] * 3;
      const to = base + child * 3;
      a.set(p[from], p[from + 1], p[from + 2]);
      b.set(p[to], p[to + 1], p[to + 2]);
      direction.subVectors(b, a);
      const length = direction.length();
      rotation.setFromUnitVectors(UP, length > 1e-9 ? direction.divideScalar(length) : UP);
      const r = this.radii[i];
      this.limbs.setMatrixAt(i, matrix.compose(a, rotation, scale.set(r, r > 0 ? length : 0, r)));
      this.ends.setMatrixAt(2 * i, matrix.makeScale(r, r, r).setPosition(a));
      this.ends.setMatrixAt(2 * i + 1, matrix.makeScale(r, r, r).setPosition(b));
    });
    this.limbs.instanceMatrix.needsUpdate = true;
    this.ends.instanceMatrix.needsUpdate = true;
  }

  dispose() {
    this.cylinder.dispose();
    this.sphere.dispose();
    this.limbs.dispose();
    this.ends.dispose();
  }
}
