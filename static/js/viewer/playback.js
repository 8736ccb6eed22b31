// @ts-check
// Playback clock of a clip: play/pause, speed, frame step, loop, seek.
//
// Time is in seconds of the clip (0 … (frames - 1) / fps); `frame` is the nearest
// frame at or before the time. Pure logic (no DOM, no three.js) so that it can be
// tested with node's test runner; the page calls `update(dt)` once per animation
// frame with the wall-clock seconds since the last one.

export const SPEEDS = Object.freeze([0.25, 0.5, 1, 1.5, 2]);

export class Playback {
  /**
   * @param {number} frames number of frames (≥ 1)
   * @param {number} fps frames per second (> 0)
   */
  constructor(frames, fps) {
    if (!(frames >= 1) || !(fps > 0)) throw new Error(`bad clip: ${frames} frames at ${fps} fps`);
    this.frames = frames;
    this.fps = fps;
    this.time = 0;
    this.speed = 1;
    this.playing = false;
    this.loop = true;
    /** @type {Set<(playback: Playback) => void>} */
    this.listeners = new Set();
  }

  /** Duration in seconds, (frames - 1) / fps. */
  get duration() {
    return (this.frames - 1) / this.fps;
  }

  /** The frame shown now, 0 … frames - 1. */
  get frame() {
    return Math.min(this.frames - 1, Math.floor(this.time * this.fps + 1e-6));
  }

  /**
   * Call `listener(playback)` after every change; returns a function that removes it.
   * @param {(playback: Playback) => void} listener
   * @returns {() => boolean}
   */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit() {
    for (const listener of this.listeners) listener(this);
  }

  play() {
    if (this.frame >= this.frames - 1 && !this.loop) this.time = 0;
    this.playing = true;
    this.emit();
  }

  pause() {
    this.playing = false;
    this.emit();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /**
   * Set the speed factor, clamped to SPEEDS' range (0.25× … 2×); 1 when not a number.
   * @param {number} speed
   */
  setSpeed(speed) {
    this.speed = Math.min(SPEEDS[SPEEDS.length - 1], Math.max(SPEEDS[0], Number(speed) || 1));
    this.emit();
  }

  /**
   * One step along SPEEDS: +1 faster, -1 slower.
   * @param {number} direction
   */
  shiftSpeed(direction) {
    const index = SPEEDS.findIndex((s) => s >= this.speed - 1e-9);
    const next = Math.min(SPEEDS.length - 1, Math.max(0, index + Math.sign(direction)));
    this.setSpeed(SPEEDS[next]);
  }

  /**
   * Change the number of frames (≥ 1), keeping the time where it still fits.
   * @param {number} frames
   */
  setLength(frames) {
    if (!(frames >= 1)) throw new Error(`bad length: ${frames} frames`);
    this.frames = frames;
    this.time = Math.min(this.time, this.duration);
    this.emit();
  }

  /**
   * Show frame `frame` (clamped), and pause.
   * @param {number} frame
   */
  seek(frame) {
    const f = Math.min(this.frames - 1, Math.max(0, Math.round(frame)));
    this.time = f / this.fps;
    this.playing = false;
    this.emit();
  }

  /**
   * Move by `count` frames (negative: back), pausing.
   * @param {number} count
   */
  step(count) {
    this.seek(this.frame + count);
  }

  /**
   * Advance the clock by `dt` wall-clock seconds × speed while playing.
   * @param {number} dt
   * @returns {boolean} whether the frame changed
   */
  update(dt) {
    if (!this.playing || !(dt > 0)) return false;
    const before = this.frame;
    let time = this.time + dt * this.speed;
    if (time > this.duration) {
      if (this.loop && this.duration > 0) time %= this.duration;
      else {
        time = this.duration;
        this.playing = false;
      }
    }
    this.time = time;
    const changed = this.frame !== before || !this.playing;
    if (changed) this.emit();
    return changed;
  }
}
