// The playback widgets of a player (play/pause, frame step, scrubber, readout, speed,
// loop) and its keyboard shortcuts, bound to one Playback clock. The markup is the
// same on the clip page and the transition page: [data-play], [data-step], [data-scrub],
// [data-readout], [data-speed], [data-loop] inside `root`.

import { SPEEDS } from "./playback.js";

/**
 * The action of a key: space play/pause, ←/→ one frame (Shift: ten), J slower, K pause,
 * L faster, Home/End; `extra` maps more (lower-case) keys to actions.
 * @returns {(() => void) | undefined}
 */
export function keyAction(event, playback, extra = {}) {
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

export class PlaybackControls {
  /**
   * @param {HTMLElement} root the player (focusable; keys are read while it has focus)
   * @param {import("./playback.js").Playback} playback
   * @param {{extraKeys?: Record<string, () => void>}} [options]
   */
  constructor(root, playback, { extraKeys = {} } = {}) {
    this.root = root;
    this.playback = playback;
    const q = (selector) => root.querySelector(selector);
    this.play = q("[data-play]");
    this.scrub = q("[data-scrub]");
    this.readout = q("[data-readout]");
    this.speed = q("[data-speed]");
    this.loop = q("[data-loop]");
    this.play.addEventListener("click", () => playback.toggle());
    this.scrub.addEventListener("input", () => playback.seek(Number(this.scrub.value)));
    for (const speed of SPEEDS) {
      this.speed.append(new Option(`${speed}×`, String(speed), speed === 1, speed === 1));
    }
    this.speed.addEventListener("change", () => playback.setSpeed(Number(this.speed.value)));
    this.loop.addEventListener("change", () => { playback.loop = this.loop.checked; });
    for (const button of root.querySelectorAll("[data-step]")) {
      button.addEventListener("click", () => playback.step(Number(button.dataset.step)));
    }
    root.addEventListener("keydown", (event) => {
      const action = keyAction(event, playback, extraKeys);
      const typing = event.target instanceof HTMLInputElement && event.target.type !== "range";
      if (!action || typing || event.target instanceof HTMLSelectElement) return;
      event.preventDefault();
      action();
    });
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
}
