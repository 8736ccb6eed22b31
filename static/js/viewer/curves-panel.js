// @ts-check
// The curves under the player: the momentum curve coloured by the four phases, the gait
// phase φ, left/right foot contacts, MTP candidates (click to jump, hover for the
// condition breakdown) and a cursor at the current frame. Canvas 2-D, drawn in one pass;
// the cursor redraws only an overlay.

import { context2d } from "../dom.js";

export const PHASE_COLOURS = Object.freeze({
  start: "#8a94a6",
  steady: "#2f6fde",
  transition: "#e0861a",
  ending: "#b8403a",
});
/** @type {ReadonlyArray<keyof typeof PHASE_COLOURS>} the phase of each code */
const PHASES = ["start", "steady", "transition", "ending"];
const MARGIN = { left: 64, right: 16, top: 14, bottom: 34 };
const TRACK_GAP = 10;
const CONTACT_HEIGHT = 12;
const PHASE_HEIGHT = 46;
const HIT_RADIUS_PX = 7;

/**
 * @typedef {object} CurvesData
 * @property {number} fps frames per second
 * @property {ArrayLike<number> & Iterable<number>} curve the momentum measure per frame
 * @property {string} unit its unit ("m/s", "J/kg")
 * @property {string} label its name ("speed", "energy", "pca")
 * @property {Uint8Array | number[]} codes phase code per frame (0 start … 3 ending)
 * @property {(number | null)[]} gaitPhase φ per frame, radians, null where undefined
 * @property {{left?: number[][], right?: number[][]}} contacts [start, stop) frame runs
 * @property {import("../analysis/mtp.js").Candidate[]} candidates
 * @property {number} best the chosen cut, -1 for none
 */

/**
 * The unit of a rate of change: "m/s" → "m/s²", "J/kg" → "J/kg/s".
 * @param {string} unit
 */
function perSecond(unit) {
  return unit.endsWith("/s") ? `${unit}²` : `${unit}/s`;
}

export class CurvesPanel {
  /**
   * @param {HTMLElement} container
   * @param {{onSeek?: (frame: number) => void}} [options]
   */
  constructor(container, options = {}) {
    this.container = container;
    this.onSeek = options.onSeek ?? (() => {});
    this.canvas = document.createElement("canvas");
    this.overlay = document.createElement("canvas");
    this.tooltip = document.createElement("div");
    this.tooltip.className = "curves__tooltip";
    this.tooltip.hidden = true;
    container.append(this.canvas, this.overlay, this.tooltip);
    this.context = context2d(this.canvas);
    this.overlayContext = context2d(this.overlay);
    /** @type {CurvesData | null} */
    this.data = null;
    this.frame = 0;
    this.width = 0;
    this.height = 0;
    this.areas = this.measureAreas();
    this.onPointer = (/** @type {PointerEvent} */ event) => this.hover(event);
    this.onClick = (/** @type {MouseEvent} */ event) => this.click(event);
    this.overlay.addEventListener("pointermove", this.onPointer);
    this.overlay.addEventListener("pointerleave", () => { this.tooltip.hidden = true; });
    this.overlay.addEventListener("click", this.onClick);
    this.resize();
  }

  /** @param {CurvesData} data */
  setData(data) {
    this.data = data;
    this.draw();
  }

  /** The data drawn (the methods below run only once there is some). */
  get drawn() {
    if (!this.data) throw new Error("the curves panel has no data yet");
    return this.data;
  }

  /**
   * Move the cursor to `frame`.
   * @param {number} frame
   */
  update(frame) {
    this.frame = frame;
    this.drawCursor();
  }

  resize() {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    this.width = this.container.clientWidth || 640;
    this.height = 260;
    this.areas = this.measureAreas();
    for (const context of [this.context, this.overlayContext]) {
      const { canvas } = context;
      canvas.width = Math.round(this.width * ratio);
      canvas.height = Math.round(this.height * ratio);
      canvas.style.width = `${this.width}px`;
      canvas.style.height = `${this.height}px`;
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
    }
    this.draw();
  }

  /** Plot areas (CSS pixels): the curve, the gait phase, the two contact bars (per resize). */
  layout() {
    return this.areas;
  }

  /** The plot areas at the panel's size. */
  measureAreas() {
    const x0 = MARGIN.left;
    const x1 = this.width - MARGIN.right;
    const bottom = this.height - MARGIN.bottom;
    const contactsTop = bottom - 2 * CONTACT_HEIGHT - 4;
    const phaseTop = contactsTop - TRACK_GAP - PHASE_HEIGHT;
    return {
      x0, x1,
      curve: { top: MARGIN.top, bottom: phaseTop - TRACK_GAP },
      phase: { top: phaseTop, bottom: phaseTop + PHASE_HEIGHT },
      contacts: { top: contactsTop, bottom },
    };
  }

