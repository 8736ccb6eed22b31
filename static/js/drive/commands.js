// @ts-check
// Keys and world commands of the Drive page. What the user does becomes a *key*, the
// command of one frame in the form of an intent timeline's key
// (motioncore/motornerve/timeline.py: action, speed_mps, direction_deg, facing_deg,
// strength); a key becomes the world command [12] the controller steps on exactly as
// timeline.command_of and intent.command compute it, so that the server's replay of the
// recorded keys gives its controller the same numbers the page's got.
//
// Pure functions, no DOM: node's tests (tests/js/drive.test.mjs) load them.

/** @typedef {"idle" | "walk" | "run" | "interact"} Action */
/**
 * One frame's command as a timeline key (without its time): angles in degrees, world
 * frame (0 along +Z, positive turns left, towards +X).
 * @typedef {object} Key
 * @property {Action} action
 * @property {number} speed_mps the wanted speed, m/s (0 unless walking or running)
 * @property {number} direction_deg the world direction of movement
 * @property {number | null} facing_deg the wanted world facing; null: face where it moves
 * @property {number} strength an interaction's, 0-1 (0 otherwise)
 */

/** math.radians multiplies by this (CPython's degToRad, pi / 180). */
const DEG_TO_RAD = Math.PI / 180.0;
/** Vectors shorter than this count as zero (intent.make's 1e-9). */
const TINY = 1e-9;

/** @type {Readonly<Key>} standing still */
export const IDLE = Object.freeze({ action: "idle", speed_mps: 0, direction_deg: 0, facing_deg: null, strength: 0 });

/**
 * Whether two keys give the same command.
 * @param {Key} a
 * @param {Key} b
 */
export function sameKey(a, b) {
  return a.action === b.action && a.speed_mps === b.speed_mps && a.direction_deg === b.direction_deg
    && a.facing_deg === b.facing_deg && a.strength === b.strength;
}

/**
 * timeline.command_of: the world command of `key`, into `out` [12] (the manifest's intent
 * layout: direction a world ground vector, facing the (sin, cos) of the wanted world
 * facing or zeros to face where the character moves).
 * @param {import("../motornerve/controller.js").IntentLayout} layout
 * @param {Key} key
 * @param {Float64Array} out
 * @returns {Float64Array} out
 */
export function commandOf(layout, key, out) {
  const a = key.direction_deg * DEG_TO_RAD;
  const moving = (key.action === "walk" || key.action === "run") && key.speed_mps > 0.0;
  const speed = moving ? key.speed_mps : 0.0;
  const x = Math.sin(a), z = Math.cos(a);
  const norm = Math.sqrt(x * x + z * z);
  const go = speed > 0.0 && norm > TINY; // intent.make: a direction only when moving
  out.fill(0.0);
  const d = layout.DIRECTION[0], f = layout.FACING[0];
  out[d] = go ? x / norm : 0.0;
  out[d + 1] = go ? z / norm : 0.0;
  out[layout.SPEED] = go ? speed : 0.0;
  if (key.facing_deg !== null) {
    const facing = key.facing_deg * DEG_TO_RAD;
    out[f] = Math.sin(facing);
    out[f + 1] = Math.cos(facing);
  }
  const action = layout.ACTIONS.indexOf(key.action);
  if (action < 0) throw new Error(`unknown action ${key.action}`);
  out[layout.ACTION[0] + action] = 1.0;
  if (key.action === "interact") out[layout.STRENGTH] = Math.min(Math.max(key.strength, 0.0), 1.0);
  return out;
}

/**
 * The command the canonical character is asked for when the shown one is `scale` times
 * its size (motioncore.motornerve.drive.drive: the speed divided by the rig's leg ratio,
 * so that the character, scaled back up, moves at the speed commanded). In place.
 * @param {import("../motornerve/controller.js").IntentLayout} layout
 * @param {Float64Array} command
 * @param {number} scale
 */
export function scaled(layout, command, scale) {
  command[layout.SPEED] /= scale;
  return command;
}

/**
 * The world velocity (x, z) a key asks for, m/s (zero unless walking or running).
 * @param {Key} key
 * @returns {[number, number]}
 */
export function wantedVelocity(key) {
  const moving = (key.action === "walk" || key.action === "run") && key.speed_mps > 0.0;
  if (!moving) return [0, 0];
  const a = key.direction_deg * DEG_TO_RAD;
  return [Math.sin(a) * key.speed_mps, Math.cos(a) * key.speed_mps];
}
