// @ts-check
// The Drive page's readouts: root speed, action, reaction latency, foot skate, frame and
// step times, and the live 12-D intent as a labelled table (labels from the manifest's
// intent layout). The DOM is written a few times a second, not every frame.

/** @typedef {import("../motornerve/controller.js").IntentLayout} IntentLayout */
/**
 * What the HUD shows (the page's `window.__drive` holds the same numbers).
 * @typedef {object} Readings
 * @property {number} rootSpeed m/s
 * @property {string} action what the network was asked
 * @property {boolean} queued whether the gate holds an interaction
 * @property {number | null} latencyFrames the last reaction (Infinity: not reached)
 * @property {number | null} skateLastCm
 * @property {number | null} skateMedianCm
 * @property {number} frameMs
 * @property {number} fps
 * @property {number} stepMs
 * @property {ArrayLike<number>} intent [12]
 */

const REFRESH_MS = 200;

/**
 * The label of each intent number, from the layout (intent.py's table).
 * @param {IntentLayout} layout
 */
export function intentLabels(layout) {
  const labels = Array.from({ length: layout.SIZE }, (_, i) => `reserved ${i}`);
  const [d] = layout.DIRECTION;
  const [f] = layout.FACING;
  labels[d] = "direction x";
  labels[d + 1] = "direction z";
  labels[layout.SPEED] = "speed (m/s)";
  labels[f] = "facing sin";
  labels[f + 1] = "facing cos";
  layout.ACTIONS.forEach((name, i) => {
    labels[layout.ACTION[0] + i] = name;
  });
  labels[layout.STRENGTH] = "strength";
  return labels;
}

/** @param {number | null} cm */
const centimetres = (cm) => (cm === null ? "—" : `${cm.toFixed(1)} cm`);

export class Hud {
  /**
   * @param {HTMLElement} root the element holding the [data-hud-*] readouts and [data-intent]
   * @param {IntentLayout} layout
   */
  constructor(root, layout) {
    const q = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (root.querySelector(selector));
    this.fields = {
      speed: q("[data-hud-speed]"),
      action: q("[data-hud-action]"),
      latency: q("[data-hud-latency]"),
      skate: q("[data-hud-skate]"),
      frame: q("[data-hud-frame]"),
      step: q("[data-hud-step]"),
    };
    const body = /** @type {HTMLTableSectionElement} */ (q("[data-intent] tbody"));
    body.replaceChildren();
    this.values = intentLabels(layout).map((label) => {
      const row = body.insertRow();
      const name = document.createElement("th");
      name.scope = "row";
      name.textContent = label;
      const value = row.insertCell();
      row.append(name, value);
      value.textContent = "0.000";
      return value;
    });
    this.shownAt = -Infinity;
  }

  /**
   * Show `r` (at most every REFRESH_MS).
   * @param {Readings} r
   * @param {number} now ms
   */
  update(r, now) {
    if (now - this.shownAt < REFRESH_MS) return;
    this.shownAt = now;
    const f = this.fields;
    f.speed.textContent = `${r.rootSpeed.toFixed(2)} m/s`;
    f.action.textContent = r.queued ? `${r.action} (interaction waits)` : r.action;
    f.latency.textContent = r.latencyFrames === null ? "—"
      : Number.isFinite(r.latencyFrames) ? `${r.latencyFrames} frames` : "not within 1 s";
    f.skate.textContent = r.skateLastCm === null ? "no step yet"
      : `${centimetres(r.skateLastCm)} (median ${centimetres(r.skateMedianCm)})`;
    f.frame.textContent = `${r.frameMs.toFixed(1)} ms · ${r.fps.toFixed(0)} fps`;
    f.step.textContent = `${r.stepMs.toFixed(2)} ms`;
    this.values.forEach((cell, i) => {
      cell.textContent = Number(r.intent[i]).toFixed(3);
    });
  }
}
