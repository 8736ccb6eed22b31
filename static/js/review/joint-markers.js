// @ts-check
// Rings on the skeleton at the joints that comments are pinned to, drawn on top of the
// body (no depth test) and facing the camera (sprites). One ring texture, a small pool of
// sprites grown on demand and reused each frame; positions come from the skeleton
// view's arrays (metres, Y up), the browser does no kinematics.

import * as THREE from "three";
import { context2d } from "../dom.js";

const RING_SIZE_M = 0.2;
const TEXTURE_PX = 128;

/** A white ring with a dark rim on a transparent canvas (tinted by the material). */
function ringTexture() {
  const canvas = document.createElement("canvas");
  canvas.width = TEXTURE_PX;
  canvas.height = TEXTURE_PX;
  const context = context2d(canvas);
  const middle = TEXTURE_PX / 2;
  context.lineWidth = 16;
  context.strokeStyle = "#ffffff";
  context.beginPath();
  context.arc(middle, middle, middle - 14, 0, 2 * Math.PI);
  context.stroke();
  context.lineWidth = 3;
  context.strokeStyle = "rgba(20, 24, 31, 0.6)";
  for (const radius of [middle - 4, middle - 24]) {
    context.beginPath();
    context.arc(middle, middle, radius, 0, 2 * Math.PI);
    context.stroke();
  }
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

export class JointMarkers {
  /**
   * @param {import("../viewer/skeleton-view.js").SkeletonView} view the skeleton to mark
   * @param {string[]} names the viewer arrays' joint names (index = joint)
   * @param {{color?: number}} [style]
   */
  constructor(view, names, { color = 0xe0197d } = {}) {
    this.view = view;
    this.index = new Map(names.map((name, j) => [name, j]));
    this.texture = ringTexture();
    this.material = new THREE.SpriteMaterial({
      map: this.texture, color, depthTest: false, depthWrite: false, transparent: true,
    });
    this.group = new THREE.Group();
    this.group.name = "joint-markers";
    this.group.renderOrder = 10;
    /** @type {THREE.Sprite[]} a pool, grown on demand */
    this.sprites = [];
  }

  /**
   * Whether the skeleton has a joint called `name`.
   * @param {string} name
   */
  has(name) {
    return this.index.has(name);
  }

  /**
   * The pool's sprite `i` (made when the pool is smaller).
   * @param {number} i
   */
  sprite(i) {
    while (this.sprites.length <= i) {
      const sprite = new THREE.Sprite(this.material);
      sprite.scale.set(RING_SIZE_M, RING_SIZE_M, 1);
      sprite.renderOrder = 10;
      this.group.add(sprite);
      this.sprites.push(sprite);
    }
    return this.sprites[i];
  }

  /**
   * Put a ring on each joint of `joints` (names; unknown ones are skipped, each joint
   * once) at `frame`; returns the names marked.
   * @param {number} frame
   * @param {string[]} joints
   * @returns {string[]}
   */
  update(frame, joints) {
    const marked = [...new Set(joints)].filter((name) => this.index.has(name));
    marked.forEach((name, i) => {
      const sprite = this.sprite(i);
      this.view.jointPosition(frame, this.index.get(name) ?? 0, sprite.position); // marked: known
      sprite.visible = true;
    });
    for (let i = marked.length; i < this.sprites.length; i += 1) this.sprites[i].visible = false;
    return marked;
  }

  dispose() {
    this.group.removeFromParent();
    this.material.dispose();
    this.texture.dispose();
  }
}
