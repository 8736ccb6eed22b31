// @ts-check
// The 3-D player every page with a skeleton shares: its stage or stages (stage.js), the
// playback clock with its widgets and keys (playback.js, controls.js), the animation
// loop, resizing, the camera presets ([data-preset] buttons), the body checkbox
// ([data-body], ticked by default: the mannequin) and the bones overlay's ([data-bones]). A page script builds one (construct), gives it a clock once it knows
// its clip's frames (setClock), draws its own frame in `onFrame`, and may end it
// (dispose); `update(dt)` is one step of the loop.
//
// The camera follows a joint through one scratch vector (`track`, `aim`): nothing is
// allocated per frame.

import * as THREE from "three";
import { all } from "../dom.js";
import { PlaybackControls } from "./controls.js";
import { Playback } from "./playback.js";
import { Stage } from "./stage.js";

/**
 * What the camera can follow: a SkeletonView, or a LeveledSkeleton (full-rate.js).
 * @typedef {{jointPosition: (frame: number, joint: number, out: THREE.Vector3) => THREE.Vector3}} Followed
 */

/**
 * @typedef {object} PlayerOptions
 * @property {HTMLElement[]} canvases the elements the stages fill, one stage each
 * @property {(playback: Playback) => void} [onFrame] draw the page at the clock's frame
 *   (after every change of the clock)
 * @property {Record<string, () => void>} [extraKeys] the page's own keys (controls.js)
 * @property {(visible: boolean) => void} [onBody] the body checkbox was changed
 * @property {(visible: boolean) => void} [onBones] the bones checkbox was changed
 * @property {() => void} [onResize] after the stages were resized (window resize)
 * @property {(index: number) => boolean} [isShown] whether stage `index` is drawn
 *   (default: every stage)
 */

/** The point looked at before there is a skeleton: the origin at hip height. */
const HIP_HEIGHT = Object.freeze({ x: 0, y: 1, z: 0 });
/** The joint the camera follows, at the frame shown (reused: one per module). */
const followed = new THREE.Vector3();
const noop = () => {};

export class Player {
  /**
   * @param {HTMLElement} root the player (focusable: its keys; data-frame, data-body-shown)
   * @param {PlayerOptions} options
   */
  constructor(root, { canvases, onFrame = noop, extraKeys = {}, onBody = noop, onBones = noop, onResize = noop, isShown }) {
    this.root = root;
    this.stages = canvases.map((canvas) => new Stage(canvas));
    this.stage = this.stages[0];
    this.options = { onFrame, extraKeys, onResize, isShown: isShown ?? (() => true) };
    /** @type {Playback | null} made by setClock */
    this.playback = null;
    /** @type {PlaybackControls | null} made by setClock */
    this.controls = null;
    this.last = 0;
    this.request = 0;
    this.listening = new AbortController();
    this.bodyBox = /** @type {HTMLInputElement | null} */ (root.querySelector("[data-body]"));
    this.bonesBox = /** @type {HTMLInputElement | null} */ (root.querySelector("[data-bones]"));
    root.dataset.bodyShown = String(this.bodyShown);
    this.bind(onBody, onBones);
  }

  /** Camera presets, the body and bones checkboxes and window resizes. */
  bind(/** @type {(visible: boolean) => void} */ onBody, /** @type {(visible: boolean) => void} */ onBones) {
    const { signal } = this.listening;
    for (const button of all(this.root, "[data-preset]")) {
      button.addEventListener("click", () => {
        for (const stage of this.stages) stage.preset(button.dataset.preset ?? "", stage.target);
      }, { signal });
    }
    const box = this.bodyBox;
    box?.addEventListener("change", () => {
      onBody(box.checked);
      this.root.dataset.bodyShown = String(box.checked);
    }, { signal });
    const bones = this.bonesBox;
    bones?.addEventListener("change", () => onBones(bones.checked), { signal });
    window.addEventListener("resize", () => this.resize(), { signal });
  }

  /** Whether the body checkbox is ticked (false without one). */
  get bodyShown() {
    return Boolean(this.bodyBox?.checked);
  }

  /** Whether the bones checkbox is ticked (false without one). */
  get bonesShown() {
    return Boolean(this.bonesBox?.checked);
  }

  /**
   * Draw `view` as the checkboxes say (body, bones overlay); `view` itself. Once its
   * body is built the player says which it is (data-body-kind: "mannequin", or
   * "capsules" where the server could make no mannequin).
   * @param {import("./skeleton-view.js").SkeletonView} view
   */
  dress(view) {
    view.showBody(this.bodyShown).then(() => {
      const kind = view.group.userData.body;
      if (kind && !this.root.dataset.bodyKind) this.root.dataset.bodyKind = kind;
    });
    view.showBones(this.bonesShown);
    return view;
  }

  /**
   * The clock for `frames` frames at `fps`: made with its widgets and keys the first time;
   * later paused, given the new rate and length, and put back to frame 0.
   * @param {number} frames
   * @param {number} fps
   * @returns {Playback}
   */
  setClock(frames, fps) {
    const playback = this.playback;
    if (playback) {
      playback.pause();
      playback.fps = fps; // set before the length, which clamps the time
      playback.setLength(frames);
      playback.seek(0);
      return playback;
    }
    const made = new Playback(frames, fps);
    this.playback = made;
    this.controls = new PlaybackControls(this.root, made, { extraKeys: this.options.extraKeys });
    made.onChange(this.options.onFrame);
    return made;
  }

  /**
   * Keep stage `index`'s camera on `joint` of `view` at `frame` (when it follows).
   * @param {Followed} view
   * @param {number} joint
   * @param {number} frame
   * @param {number} [index]
   * @returns {THREE.Vector3} the joint's position (the player's scratch: read it now)
   */
  track(view, joint, frame, index = 0) {
    const position = view.jointPosition(frame, joint, followed);
    this.stages[index].track(position);
    return position;
  }

  /**
   * Camera preset `name` on stage `index`, looking at `joint` of `view` at frame 0.
   * @param {string} name "front", "side", "top" or "follow"
   * @param {Followed} view
   * @param {number} joint
   * @param {number} [index]
   */
  aim(name, view, joint, index = 0) {
    this.stages[index].preset(name, view.jointPosition(0, joint, followed));
  }

  /**
   * Camera preset `name` on every stage, looking at the origin at hip height.
   * @param {string} name
   */
  aimAtOrigin(name) {
    for (const stage of this.stages) stage.preset(name, followed.copy(HIP_HEIGHT));
  }

  /** Start the animation loop (the first frame advances nothing). */
  start() {
    const loop = (/** @type {number} */ now) => {
      const dt = this.last ? (now - this.last) / 1000 : 0;
      this.last = now;
      this.update(dt);
      this.request = requestAnimationFrame(loop);
    };
    this.request = requestAnimationFrame(loop);
  }

  /**
   * One step: advance the clock by `dt` seconds and draw the stages shown.
   * @param {number} dt wall-clock seconds since the last step
   */
  update(dt) {
    this.playback?.update(dt);
    this.stages.forEach((stage, i) => {
      if (this.options.isShown(i)) stage.render();
    });
  }

  /** Fit every stage to its box, then the page's own resize. */
  resize() {
    for (const stage of this.stages) stage.resize();
    this.options.onResize();
  }

  /** Stop the loop and the listeners, and release the stages. */
  dispose() {
    cancelAnimationFrame(this.request);
    this.listening.abort();
    this.controls?.dispose();
    for (const stage of this.stages) stage.dispose();
  }
}
