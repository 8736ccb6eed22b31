// @ts-check
// The 3-D stage: renderer, camera, lights, a ground plane with a metre grid and its
// labels (standing on the floor, as large on the screen near or far, those near the
// point looked at), orbit controls and
// camera presets (front, side, top, follow the root). Y is up, metres.

import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { context2d } from "../dom.js";

const GRID_HALF_M = 30;
/** Labels further than this from the point looked at (metres, on the floor) are not
 * drawn: at a constant screen size, far ones would pile up at the horizon. */
const LABEL_RADIUS_M = 7;
/** Metres between two labels of the grid. */
const LABEL_STEP_M = 2;
/** A label's height as a share of the canvas's (sizeAttenuation off: the same near or far). */
const LABEL_SCREEN_SHARE = 0.022;
const DISTANCE_M = 4.5;
/** Camera offset from the point it looks at, per preset: front (+Z), side (+X), top,
 * follow. Front and side look down a little from above head height (the floor and the
 * feet in view, the labels far below the character). */
const PRESETS = new Map([
  ["front", new THREE.Vector3(0, 1.0, DISTANCE_M)],
  ["side", new THREE.Vector3(DISTANCE_M, 1.0, 0)],
  ["top", new THREE.Vector3(0, DISTANCE_M * 1.6, 0.01)],
  ["follow", new THREE.Vector3(DISTANCE_M * 0.6, 0.8, DISTANCE_M * 0.8)],
]);
/** The height (metres) the presets' distances are made for: a person. Taller figures
 * (a character 4.5 m tall in its own units) get the camera further away, in proportion. */
const FRAMED_HEIGHT_M = 1.8;
/** The preset's centre (a copy: the caller may pass the stage's own target). */
const presetCentre = new THREE.Vector3();

/**
 * A text sprite (canvas texture) for the grid's metre labels.
 * @param {string} text
 */
function label(text) {
  const canvas = document.createElement("canvas");
  canvas.width = 96;
  canvas.height = 32;
  const context = context2d(canvas);
  context.fillStyle = "#5b6472";
  context.font = "20px system-ui, sans-serif";
  context.textAlign = "center";
  context.textBaseline = "middle";
  context.fillText(text, 48, 16);
  const texture = new THREE.CanvasTexture(canvas);
  const material = new THREE.SpriteMaterial({ map: texture, depthWrite: false, sizeAttenuation: false });
  const sprite = new THREE.Sprite(material);
  sprite.center.set(0.5, 0); // standing on its point of the floor
  sprite.scale.set(3 * LABEL_SCREEN_SHARE, LABEL_SCREEN_SHARE, 1);
  return sprite;
}

/** @type {boolean | null} whether WebGL is drawn on the CPU here (asked once) */
let software = null;

/**
 * Whether this browser draws WebGL on the CPU (SwiftShader, llvmpipe: a machine or a
 * browser without a GPU). Multisampling there costs about a frame's budget per
 * character: the Drive page drew 22–47 % of its frames late with it, 0.2–2.3 % without.
 */
export function softwareWebGL() {
  if (software !== null) return software;
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return (software = false);
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return (software = /swiftshader|llvmpipe|softpipe|software/i.test(name));
}

