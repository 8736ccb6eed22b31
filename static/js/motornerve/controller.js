// @ts-check
// Playing MotorNerve in the browser: a port of motioncore/motornerve/runtime.py's
// Controller (and intent.localise, sharp_change, Gate) on the Stepper of network.js.
//
// One step (30 Hz) turns a *world* command [12] (intent.command's layout: direction a
// world ground vector, facing the (sin, cos) of the wanted world facing or zeros to face
// where you move) into the intent of the character's heading frame, lets the gate queue
// an interaction asked while moving fast (the network is asked to stop first), starts a
// BLEND_S blend when the intent changes sharply, predicts, limits the change of the
// velocity and the turn rate, eases the pose from the last shown one while blending
// (slerp of the joints' rotations), makes the 6-D rotations exact, feeds the shown
// state back to the network and integrates the root on the ground.
//
// Every constant comes from the manifest's `runtime` (packed.runtime_constants): none
// is copied here. step() allocates nothing: it returns its own buffers (copy what you
// keep).

import { Stepper } from "./network.js";
import { renormalise, rotateGround, slerpState } from "./state.js";

/**
 * @typedef {object} IntentLayout runtime.intent of the manifest (intent.py)
 * @property {number} SIZE
 * @property {number[]} DIRECTION [start, stop]
 * @property {number} SPEED
 * @property {number[]} FACING [start, stop]: (sin, cos)
 * @property {number[]} ACTION [start, stop]: one-hot over ACTIONS
 * @property {number} STRENGTH
 * @property {string[]} ACTIONS
 */
/**
 * @typedef {object} Runtime the manifest's `runtime` (packed.runtime_constants)
 * @property {number} HISTORY
 * @property {number} FPS
 * @property {number} STEP_FRAMES
 * @property {number} STEP_S
 * @property {number} BLEND_S
 * @property {number} MAX_ACCELERATION_MPS2
 * @property {number} VELOCITY_STEER
 * @property {number} STAND_BELOW_MPS
 * @property {number} TURN_STEER
 * @property {number} HORIZON_S
 * @property {number} MAX_TURN_ACCELERATION_RADPS2
 * @property {number} SHARP_SPEED_MPS
 * @property {number} SHARP_TURN_RAD
 * @property {number} INTERACT_BELOW_MPS
 * @property {number} MAX_SPEED_MPS
 * @property {number} INTERACT
 * @property {number} IDLE
 * @property {number[]} INITIAL_INTENT the intent the controller starts from
 * @property {number[]} QUEUED_INTENT what the gate gives while an interaction waits
 * @property {import("./state.js").StateLayout} state
 * @property {IntentLayout} intent
 */
/**
 * @typedef {object} Step what one controller step did (runtime.Step); the controller's
 * own buffers, overwritten by the next step
 * @property {Float64Array} state the shown state [S]
 * @property {Float64Array} contacts the feet's contact probabilities [2]
 * @property {Float64Array} given the intent the network got [12]
 * @property {boolean} queued whether the gate queued an interaction
 * @property {Float64Array} ground the root on the ground after the step (x, z), metres
 * @property {number} facing radians about +Y after the step (0 facing +Z)
 */

/** Vectors shorter than this count as zero (intent.localise, runtime.angle_2d). */
const TINY = 1e-9;

/**
 * Index of the largest of `v[start..stop)` (the first on ties), from `start`: np.argmax.
 * @param {ArrayLike<number>} v
 * @param {number} start
 * @param {number} stop
 */
export function argmax(v, start, stop) {
  let best = 0;
  for (let i = start + 1; i < stop; i += 1) if (v[i] > v[start + best]) best = i - start;
  return best;
}

/**
 * runtime.angle_2d: the angle between two ground vectors (0 when either is zero), radians.
 * @param {number} ax
 * @param {number} az
 * @param {number} bx
 * @param {number} bz
 */
export function angle2d(ax, az, bx, bz) {
  const na = Math.sqrt(ax * ax + az * az);
  const nb = Math.sqrt(bx * bx + bz * bz);
  if (na < TINY || nb < TINY) return 0.0;
  return Math.acos(Math.min(Math.max((ax * bx + az * bz) / (na * nb), -1.0), 1.0));
}

/** Python's float `%` (the result takes the divisor's sign). @param {number} a @param {number} b */
const pyMod = (a, b) => {
  const m = a % b;
  return m !== 0 && (m < 0) !== (b < 0) ? m + b : m;
};

/**
 * intent.localise: a world command [12] as the intent of a character facing `facing`.
 * @param {IntentLayout} layout
 * @param {ArrayLike<number>} command
 * @param {number} facing radians about +Y
 * @param {Float64Array} out [12]
 */