  /** @param {number} frame */
  xOf(frame) {
    const { x0, x1 } = this.layout();
    const n = Math.max(1, this.drawn.curve.length - 1);
    return x0 + ((x1 - x0) * frame) / n;
  }

  /** @param {number} x */
  frameAt(x) {
    const { x0, x1 } = this.layout();
    const n = this.drawn.curve.length - 1;
    return Math.min(n, Math.max(0, Math.round(((x - x0) / (x1 - x0)) * n)));
  }

  yScale() {
    const { curve } = this.layout();
    let max = 0;
    for (const v of this.drawn.curve) if (v > max) max = v;
    max = max > 0 ? max * 1.08 : 1;
    return { max, y: (/** @type {number} */ v) => curve.bottom - ((curve.bottom - curve.top) * v) / max };
  }

  draw() {
    const context = this.context;
    context.clearRect(0, 0, this.width, this.height);
    if (!this.data) return;
    this.drawAxes(context);
    this.drawCurve(context);
    this.drawGaitPhase(context);
    this.drawContacts(context);
    this.drawCandidates(context);
    this.drawCursor();
  }

  /** @param {CanvasRenderingContext2D} context */
  drawAxes(context) {
    const { x0, x1, curve, phase, contacts } = this.layout();
    const { max, y } = this.yScale();
    context.font = "11px system-ui, sans-serif";
    context.fillStyle = "#5b6472";
    context.strokeStyle = "#e3e7ee";
    context.lineWidth = 1;
    context.textAlign = "right";
    context.textBaseline = "middle";
    for (let i = 0; i <= 4; i += 1) {
      const v = (max * i) / 4;
      context.beginPath();
      context.moveTo(x0, y(v));
      context.lineTo(x1, y(v));
      context.stroke();
      context.fillText(v.toFixed(v < 10 ? 2 : 1), x0 - 6, y(v));
    }
    context.save();
    context.translate(14, (curve.top + curve.bottom) / 2);
    context.rotate(-Math.PI / 2);
    context.textAlign = "center";
    context.fillText(`${this.drawn.label} (${this.drawn.unit})`, 0, 0);
    context.restore();
    context.fillText("φ (rad)", x0 - 6, (phase.top + phase.bottom) / 2);
    context.fillText("L", x0 - 6, contacts.top + CONTACT_HEIGHT / 2);
    context.fillText("R", x0 - 6, contacts.top + CONTACT_HEIGHT * 1.5 + 4);
    this.drawTimeAxis(context, contacts.bottom);
  }

