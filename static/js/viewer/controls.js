// @ts-check
// The playback widgets of a player (play/pause, frame step, scrubber, readout, speed,
// loop) and its keyboard shortcuts, bound to one Playback clock. The markup is the
// same on the clip page and the transition page: [data-play], [data-step], [data-scrub],
// [data-readout], [data-speed], [data-loop] inside `root`.

import { all } from "../dom.js";
import { SPEEDS } from "./playback.js";

/** @typedef {import("./playback.js").Playback} Playback */

/**
 * The action of a key: space play/pause, ←/→ one frame (Shift: ten), J slower, K pause,
 * L faster, Home/End; `extra` maps more (lower-case) keys to actions.
 * @param {KeyboardEvent} event
 * @param {Playback} playback
 * @param {Record<string, () => void>} [extra]
 * @returns {(() => void) | undefined}
 */
export function keyAction(event, playback, extra = {}) {
  /** @type {Record<string, () => void>} */
  const actions = {
    " ": () => playback.toggle(),
    ArrowLeft: () => playback.step(event.shiftKey ? -10 : -1),
    ArrowRight: () => playback.step(event.shiftKey ? 10 : 1),
    j: () => playback.shiftSpeed(-1),
    k: () => playback.pause(),
    l: () => playback.shiftSpeed(1),
    Home: () => playback.seek(0),
    End: () => playback.seek(playback.frames - 1),
    ...extra,
  };
  return actions[event.key.length === 1 ? event.key.toLowerCase() : event.key];
}

/**
 * Whether a key pressed in `target` is the user typing (a text field or a select)
 * rather than a shortcut.
 * @param {EventTarget | null} target
 */
function typing(target) {
  const text = target instanceof HTMLInputElement && target.type !== "range";
  return text || target instanceof HTMLSelectElement;
}

export class PlaybackControls {
  /**
   * @param {HTMLElement} root the player (focusable; keys are read while it has focus)
   * @param {Playback} playback
   * @param {{extraKeys?: Record<string, () => void>}} [options]
   */
  constructor(root, playback, { extraKeys = {} } = {}) {
    this.root = root;
    this.playback = playback;
    this.listening = new AbortController();
    const { signal } = this.listening;
    const q = (/** @type {string} */ selector) => root.querySelector(selector);
    this.play = /** @type {HTMLButtonElement} */ (q("[data-play]"));
    this.scrub = /** @type {HTMLInputElement} */ (q("[data-scrub]"));
    this.readout = /** @type {HTMLElement} */ (q("[data-readout]"));
    this.speed = /** @type {HTMLSelectElement} */ (q("[data-speed]"));
    this.loop = /** @type {HTMLInputElement} */ (q("[data-loop]"));
    this.play.addEventListener("click", () => playback.toggle(), { signal });
    this.scrub.addEventListener("input", () => playback.seek(Number(this.scrub.value)), { signal });
    for (const speed of SPEEDS) {
      this.speed.append(new Option(`${speed}×`, String(speed), speed === 1, speed === 1));
    }
    this.speed.addEventListener("change", () => playback.setSpeed(Number(this.speed.value)), { signal });
    this.loop.addEventListener("change", () => { playback.loop = this.loop.checked; }, { signal });
    for (const button of all(root, "[data-step]")) {
      button.addEventListener("click", () => playback.step(Number(button.dataset.step)), { signal });
    }
    root.addEventListener("keydown", (event) => {
      const action = keyAction(event, playback, extraKeys);
      if (!action || typing(event.target)) return;
      event.preventDefault();
      action();
    }, { signal });
  }

  /** Bring the widgets up to the clock; `detail` is appended to the frame readout. */
  show(detail = "") {
    const p = this.playback;
    this.scrub.max = String(p.frames - 1);
    this.scrub.value = String(p.frame);
    this.readout.textContent = `frame ${p.frame} / ${p.frames - 1} · ${p.time.toFixed(3)} s${detail}`;
    this.play.textContent = p.playing ? "Pause" : "Play";
    this.play.setAttribute("aria-pressed", String(p.playing));
    this.speed.value = String(p.speed);
    this.root.dataset.frame = String(p.frame);
  }

  /** Stop listening to the widgets and keys (the speed options stay). */
  dispose() {
    this.listening.abort();
  }
}