export function localise(layout, command, facing, out) {
  const dx = layout.DIRECTION[0], dz = dx + 1;
  const fs = layout.FACING[0], fc = fs + 1;
  for (let i = 0; i < layout.SIZE; i += 1) out[i] = command[i];
  const c = Math.cos(facing), s = Math.sin(facing);
  const x = command[dx], z = command[dz];
  out[dx] = c * x - s * z; // intent.in_heading_frame
  out[dz] = s * x + c * z;
  let turn = 0.0;
  if (Math.sqrt(command[fs] * command[fs] + command[fc] * command[fc]) > TINY) {
    turn = Math.atan2(command[fs], command[fc]) - facing;
  } else if (command[layout.SPEED] > 0.0 && Math.sqrt(x * x + z * z) > TINY) {
    turn = Math.atan2(out[dx], out[dz]);
  }
  turn = pyMod(turn + Math.PI, 2.0 * Math.PI) - Math.PI;
  out[fs] = Math.sin(turn);
  out[fc] = Math.cos(turn);
  return out;
}

/**
 * runtime.sharp_change: whether going from intent `before` to `after` is sharp (a new
 * action, a change of wanted speed of SHARP_SPEED_MPS or more, or a turn of the wanted
 * direction or facing of SHARP_TURN_RAD or more).
 * @param {Runtime} runtime
 * @param {ArrayLike<number>} before
 * @param {ArrayLike<number>} after
 */
export function sharpChange(runtime, before, after) {
  const { ACTION, SPEED, DIRECTION, FACING } = runtime.intent;
  if (argmax(before, ACTION[0], ACTION[1]) !== argmax(after, ACTION[0], ACTION[1])) return true;
  if (Math.abs(after[SPEED] - before[SPEED]) >= runtime.SHARP_SPEED_MPS) return true;
  const d = DIRECTION[0], f = FACING[0];
  const turns = Math.max(
    angle2d(before[d], before[d + 1], after[d], after[d + 1]),
    angle2d(before[f], before[f + 1], after[f], after[f + 1]),
  );
  return turns >= runtime.SHARP_TURN_RAD;
}

/** runtime.Gate: the state machine in front of the network. */
export class Gate {
  /** @param {Runtime} runtime */
  constructor(runtime) {
    this.runtime = runtime;
    this.queued = false;
  }

  /**
   * The intent the network gets for `wanted` when the character moves at `speed` m/s
   * (written into `out`, which may be `wanted`): speeds clamped to MAX_SPEED_MPS, an
   * interaction asked at INTERACT_BELOW_MPS or faster queued (the network gets
   * QUEUED_INTENT, standing still, meanwhile), one let through given standing.
   * @param {ArrayLike<number>} wanted
   * @param {number} speed
   * @param {Float64Array} out
   */
  admit(wanted, speed, out) {
    const r = this.runtime;
    const { SPEED, ACTION, DIRECTION } = r.intent;
    for (let i = 0; i < r.intent.SIZE; i += 1) out[i] = wanted[i];
    if (out[SPEED] > r.MAX_SPEED_MPS) out[SPEED] = r.MAX_SPEED_MPS;
    const interacting = argmax(out, ACTION[0], ACTION[1]) === r.INTERACT;
    this.queued = interacting && speed >= r.INTERACT_BELOW_MPS;
    if (this.queued) out.set(r.QUEUED_INTENT);
    else if (interacting) {
      // an interaction is done standing (as every one in the data is)
      out[DIRECTION[0]] = 0.0;
      out[DIRECTION[0] + 1] = 0.0;
      out[SPEED] = 0.0;
    }
    return out;
  }
}

/**
 * One character driven step by step (30 Hz) by world commands: runtime.Controller. It
 * keeps its own root on the ground (`ground` m, `facing` rad), starting at the origin
 * facing +Z.
 */
export class Controller {
  /**
   * @param {import("./network.js").MotorNerveNetwork} network
   * @param {ArrayLike<number> | null} [start] the first state (default: the manifest's
   *   start_state, runtime.start_state), held for the whole history
   */
  constructor(network, start = null) {
    const runtime = network.runtime;
    this.runtime = runtime;
    this.layout = runtime.state;
    const first = start ?? network.startState;
    if (!first) throw new Error("MotorNerve: no start state (the manifest has no start_state)");
    this.stepper = new Stepper(network);
    this.stepper.fill(first);
    this.gate = new Gate(runtime);
    const size = this.layout.SIZE;
    this.lastIntent = Float64Array.from(runtime.INITIAL_INTENT);
    this.blendLeftS = 0.0;
    this.ground = new Float64Array(2);
    this.facing = 0.0;
    this.wanted = new Float64Array(runtime.intent.SIZE);
    this.predicted = new Float64Array(size);
    this.offset = new Float64Array(2);
    /** @type {Step} */
    this.result = {
      state: new Float64Array(size), contacts: new Float64Array(2), given: new Float64Array(runtime.intent.SIZE),
      queued: false, ground: new Float64Array(2), facing: 0.0,
    };
  }

