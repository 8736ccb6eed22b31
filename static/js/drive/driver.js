// @ts-check
// The character the Drive page plays: the MotorNerve controller (motornerve/controller.js,
// runtime.Controller's port) stepped at 30 Hz on 60 Hz frames, and the pose shown between
// two steps. As motioncore's runtime.play lays its steps out at 60 Hz, frame 2k shows the
// state of step k and frame 2k + 1 the midpoint of steps k and k + 1 (rotations slerped,
// root and facing linear); the display, at whatever rate the browser draws, interpolates
// the same way at its fraction of a frame. The shown pose is therefore one step behind
// the newest state (what interpolation costs: 33 ms).
//
// Frame f's command steps the controller when f is a multiple of STEP_FRAMES, as
// runtime.play steps on commands[0], commands[2], …: a recording replayed by the server
// makes the same steps.

import { Controller } from "../motornerve/controller.js";
import { slerpState } from "../motornerve/state.js";

/**
 * A shown pose: the state, the root on the ground (x, z, m) and the facing (rad), on the
 * canonical character.
 * @typedef {{state: Float64Array, ground: Float64Array, facing: number}} Pose
 */

/** Weight of a new step time in the running mean (about the last second at 30 Hz). */
const STEP_TIME_WEIGHT = 1 / 30;

/** @param {number} size */
function emptyPose(size) {
  return { state: new Float64Array(size), ground: new Float64Array(2), facing: 0 };
}

export class Driver {
  /** @param {import("../motornerve/network.js").MotorNerveNetwork} network */
  constructor(network) {
    this.network = network;
    this.runtime = network.runtime;
    this.layout = network.runtime.state;
    this.stepFrames = network.runtime.STEP_FRAMES;
    const size = this.layout.SIZE;
    this.previous = emptyPose(size);
    this.current = emptyPose(size);
    this.given = new Float64Array(network.runtime.intent.SIZE);
    this.contacts = new Float64Array(2);
    /** The contact probabilities of the step before the newest. */
    this.contactsBefore = new Float64Array(2);
    /** Mean wall-clock time of a network step, ms. */
    this.stepMs = 0;
    this.controller = new Controller(network);
    /** Whether the gate held an interaction at the last step. */
    this.queued = false;
    /** 60 Hz frames played since the start. */
    this.frame = 0;
    /** The frame whose command made `current`. */
    this.stepFrame = 0;
    this.steps = 0;
    this.reset();
  }

  /** A new controller: standing at the origin facing +Z, frame 0 (runtime.play's start). */
  reset() {
    this.controller = new Controller(this.network);
    for (const pose of [this.previous, this.current]) {
      pose.state.set(this.controller.current);
      pose.ground.fill(0);
      pose.facing = 0;
    }
    this.given.set(this.runtime.INITIAL_INTENT);
    this.contacts.fill(0);
    this.contactsBefore.fill(0);
    this.queued = false;
    this.frame = 0;
    this.stepFrame = 0;
    this.steps = 0;
  }

  /**
   * Play one 60 Hz frame of the world `command` [12]; returns whether the network stepped.
   * @param {ArrayLike<number>} command
   */
  tick(command) {
    const stepping = this.frame % this.stepFrames === 0;
    if (stepping) {
      const { previous, current } = this;
      previous.state.set(current.state);
      previous.ground.set(current.ground);
      previous.facing = current.facing;
      const started = performance.now();
      const step = this.controller.step(command);
      const ms = performance.now() - started;
      this.stepMs = this.steps ? this.stepMs + STEP_TIME_WEIGHT * (ms - this.stepMs) : ms;
      current.state.set(step.state);
      current.ground.set(step.ground);
      current.facing = step.facing;
      this.given.set(step.given);
      this.contactsBefore.set(this.steps ? this.contacts : step.contacts);
      this.contacts.set(step.contacts);
      this.queued = step.queued;
      this.stepFrame = this.frame;
      this.steps += 1;
    }
    this.frame += 1;
    return stepping;
  }

  /**
   * The pose shown `alpha` (0-1) of a frame after the last frame played, into `out`.
   * @param {number} alpha
   * @param {Pose} out
   * @returns {Pose} out
   */
  pose(alpha, out) {
    const { previous: a, current: b } = this;
    const t = Math.min(Math.max((this.frame - 1 - this.stepFrame + alpha) / this.stepFrames, 0), 1);
    slerpState(this.layout, a.state, b.state, t, out.state);
    out.ground[0] = (1 - t) * a.ground[0] + t * b.ground[0];
    out.ground[1] = (1 - t) * a.ground[1] + t * b.ground[1];
    out.facing = (1 - t) * a.facing + t * b.facing;
    return out;
  }

  /**
   * The contact probabilities of the frame last played (runtime.contact_steps): the
   * step whose state it shows (the one before the newest, on a stepping frame) or leads
   * into (the newest).
   */
  frameContacts() {
    return (this.frame - 1) % this.stepFrames === 0 ? this.contactsBefore : this.contacts;
  }

  /** A pose to draw into (`pose`'s `out`). */
  newPose() {
    return emptyPose(this.layout.SIZE);
  }

  /** The root's ground speed of the newest step, m/s on the canonical character. */
  get speed() {
    const v = this.layout.VELOCITY[0];
    const s = this.current.state;
    return Math.hypot(s[v], s[v + 1]);
  }
}
