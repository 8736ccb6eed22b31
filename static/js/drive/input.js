// @ts-check
// The Drive page's input: the keyboard (held keys, read by `code` so that Shift does not
// change the letters) and the Gamepad API (the first pad with the standard mapping),
// read once per 60 Hz frame into a timeline key (commands.js). Directions are relative to
// the camera: "forward" is where it looks, on the ground.
//
// Keyboard: W A S D or the arrows move, Shift runs, E interacts, Space stops.
// Gamepad: the left stick steers (its deflection sets the speed, up to the run speed),
// A (button 0) interacts, B (button 1) stops. Stopping wins over interacting, which
// wins over moving; a held key wins over the pad.

import { IDLE } from "./commands.js";

/** @typedef {import("./commands.js").Key} Key */
/**
 * The page's speeds (webapp.motornerve.presenters.drive_controls).
 * @typedef {object} Speeds
 * @property {number} walk_mps a timeline's default walking speed
 * @property {number} run_mps its default running speed
 * @property {number} run_from_mps from this speed a stick's command is a run
 */
/** @typedef {{x: number, y: number, interact: boolean, stop: boolean}} PadState */

const KEYS = {
  forward: ["KeyW", "ArrowUp"],
  back: ["KeyS", "ArrowDown"],
  left: ["KeyA", "ArrowLeft"],
  right: ["KeyD", "ArrowRight"],
  run: ["ShiftLeft", "ShiftRight"],
  interact: ["KeyE"],
  stop: ["Space"],
};
const HANDLED = new Set(Object.values(KEYS).flat());
/** The stick's dead zone (of its full deflection). */
const DEAD_ZONE = 0.2;
/** A stick's speed is rounded to this (m/s): fewer keys in a recording. */
const SPEED_STEP_MPS = 0.05;
const RAD_TO_DEG = 180.0 / Math.PI;

/**
 * Whether a key pressed in `target` is the user typing (a text field or a select).
 * @param {EventTarget | null} target
 */
function typing(target) {
  const text = target instanceof HTMLInputElement && !["checkbox", "radio", "range"].includes(target.type);
  return text || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
}

/** The keys held down (construct / dispose); forgets them all when the window loses focus. */
export class Keyboard {
  /** @param {Window} target */
  constructor(target) {
    /** @type {Set<string>} */
    this.held = new Set();
    this.listening = new AbortController();
    const { signal } = this.listening;
    target.addEventListener("keydown", (event) => this.key(event, true), { signal });
    target.addEventListener("keyup", (event) => this.key(event, false), { signal });
    target.addEventListener("blur", () => this.held.clear(), { signal });
  }

  /**
   * @param {KeyboardEvent} event
   * @param {boolean} down
   */
  key(event, down) {
    if (!HANDLED.has(event.code) || typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault(); // no scrolling, and Space does not press a focused button
    if (down) this.held.add(event.code);
    else this.held.delete(event.code);
  }

  /** @param {keyof KEYS} name */
  has(name) {
    return KEYS[name].some((code) => this.held.has(code));
  }

  dispose() {
    this.listening.abort();
    this.held.clear();
  }
}

/**
 * The first connected gamepad with the standard mapping, read now; null without one.
 * @param {Navigator} nav
 * @returns {PadState | null}
 */
export function readPad(nav) {
  const pads = typeof nav.getGamepads === "function" ? nav.getGamepads() : [];
  const pad = [...pads].find((p) => p && p.connected && p.mapping === "standard");
  if (!pad) return null;
  return {
    x: pad.axes[0] ?? 0,
    y: pad.axes[1] ?? 0,
    interact: Boolean(pad.buttons[0]?.pressed),
    stop: Boolean(pad.buttons[1]?.pressed),
  };
}

/**
 * The key of a movement `side` × camera-right + `ahead` × camera-forward at `speed`.
 * @param {number} side
 * @param {number} ahead
 * @param {[number, number]} forward the camera's forward on the ground (x, z), unit
 * @param {number} speed m/s
 * @param {"walk" | "run"} action
 * @returns {Key}
 */
function moving(side, ahead, forward, speed, action) {
  const [fx, fz] = forward;
  const x = ahead * fx - side * fz; // camera-right is (-fz, fx)
  const z = ahead * fz + side * fx;
  const degrees = Math.round(Math.atan2(x, z) * RAD_TO_DEG) + 0; // whole degrees, no -0
  const direction = degrees === -180 ? 180 : degrees; // in (-180, 180]
  return { action, speed_mps: speed, direction_deg: direction, facing_deg: null, strength: 0 };
}

/**
 * The key of this frame's input.
 * @param {Keyboard} keys
 * @param {PadState | null} pad
 * @param {[number, number]} forward the camera's forward on the ground (x, z), unit
 * @param {Speeds} speeds
 * @returns {Key}
 */
export function keyOf(keys, pad, forward, speeds) {
  if (keys.has("stop") || pad?.stop) return IDLE;
  if (keys.has("interact") || pad?.interact) {
    return { action: "interact", speed_mps: 0, direction_deg: 0, facing_deg: null, strength: 1 };
  }
  const ahead = Number(keys.has("forward")) - Number(keys.has("back"));
  const side = Number(keys.has("right")) - Number(keys.has("left"));
  if (ahead || side) {
    const run = keys.has("run");
    return moving(side, ahead, forward, run ? speeds.run_mps : speeds.walk_mps, run ? "run" : "walk");
  }
  if (!pad) return IDLE;
  const deflection = Math.min(1, Math.hypot(pad.x, pad.y));
  if (deflection <= DEAD_ZONE) return IDLE;
  const share = (deflection - DEAD_ZONE) / (1 - DEAD_ZONE);
  const speed = Math.max(1, Math.round((share * speeds.run_mps) / SPEED_STEP_MPS)) * SPEED_STEP_MPS;
  const action = speed >= speeds.run_from_mps ? "run" : "walk";
  return moving(pad.x / deflection, -pad.y / deflection, forward, Number(speed.toFixed(2)), action);
}
