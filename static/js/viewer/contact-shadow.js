// @ts-check
// A soft shadow on the floor under a body: one translucent disc with a radial falloff
// (a canvas texture), centred under the joints' mean position each frame and as wide as
// the body's spread on the floor. One quad: what a CPU rasteriser affords at 60 fps,
// where a shadow map of a skinned mesh is not.

import * as THREE from "three";

const FLOOR_Y_M = 0.002;
const MIN_RADIUS_M = 0.25;
const OPACITY = 0.32;

/** The radial falloff, dark in the middle, clear at the rim. */
function falloff() {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const context = canvas.getContext("2d");
  if (context) {
    const gradient = context.createRadialGradient(32, 32, 0, 32, 32, 32);
    gradient.addColorStop(0, "rgba(30, 36, 48, 1)");
    gradient.addColorStop(0.55, "rgba(30, 36, 48, 0.45)");
    gradient.addColorStop(1, "rgba(30, 36, 48, 0)");
    context.fillStyle = gradient;
    context.fillRect(0, 0, 64, 64);
  }
  return new THREE.CanvasTexture(canvas);
}

export class ContactShadow {
  /** @param {number[]} joints the joints of the body (not a carrier root on the floor) */
  constructor(joints, opacity = OPACITY) {
    this.joints = Int32Array.from(joints);
    this.texture = falloff();
    this.material = new THREE.MeshBasicMaterial({
      map: this.texture, transparent: true, opacity, depthWrite: false,
    });
    this.geometry = new THREE.PlaneGeometry(2, 2).rotateX(-Math.PI / 2);
    this.object = new THREE.Mesh(this.geometry, this.material);
    this.object.name = "contact shadow";
    this.object.renderOrder = -1;
  }

  /**
   * Put the shadow under the frame whose positions start at `p[base]` (metres).
   * @param {Float32Array} p
   * @param {number} base
   */
  setPositions(p, base) {
    const joints = this.joints;
    let x = 0, z = 0;
    for (const j of joints) x += p[base + 3 * j], z += p[base + 3 * j + 2];
    x /= joints.length || 1, z /= joints.length || 1;
    let spread = 0;
    for (const j of joints) spread = Math.max(spread, Math.hypot(p[base + 3 * j] - x, p[base + 3 * j + 2] - z));
    const radius = Math.max(MIN_RADIUS_M, 0.9 * spread);
    this.object.position.set(x, FLOOR_Y_M, z);
    this.object.scale.set(radius, 1, radius);
  }

  dispose() {
    this.texture.dispose();
    this.material.dispose();
    this.geometry.dispose();
  }
}
