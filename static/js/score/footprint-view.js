// @ts-check
// The score's footprints on the 3-D stage's ground: a flat sole per print (left green,
// right pink, as the clip page's foot contacts), all of them always drawn, pale before
// the foot gets there, darker once left behind, full colour while the foot stands on
// it; and the body centre's path as a thin orange ribbon. Geometry is built once; a new
// time only recolours the prints, and only when a print's state changed.

import * as THREE from "three";
import { ribbon } from "../walk/path.js";
import { printState } from "./format.js";

/** @typedef {import("./format.js").Print} Print */
/** @typedef {"future" | "current" | "past"} PrintState */
/** @typedef {"left" | "right"} Side */

/** @typedef {Print & {position_m: number[]}} Placed a print with a place */

/**
 * Whether a print has a place on the ground.
 * @param {Print} print
 * @returns {print is Placed}
 */
function hasPlace(print) {
  return Array.isArray(print.position_m);
}

/** @type {Readonly<Record<Side, number>>} */
export const SIDE_COLORS = Object.freeze({ left: 0x1f9d74, right: 0xc0568c });
const BACKGROUND = new THREE.Color(0xf4f6f9);
/** @type {Readonly<Record<PrintState, number>>} how far each state fades to the background */
const FADE = Object.freeze({ future: 0.78, past: 0.45, current: 0 });
const LIFT_M = 0.004; // above the grid lines
const PATH_LIFT_M = 0.007;
const PATH_HALF_WIDTH_M = 0.012;
const PATH_COLOR = 0xe0861a;

/**
 * A sole ~26 cm long, 9 cm wide, lying on the ground pointing along +Z (the body's left
 * is +X), the ankle (the print's position) 6 cm from the heel, the arch on −X (the left
 * foot's inside); `mirror` −1 puts the arch on +X (the right foot's inside).
 * @param {number} mirror
 */
function soleGeometry(mirror) {
  const s = new THREE.Shape();
  const w = 0.045;
  s.moveTo(0, -0.065);
  s.bezierCurveTo(w * 0.9, -0.065, w * 0.85, 0.0, w * 0.8, 0.05);
  s.bezierCurveTo(w * 0.8, 0.12, w * 1.1, 0.15, w * 0.9, 0.18);
  s.bezierCurveTo(w * 0.5, 0.205, -w * 0.6, 0.205, -w * 0.9, 0.17);
  s.bezierCurveTo(-w * 1.05, 0.13, -w * 0.55, 0.08, -w * 0.7, 0.03);
  s.bezierCurveTo(-w * 0.8, -0.02, -w * 0.9, -0.065, 0, -0.065);
  const geometry = new THREE.ShapeGeometry(s, 6);
  geometry.rotateX(Math.PI / 2); // the shape's +y becomes +Z (forward)
  if (mirror < 0) geometry.scale(-1, 1, 1);
  return geometry;
}

export class FootprintView {
  /**
   * @param {import("./format.js").Footprints} data the footprints JSON
   */
  constructor(data) {
    this.group = new THREE.Group();
    this.group.name = "footprints";
    /** @type {Placed[]} the prints that have a place */
    this.prints = (data?.footprints ?? []).filter(hasPlace);
    this.material = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
    /**
     * Per side: its prints' mesh, which prints they are, their colour in each state.
     * @type {Map<Side, {mesh: THREE.InstancedMesh, indices: number[], colors: Record<PrintState, THREE.Color>}>}
     */
    this.meshes = new Map();
    /** @type {PrintState[]} per print, as last coloured */
    this.states = [];
    /** @type {Array<[Side, number]>} */
    const sides = [["left", 1], ["right", -1]];
    for (const [side, mirror] of sides) {
      const indices = this.prints.flatMap((p, i) => (p.side === side ? [i] : []));
      const geometry = soleGeometry(mirror);
      const mesh = new THREE.InstancedMesh(geometry, this.material, Math.max(1, indices.length));
      mesh.count = indices.length;
      mesh.frustumCulled = false;
      mesh.name = `footprints-${side}`;
      const matrix = new THREE.Matrix4();
      indices.forEach((i, k) => {
        const p = this.prints[i];
        matrix.makeRotationY(Number(p.heading_rad) || 0);
        matrix.setPosition(p.position_m[0], LIFT_M + k * 1e-5, p.position_m[1]);
        mesh.setMatrixAt(k, matrix);
      });
      const base = new THREE.Color(SIDE_COLORS[side]);
      const fade = (/** @type {PrintState} */ state) => base.clone().lerp(BACKGROUND, FADE[state]);
      const colors = { future: fade("future"), past: fade("past"), current: fade("current") };
      this.meshes.set(side, { mesh, indices, colors });
      this.group.add(mesh);
    }
    const path = (data?.centre_path_m ?? []).filter((point) => Array.isArray(point) && point.length >= 2);
    this.pathGeometry = new THREE.BufferGeometry();
    this.pathGeometry.setAttribute("position", new THREE.BufferAttribute(ribbon(path, PATH_HALF_WIDTH_M, PATH_LIFT_M), 3));
    this.pathGeometry.computeBoundingSphere();
    this.pathMaterial = new THREE.MeshBasicMaterial({ color: PATH_COLOR, side: THREE.DoubleSide });
    this.path = new THREE.Mesh(this.pathGeometry, this.pathMaterial);
    this.path.name = "centre-path";
    this.group.add(this.path);
    this.setTime(0, true);
  }

  /**
   * Colour the prints for `seconds` into the animation; returns how many are in use.
   * @param {number} seconds
   * @param {boolean} [force] every print, changed or not
   */
  setTime(seconds, force = false) {
    let current = 0;
    for (const { mesh, indices, colors } of this.meshes.values()) {
      let changed = force;
      indices.forEach((i, k) => {
        const state = printState(this.prints[i], seconds);
        if (state === "current") current += 1;
        if (state === this.states[i] && !force) return;
        this.states[i] = state;
        mesh.setColorAt(k, colors[state]);
        changed = true;
      });
      if (changed && mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
    }
    return current;
  }

  dispose() {
    for (const { mesh } of this.meshes.values()) {
      mesh.geometry.dispose();
      mesh.dispose();
    }
    this.material.dispose();
    this.pathGeometry.dispose();
    this.pathMaterial.dispose();
  }
}