export class Stage {
  /** @param {HTMLElement} container the element the canvas fills */
  constructor(container) {
    this.container = container;
    // Antialiased where a GPU draws; not where the CPU does (softwareWebGL).
    const antialias = !softwareWebGL();
    this.renderer = new THREE.WebGLRenderer({ antialias, preserveDrawingBuffer: true });
    this.renderer.domElement.dataset.antialias = String(antialias);
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xf4f6f9);
    // the floor fades into the background far away (no moiré of grid lines at the horizon)
    this.scene.fog = new THREE.Fog(0xf4f6f9, 12, 30);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.05, 200);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = true;
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0xb8c0cc, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.4);
    sun.position.set(3, 6, 4);
    this.scene.add(sun);
    /** @type {THREE.Sprite[]} the grid's labels */
    this.labels = [];
    this.grid = this.makeGrid();
    this.scene.add(this.grid);
    this.follow = false;
    /** How much further than for a person the presets put the camera (frame()). */
    this.distance = 1;
    this.offset = new THREE.Vector3();
    this.target = new THREE.Vector3(0, 1, 0);
    this.preset("front");
    this.resize();
  }

  /** A ground plane, 1 m grid cells, labels every LABEL_STEP_M along X and Z. */
  makeGrid() {
    const group = new THREE.Group();
    group.name = "ground";
    const size = 2 * GRID_HALF_M;
    const plane = new THREE.Mesh(
      new THREE.PlaneGeometry(size, size).rotateX(-Math.PI / 2),
      // pushed back in depth: the grid's lines on it never lose to it
      new THREE.MeshBasicMaterial({ color: 0xe8ebf0, polygonOffset: true, polygonOffsetFactor: 2, polygonOffsetUnits: 2 }),
    );
    plane.position.y = -0.003;
    plane.name = "floor";
    group.add(plane, new THREE.GridHelper(size, size, 0x8f99a8, 0xc3c9d3));
    // X marks along the front edge of the origin cell, Z marks down a column 1.5 m to
    // the left: clear of a character walking through the origin along Z.
    for (let m = -GRID_HALF_M + LABEL_STEP_M; m < GRID_HALF_M; m += LABEL_STEP_M) {
      const x = label(`x ${m} m`);
      x.position.set(m, 0.01, 0.3);
      this.labels.push(x);
      if (m === 0) continue;
      const z = label(`z ${m} m`);
      z.position.set(-1.5, 0.01, m);
      this.labels.push(z);
    }
    group.add(...this.labels);
    return group;
  }

  /** Only the labels within LABEL_RADIUS_M of the point looked at are drawn. */
  showNearLabels() {
    const { x, z } = this.controls.target;
    for (const sprite of this.labels) {
      sprite.visible = Math.hypot(sprite.position.x - x, sprite.position.z - z) < LABEL_RADIUS_M;
    }
  }

  /**
   * Put the camera in front (+Z), at the side (+X), on top, or follow the root.
   * @param {string} name "front", "side", "top" or "follow" (a button's data-preset)
   * @param {THREE.Vector3} [center] the point looked at (metres)
   */
  preset(name, center = this.target) {
    const offset = PRESETS.get(name);
    if (!offset) throw new Error(`unknown camera preset ${name}`);
    const c = presetCentre.copy(center);
    this.camera.position.copy(c).addScaledVector(offset, this.distance);
    this.controls.target.copy(c);
    this.controls.update();
    this.follow = name === "follow";
    this.offset.copy(this.camera.position).sub(c);
  }

  /**
   * Make the presets frame a figure `height` metres tall (no closer than for a person).
   * @param {number} height
   */
  frame(height) {
    this.distance = Number.isFinite(height) ? Math.max(1, height / FRAMED_HEIGHT_M) : 1;
  }

  /**
   * Keep the camera's offset to `center` (the root, at hip height) when following.
   * @param {THREE.Vector3} center metres (copied)
   */
  track(center) {
    this.target.copy(center);
    if (!this.follow) return;
    this.controls.target.copy(center);
    this.camera.position.copy(center).add(this.offset);
  }

  resize() {
    const width = this.container.clientWidth || 640;
    const height = this.container.clientHeight || 360;
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.renderer.setSize(width, height);
  }

  render() {
    this.controls.update();
    this.showNearLabels();
    if (this.follow) this.offset.copy(this.camera.position).sub(this.controls.target);
    this.renderer.render(this.scene, this.camera);
  }

  dispose() {
    this.controls.dispose();
    this.renderer.dispose();
    this.renderer.domElement.remove();
  }
}
