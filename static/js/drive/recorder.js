// @ts-check
// What a recording keeps: the key of every 60 Hz frame, stored as an intent timeline
// (motioncore/motornerve/timeline.py) with a key only where the command changes. Frame f
// is at t = f / fps, computed as timeline.commands computes each frame's time, so the
// server gives frame f the command the page gave it; the duration makes the server's
// replay exactly as many frames long as the recording.
//
// Pure logic, no DOM: node's tests load it.

import { sameKey } from "./commands.js";

/** @typedef {import("./commands.js").Key} Key */
/** @typedef {Key & {t: number}} TimedKey */
/** @typedef {{duration_s: number, keys: TimedKey[]}} Timeline */

export class Recorder {
  /**
   * @param {number} fps frames per second (the runtime's FPS)
   * @param {{maxDurationS: number, maxKeys: number}} limits a timeline's (timeline.py)
   */
  constructor(fps, { maxDurationS, maxKeys }) {
    this.fps = fps;
    this.maxFrames = Math.floor(maxDurationS * fps);
    this.maxKeys = maxKeys;
    this.active = false;
    /** @type {TimedKey[]} */
    this.keys = [];
    /** @type {number[]} the frame of each key */
    this.keyFrames = [];
    this.frames = 0;
  }

  start() {
    this.active = true;
    this.keys = [];
    this.keyFrames = [];
    this.frames = 0;
  }

  /**
   * Keep the key of the next frame; returns false (keeping nothing) once the recording
   * is full: a timeline's longest duration or most keys.
   * @param {Key} key
   */
  add(key) {
    if (!this.active || this.full) return false;
    const last = this.keys[this.keys.length - 1];
    if (!last || !sameKey(last, key)) {
      if (this.keys.length >= this.maxKeys) return false;
      const { action, speed_mps, direction_deg, facing_deg, strength } = key;
      this.keys.push({ t: this.frames / this.fps, action, speed_mps, direction_deg, facing_deg, strength });
      this.keyFrames.push(this.frames);
    }
    this.frames += 1;
    return true;
  }

  /** Whether the next frame would not fit (the longest duration: the last key's frame stays below it). */
  get full() {
    return this.frames >= this.maxFrames;
  }

  /** Seconds recorded. */
  get seconds() {
    return this.frames / this.fps;
  }

  /**
   * Stop; the timeline of the frames kept (null when none was).
   * @returns {Timeline | null}
   */
  stop() {
    this.active = false;
    if (!this.frames) return null;
    const lastKeyFrame = this.keyFrames[this.keyFrames.length - 1];
    // timeline.commands plays round(duration_s * fps) + 1 frames, after the last key
    const frames = Math.max(this.frames - 1, lastKeyFrame + 1);
    return { duration_s: frames / this.fps, keys: this.keys };
  }
}