  /** The last shown state (the newest the network read). */
  get current() {
    return this.stepper.last;
  }

  /**
   * Advance one step towards the world `command` [12].
   * @param {ArrayLike<number>} command
   * @returns {Step}
   */
  step(command) {
    const r = this.runtime;
    const { VELOCITY, TURN } = this.layout;
    const vx = VELOCITY[0], vz = vx + 1;
    const last = this.stepper.last;
    const out = this.result;
    const speed = Math.sqrt(last[vx] * last[vx] + last[vz] * last[vz]);
    localise(r.intent, command, this.facing, this.wanted);
    const given = this.gate.admit(this.wanted, speed, out.given);
    if (sharpChange(r, this.lastIntent, given)) this.blendLeftS = r.BLEND_S;
    this.lastIntent.set(given);
    const prediction = this.stepper.predict(given);
    const predicted = this.predicted;
    predicted.set(prediction.state);
    out.contacts.set(prediction.contacts);
    steer(r, given, predicted, vx, TURN);
    limitVelocity(last, predicted, vx, r.MAX_ACCELERATION_MPS2 * r.STEP_S);
    const mostTurn = r.MAX_TURN_ACCELERATION_RADPS2 * r.STEP_S;
    predicted[TURN] = last[TURN] + Math.min(Math.max(predicted[TURN] - last[TURN], -mostTurn), mostTurn);
    const shown = out.state;
    if (this.blendLeftS > 0.0) {
      const weight = 1.0 - (this.blendLeftS - r.STEP_S) / r.BLEND_S;
      slerpState(this.layout, last, predicted, Math.min(Math.max(weight, 0.0), 1.0), shown);
      shown[vx] = predicted[vx];
      shown[vz] = predicted[vz];
      shown[TURN] = predicted[TURN];
      this.blendLeftS = Math.max(this.blendLeftS - r.STEP_S, 0.0);
    } else {
      shown.set(predicted);
    }
    renormalise(this.layout, shown, shown);
    this.stepper.push(shown);
    rotateGround(shown[vx] * r.STEP_S, shown[vz] * r.STEP_S, this.facing, this.offset);
    this.ground[0] = this.ground[0] + this.offset[0];
    this.ground[1] = this.ground[1] + this.offset[1];
    this.facing += shown[TURN] * r.STEP_S;
    out.queued = this.gate.queued;
    out.ground.set(this.ground);
    out.facing = this.facing;
    return out;
  }
}

/**
 * runtime.steer: the predicted root velocity (x, z at `at`) and turn rate (at `turn`)
 * moved VELOCITY_STEER and TURN_STEER of the way to what the intent `given` asks; asked
 * to stand, a velocity below STAND_BELOW_MPS is none.
 * @param {Runtime} r
 * @param {ArrayLike<number>} given
 * @param {Float64Array} predicted
 * @param {number} at
 * @param {number} turn
 */
function steer(r, given, predicted, at, turn) {
  const { DIRECTION, SPEED, FACING } = r.intent;
  const wantX = given[DIRECTION[0]] * given[SPEED];
  const wantZ = given[DIRECTION[0] + 1] * given[SPEED];
  predicted[at] = predicted[at] + r.VELOCITY_STEER * (wantX - predicted[at]);
  predicted[at + 1] = predicted[at + 1] + r.VELOCITY_STEER * (wantZ - predicted[at + 1]);
  if (given[SPEED] === 0 && Math.hypot(predicted[at], predicted[at + 1]) < r.STAND_BELOW_MPS) {
    predicted[at] = 0;
    predicted[at + 1] = 0;
  }
  const wantTurn = Math.atan2(given[FACING[0]], given[FACING[0] + 1]) / r.HORIZON_S;
  predicted[turn] = predicted[turn] + r.TURN_STEER * (wantTurn - predicted[turn]);
}

/**
 * runtime._limit on the ground velocity (x, z at `at`): `predicted`'s moved towards
 * `last`'s so that it changes by at most `most`.
 * @param {ArrayLike<number>} last
 * @param {Float64Array} predicted
 * @param {number} at
 * @param {number} most
 */
function limitVelocity(last, predicted, at, most) {
  const cx = predicted[at] - last[at];
  const cz = predicted[at + 1] - last[at + 1];
  const size = Math.sqrt(cx * cx + cz * cz);
  if (size <= most) return;
  predicted[at] = last[at] + cx * (most / size);
  predicted[at + 1] = last[at + 1] + cz * (most / size);
}