  /**
   * @param {CanvasRenderingContext2D} context
   * @param {number} top
   */
  drawTimeAxis(context, top) {
    const seconds = (this.drawn.curve.length - 1) / this.drawn.fps;
    const step = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60].find((s) => seconds / s <= 10) ?? 120;
    context.textAlign = "center";
    context.textBaseline = "top";
    for (let t = 0; t <= seconds + 1e-9; t += step) {
      const x = this.xOf(t * this.drawn.fps);
      context.fillRect(x, top, 1, 4);
      context.fillText(`${Number(t.toFixed(2))}`, x, top + 6);
    }
    context.textAlign = "right";
    context.fillText("time (s)", this.width - MARGIN.right, top + 20);
  }

  /** @param {CanvasRenderingContext2D} context */
  drawCurve(context) {
    const { y } = this.yScale();
    const { curve, codes } = this.drawn;
    context.lineWidth = 2;
    let start = 0;
    for (let f = 1; f <= curve.length; f += 1) {
      if (f < curve.length && codes[f] === codes[start]) continue;
      context.strokeStyle = PHASE_COLOURS[PHASES[codes[start]]];
      context.beginPath();
      context.moveTo(this.xOf(start), y(curve[start]));
      for (let g = start + 1; g <= Math.min(f, curve.length - 1); g += 1) {
        context.lineTo(this.xOf(g), y(curve[g]));
      }
      context.stroke();
      start = f;
    }
  }

  /** @param {CanvasRenderingContext2D} context */
  drawGaitPhase(context) {
    const { phase } = this.layout();
    const y = (/** @type {number} */ p) => phase.bottom - ((phase.bottom - phase.top) * p) / (2 * Math.PI);
    context.strokeStyle = "#6b4fd8";
    context.lineWidth = 1.25;
    context.beginPath();
    let drawing = false;
    /** @type {number | null} */
    let previous = null;
    this.drawn.gaitPhase.forEach((p, f) => {
      const wrap = previous !== null && p !== null && p < previous - Math.PI;
      if (p === null || wrap) drawing = false;
      if (p !== null) {
        if (drawing) context.lineTo(this.xOf(f), y(p));
        else context.moveTo(this.xOf(f), y(p));
        drawing = true;
      }
      previous = p;
    });
    context.stroke();
    context.strokeStyle = "#e3e7ee";
    context.strokeRect(this.layout().x0, phase.top, this.layout().x1 - this.layout().x0, PHASE_HEIGHT);
  }

  /** @param {CanvasRenderingContext2D} context */
  drawContacts(context) {
    const { contacts } = this.layout();
    /** @type {Array<["left" | "right", number]>} */
    const rows = [["left", contacts.top], ["right", contacts.top + CONTACT_HEIGHT + 4]];
    for (const [side, top] of rows) {
      context.fillStyle = side === "left" ? "#1f9d74" : "#c0568c";
      for (const [a, b] of this.drawn.contacts[side] ?? []) {
        const x = this.xOf(a);
        context.fillRect(x, top, Math.max(1, this.xOf(b - 1) - x), CONTACT_HEIGHT);
      }
    }
  }

  /** @param {CanvasRenderingContext2D} context */
  drawCandidates(context) {
    const { y } = this.yScale();
    const data = this.drawn;
    context.fillStyle = "rgba(20, 24, 31, 0.55)";
    for (const c of data.candidates) {
      context.fillRect(this.xOf(c.frame) - 0.5, y(c.value) - 3, 1.5, 6);
    }
    if (data.best >= 0) {
      const x = this.xOf(data.best);
      const v = y(data.curve[data.best]);
      context.fillStyle = "#14181f";
      context.beginPath();
      context.moveTo(x, v - 4);
      context.lineTo(x - 6, v - 14);
      context.lineTo(x + 6, v - 14);
      context.closePath();
      context.fill();
    }
  }

  drawCursor() {
    const context = this.overlayContext;
    context.clearRect(0, 0, this.width, this.height);
    if (!this.data) return;
    const x = this.xOf(this.frame);
    context.strokeStyle = "#14181f";
    context.lineWidth = 1;
    context.beginPath();
    context.moveTo(x, MARGIN.top);
    context.lineTo(x, this.height - MARGIN.bottom);
    context.stroke();
  }

  /**
   * The candidate under the pointer (within a few pixels), or null.
   * @param {MouseEvent} event
   */
  candidateAt(event) {
    if (!this.data) return null;
    const box = this.overlay.getBoundingClientRect();
    const px = event.clientX - box.left;
    const py = event.clientY - box.top;
    const { y } = this.yScale();
    /** @type {import("../analysis/mtp.js").Candidate | null} */
    let found = null;
    let nearest = HIT_RADIUS_PX;
    for (const c of this.data.candidates) {
      const d = Math.hypot(this.xOf(c.frame) - px, y(c.value) - py);
      if (d <= nearest) {
        nearest = d;
        found = c;
      }
    }
    return found;
  }

  /** @param {MouseEvent} event */
  hover(event) {
    const c = this.candidateAt(event);
    if (!c) {
      this.tooltip.hidden = true;
      return;
    }
    const b = c.breakdown;
    const data = this.drawn;
    /**
     * @param {string} name
     * @param {string} key
     * @param {string} unit
     */
    const line = (name, key, unit) => {
      const item = b[key];
      // the margin is null exactly when the value is
      if (!item || item.value === null || item.margin === null) return `${name}: ${item?.skipped ? "skipped" : "—"}`;
      return `${name}: ${item.value.toFixed(3)}${unit} (margin ${item.margin.toFixed(3)})`;
    };
    this.tooltip.textContent = [
      `frame ${c.frame} · ${(c.frame / data.fps).toFixed(3)} s · ${c.value.toFixed(3)} ${data.unit}`,
      line("retention", "retention", ""),
      line("direction", "direction", "°"),
      line("deceleration", "deceleration", ` ${perSecond(data.unit)}`),
      line("to extremum", "non_extremum", " s"),
    ].join("\n");
    const box = this.overlay.getBoundingClientRect();
    this.tooltip.style.left = `${event.clientX - box.left + 12}px`;
    this.tooltip.style.top = `${event.clientY - box.top + 12}px`;
    this.tooltip.hidden = false;
  }

  /** @param {MouseEvent} event */
  click(event) {
    if (!this.data) return; // nothing drawn yet, nothing to seek to
    const c = this.candidateAt(event);
    const box = this.overlay.getBoundingClientRect();
    this.onSeek(c ? c.frame : this.frameAt(event.clientX - box.left));
  }

  dispose() {
    this.overlay.removeEventListener("pointermove", this.onPointer);
    this.overlay.removeEventListener("click", this.onClick);
    this.canvas.remove();
    this.overlay.remove();
    this.tooltip.remove();
  }
}
