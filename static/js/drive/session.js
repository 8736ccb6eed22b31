// @ts-check
// One drive on the page: the driver (network and controller), the posed character, the
// live measures and the recorder, advanced one 60 Hz frame at a time by `tick(key)` and
// drawn at any fraction of a frame by `display(alpha)`. The character is the canonical
// one, shown `scale` times its size: it is asked for the commanded speeds divided by the
// scale (as the server's drive on a rig asks them), so that, scaled, it moves at the
// speeds commanded.
//
// While recording, the session keeps every frame's key (recorder.js) and the root of
// every step on the canonical character (`trail`: x, z, facing from the standing start),
// what the server's replay must reproduce.

import * as THREE from "three";
import { commandOf, IDLE, sameKey, scaled, wantedVelocity } from "./commands.js";
import { Character } from "./character.js";
import { Driver } from "./driver.js";
import { applyLock, FootLock } from "../motornerve/foot-lock.js";
import { FootSkate, ReactionMeter } from "./measures.js";
import { Recorder } from "./recorder.js";

/** @typedef {import("./commands.js").Key} Key */

const SIDES = /** @type {const} */ (["left", "right"]);

export class DriveSession {
  /**
   * @param {import("../motornerve/network.js").MotorNerveNetwork} network
   * @param {import("./character.js").Skeleton} skeleton
   * @param {{max_duration_s: number, max_keys: number}} limits a timeline's
   * @param {number} scale the shown character's size over the canonical one
   */
  constructor(network, skeleton, limits, scale) {
    this.runtime = network.runtime;
    this.layout = network.runtime.intent;
    this.fps = network.runtime.FPS;
    this.driver = new Driver(network);
    this.character = new Character(skeleton, network.runtime.state);
    this.footLock = new FootLock(skeleton.foot_lock, this.fps);
    /** The last frame's lock: where the ankles went, the drop, which feet were held, and
     * the network's own ankles then (the offsets a shown pose between frames keeps). */
    this.frameLock = { ankles: new Float64Array(6), drop: 0, held: [false, false] };
    this.frameAnkles = new Float64Array(6);
    this.shownLock = { ankles: new Float64Array(6), drop: 0, held: [false, false] };
    /** Whether the shown feet are locked (the lock follows the frames either way). */
    this.lockFeet = true;
    this.recorder = new Recorder(this.fps, { maxDurationS: limits.max_duration_s, maxKeys: limits.max_keys });
    this.reaction = new ReactionMeter();
    this.skate = new FootSkate(this.fps);
    this.scale = scale;
    this.command = new Float64Array(this.layout.SIZE);
    this.framePose = this.driver.newPose();
    this.shownPose = this.driver.newPose();
    this.root = new THREE.Vector3();
    this.lastRoot = new THREE.Vector3();
    this.velocity = new THREE.Vector2();
    this.foot = new THREE.Vector3();
    /** @type {number[]} */
    this.trail = [];
    /** @type {Key} the key of the last frame */
    this.key = IDLE;
    this.restart();
  }

  /** Back to the standing start at the origin (the measures start again). */
  restart() {
    this.driver.reset();
    this.footLock.reset();
    this.key = IDLE;
    this.skate.reset();
    this.reaction = new ReactionMeter();
    this.measure();
    this.lastRoot.copy(this.root);
    this.velocity.set(0, 0);
  }

  /** Restart and record from the first frame on. */
  startRecording() {
    this.restart();
    this.recorder.start();
    this.trail = [0, 0, 0];
  }

  /**
   * Play one 60 Hz frame of `key`; returns false when a recording has just filled up (the
   * frame is played, not recorded).
   * @param {Key} key
   */
  tick(key) {
    const frame = this.driver.frame;
    if (!sameKey(key, this.key)) {
      const [wx, wz] = wantedVelocity(key);
      this.reaction.change(frame, wx, wz, this.velocity.x, this.velocity.y);
      this.key = key;
    }
    const kept = !this.recorder.active || this.recorder.add(key);
    scaled(this.layout, commandOf(this.layout, key, this.command), this.scale);
    if (this.driver.tick(this.command) && this.recorder.active && kept) {
      const { ground, facing } = this.driver.current;
      this.trail.push(ground[0], ground[1], facing);
    }
    this.measure();
    this.velocity.set(this.root.x - this.lastRoot.x, this.root.z - this.lastRoot.z).multiplyScalar(this.fps);
    this.lastRoot.copy(this.root);
    this.reaction.sample(frame + 1, this.velocity.x, this.velocity.y);
    return kept;
  }

  /** Pose the character at the frame just played (no interpolation), its feet locked
   * (motornerve/foot-lock.js, as the server's runtime.play does), and sample the feet. */
  measure() {
    const pose = this.driver.pose(0, this.framePose);
    const canonical = this.character.solve(pose.state, pose.ground, pose.facing);
    if (this.driver.frame > 0) {
      const lock = this.footLock.step(canonical, this.character.quaternions, this.driver.frameContacts());
      this.frameLock.ankles.set(lock.ankles);
      this.frameLock.drop = lock.drop;
      this.footLock.config.legs.forEach((leg, side) => {
        this.frameLock.held[side] = lock.held[side];
        this.frameAnkles.set(canonical.subarray(3 * leg.ankle, 3 * leg.ankle + 3), 3 * side);
      });
      if (this.lockFeet) applyLock(canonical, this.footLock.config, this.frameLock);
    }
    this.character.place(this.scale);
    this.root.fromArray(this.character.positions, 0);
    for (const side of SIDES) {
      const p = this.character.footPoint(side, this.foot);
      this.skate.sample(side, p.x, p.y, p.z);
    }
  }

  /**
   * Pose the character `alpha` of a frame after the last one played; its positions. The
   * last frame's lock holds: a held ankle stays where it was held, a free one keeps the
   * correction it had, the hips their drop.
   * @param {number} alpha
   */
  display(alpha) {
    const pose = this.driver.pose(alpha, this.shownPose);
    const canonical = this.character.solve(pose.state, pose.ground, pose.facing);
    if (this.driver.frame > 0 && this.lockFeet) { // measure() has locked a frame
      const shown = this.shownLock;
      shown.drop = this.frameLock.drop;
      this.footLock.config.legs.forEach((leg, side) => {
        for (let k = 0; k < 3; k += 1) {
          const i = 3 * side + k;
          const moved = canonical[3 * leg.ankle + k] - this.frameAnkles[i];
          shown.ankles[i] = this.frameLock.ankles[i] + (this.frameLock.held[side] ? 0 : moved);
        }
      });
      applyLock(canonical, this.footLock.config, shown);
    }
    return this.character.place(this.scale);
  }

  /** The root's ground speed, m/s at the shown size. */
  get speed() {
    return this.driver.speed * this.scale;
  }

  /** The action the network was asked for last. */
  get action() {
    const { ACTION, ACTIONS } = this.layout;
    const given = this.driver.given;
    let best = 0;
    for (let i = 1; i < ACTIONS.length; i += 1) if (given[ACTION[0] + i] > given[ACTION[0] + best]) best = i;
    return ACTIONS[best];
  }
}
