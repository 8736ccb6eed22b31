// @ts-check
// The score drawn as an SVG staff (read bottom to top) with a cursor at the current
// time: three staff lines, the columns, bar lines with numbers, beat ticks, the
// symbols (glyphs.js) each with a <title>, and a cursor that follows the player and,
// when the page allows it (paused), is dragged, or the staff clicked, to seek.
//
// The container (#staff) is the scrolling box; it carries data-symbols (the symbols
// drawn) and data-beat (the cursor's beat), and is a vertical slider for assistive
// technology (the player's keys move it: ↑/↓ a beat, PageUp/PageDown a bar).
//
// For the editor (staff-editor.js): each symbol's <g> carries data-index (its index in
// the score's list), `setScore` redraws another score, `mark` shows the selected symbol
// and the problems named on symbols, and `onSymbolDown` takes a pointer pressed on a
// symbol (instead of a seek).

import {
  COLUMN_LABELS, barLines, beatPosition, beatTicks, beatToY, columnAt, followScroll, staffLayout,
  yToBeat,
} from "./layout.js";
import { num } from "./glyphs.js";
import { HATCH_ID, drawSymbol, el, points } from "./staff-glyphs.js";

/** @typedef {import("./format.js").Score} Score */
/** @typedef {import("./glyphs.js").ScoreSymbol} ScoreSymbol */
/** @typedef {import("./layout.js").StaffLayout} StaffLayout */

/**
 * Symbols in reading order: by beat, then column (the server's order, kept stable), each
 * with its index in the list.
 * @param {ScoreSymbol[]} symbols
 */
function ordered(symbols) {
  return [...symbols].map((s, index) => ({ ...s, index }))
    .sort((a, b) => (Number(a.beat) - Number(b.beat)) || (a.index - b.index));
}

export class StaffView {
  /**
   * @param {HTMLElement} container the scrolling box (#staff)
   * @param {Score} score
   * @param {{onSeek?: (beat: number) => void, canDrag?: () => boolean,
   *   onSymbolDown?: (event: PointerEvent, index: number) => boolean}} [options]
   *   onSymbolDown: a pointer pressed on symbol `index`; true when it took the press
   */
  constructor(container, score, { onSeek = () => {}, canDrag = () => true, onSymbolDown } = {}) {
    this.container = container;
    this.score = score;
    this.meter = 1;
    this.beats = 1;
    /** @type {(ScoreSymbol & {index: number})[]} */
    this.symbols = [];
    this.take(score);
    this.onSeek = onSeek;
    this.onSymbolDown = onSymbolDown ?? (() => false);
    this.canDrag = canDrag;
    this.beat = 0;
    this.dragging = false;
    // What render draws (the first render always does).
    /** @type {SVGSVGElement | null} */
    this.svg = null;
    /** @type {StaffLayout | null} */
    this.layout = null;
    /** @type {SVGGElement | null} */
    this.cursor = null;
    /** @type {{g: SVGGElement, symbol: ScoreSymbol & {index: number}, current: boolean}[]} the symbols drawn */
    this.elements = [];
    this.width = 0;
    /** @type {number | null} the selected symbol's index */
    this.selected = null;
    /** @type {Map<number, string[]>} problems by symbol index */
    this.problems = new Map();
    container.setAttribute("role", "slider");
    container.setAttribute("aria-orientation", "vertical");
    container.setAttribute("aria-valuemin", "0");
    this.render();
  }

  /** @param {Score} score */
  take(score) {
    this.score = score;
    this.meter = Math.max(1, Number(score.meter) || 1);
    this.beats = this.meter * Math.max(1, Number(score.measures) || 1);
    this.symbols = ordered(score.symbols ?? []);
    this.container.setAttribute("aria-valuemax", num(this.beats));
  }

  /**
   * Draw `score` instead (an edit).
   * @param {Score} score
   */
  setScore(score) {
    this.take(score);
    this.render(true);
  }

  /**
   * Show symbol `selected` (an index, or null) as selected and the problems named on
   * symbols (index → sentences) on theirs.
   * @param {number | null} selected
   * @param {Map<number, string[]>} problems
   */
  mark(selected, problems) {
    this.selected = selected;
    this.problems = problems;
    for (const { g, symbol: { index } } of this.elements) {
      g.classList.toggle("is-selected", index === selected);
      const found = problems.get(index);
      g.classList.toggle("is-invalid", Boolean(found));
      if (found) g.dataset.problem = found.join(" · ");
      else delete g.dataset.problem;
      const title = g.querySelector("title");
      if (!title) continue;
      title.dataset.meaning ??= title.textContent ?? "";
      title.textContent = [title.dataset.meaning, ...(found ?? []).map((p) => `⚠ ${p}`)].join("\n");
    }
  }

  /**
   * The column under a pointer event, or null.
   * @param {PointerEvent} event
   */
  columnAt(event) {
    const { svg, layout } = this;
    if (!svg || !layout) return null;
    const rect = svg.getBoundingClientRect();
    const scale = rect.width > 0 ? layout.width / rect.width : 1;
    return columnAt(layout, (event.clientX - rect.left) * scale);
  }

  /**
   * (Re)draw the staff at the container's width (a no-op when the width is the same).
   * @param {boolean} [force] draw even at the same width
   */
  render(force = false) {
    const width = Math.max(240, Math.floor(this.container.clientWidth || 340));
    if (!force && this.svg && width === this.width) return;
    this.width = width;
    const layout = staffLayout({ width, beats: this.beats });
    this.layout = layout;
    const svg = el("svg", {
      class: "staff__svg",
      width: layout.width,
      height: layout.height,
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      focusable: "false",
    });
    this.drawDefs(svg);
    el("rect", { class: "staff__paper", x: 0, y: 0, width: layout.width, height: layout.height }, svg);
    this.drawStaff(svg, layout);
    const symbols = el("g", { class: "staff__symbols" }, svg);
    this.elements = [];
    for (const symbol of this.symbols) {
      const g = drawSymbol(symbol, layout);
      if (!g) continue;
      g.dataset.index = String(symbol.index);
      symbols.append(g);
      this.elements.push({ g, symbol, current: false });
    }
    this.cursor = this.drawCursor(svg, layout);
    this.svg?.remove();
    this.svg = svg;
    this.container.append(svg);
    this.container.dataset.symbols = String(this.elements.length);
    this.bindPointer(svg);
    this.mark(this.selected, this.problems);
    this.setBeat(this.beat, { follow: true });
  }

  /** @param {SVGSVGElement} svg */
  drawDefs(svg) {
    const defs = el("defs", {}, svg);
    const hatch = el("pattern", {
      id: HATCH_ID, width: 4, height: 4, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)",
    }, defs);
    el("rect", { width: 4, height: 4, fill: "#fff" }, hatch);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 4, stroke: "#1c2330", "stroke-width": 1.6 }, hatch);
  }

  /**
   * The staff lines, column guides and labels, bar lines with numbers, beat ticks.
   * @param {SVGSVGElement} svg
   * @param {StaffLayout} layout
   */
  drawStaff(svg, layout) {
    const top = layout.top;
    const bottom = layout.bottom;
    const [outerLeft, centre, outerRight] = layout.lines;
    const g = el("g", { class: "staff__grid" }, svg);
    el("rect", {
      class: "staff__inside", x: outerLeft, y: top, width: outerRight - outerLeft, height: bottom - top,
    }, g);
    // Guides at the edges of the columns outside the staff lines.
    const edges = new Set();
    for (const c of Object.values(layout.columns)) {
      for (const x of [c.x0, c.x1]) if (x < outerLeft - 0.5 || x > outerRight + 0.5) edges.add(x.toFixed(1));
    }
    for (const x of edges) el("line", { class: "staff__guide", x1: x, x2: x, y1: top, y2: bottom }, g);
    // Bars: a line across the staff, dotted across the outer columns; numbers on the left.
    for (const { beat, bar } of barLines(this.beats, this.meter)) {
      const y = beatToY(layout, beat);
      const line = el("g", { class: "staff__bar", "data-beat": num(beat), "data-bar": bar ?? "end" }, g);
      el("line", { class: "staff__bar-out", x1: layout.left, x2: layout.right, y1: y, y2: y }, line);
      el("line", { class: "staff__bar-in", x1: outerLeft, x2: outerRight, y1: y, y2: y }, line);
      if (beat === 0 || bar == null) { // the double bar lines that open and close the score
        const y2 = beat === 0 ? y + 3 : y - 3;
        el("line", { class: "staff__bar-in", x1: outerLeft, x2: outerRight, y1: y2, y2 }, line);
      }
      if (bar != null) {
        el("text", { class: "staff__bar-number", x: layout.left - 5, y: y - 4, "text-anchor": "end" }, line)
          .textContent = String(bar);
      }
    }
    for (const beat of beatTicks(this.beats, this.meter)) {
      const y = beatToY(layout, beat);
      el("line", { class: "staff__tick", "data-beat": num(beat), x1: centre - 4, x2: centre + 4, y1: y, y2: y }, g);
    }
    for (const x of layout.lines) {
      el("line", { class: "staff__line", x1: x, x2: x, y1: top, y2: bottom + 3 }, g);
    }
    for (const [name, c] of Object.entries(layout.columns)) {
      const [short, long] = COLUMN_LABELS[name] ?? [name, name];
      const text = el("text", {
        class: "staff__column-label", x: c.cx, y: bottom + 16, "text-anchor": "middle", "data-column": name,
      }, g);
      text.textContent = short;
      el("title", {}, text).textContent = long;
    }
    el("text", { class: "staff__side-label", x: outerLeft, y: bottom + 28, "text-anchor": "middle" }, g).textContent = "L";
    el("text", { class: "staff__side-label", x: outerRight, y: bottom + 28, "text-anchor": "middle" }, g).textContent = "R";
  }

  /**
   * @param {SVGSVGElement} svg
   * @param {StaffLayout} layout
   */
  drawCursor(svg, layout) {
    const g = el("g", { class: "staff__cursor", "data-cursor": "" }, svg);
    el("rect", { class: "staff__cursor-hit", x: 0, y: -7, width: layout.width, height: 14 }, g);
    el("line", { class: "staff__cursor-line", x1: layout.left - 4, x2: layout.right + 2, y1: 0, y2: 0 }, g);
    el("polygon", {
      class: "staff__cursor-handle",
      points: points([[layout.left - 16, -6], [layout.left - 5, 0], [layout.left - 16, 6]]),
    }, g);
    return g;
  }

  /**
   * The beat under a pointer event (clamped to the score).
   * @param {PointerEvent} event
   */
  beatAt(event) {
    const { svg, layout } = this;
    if (!svg || !layout) return this.beat; // nothing drawn yet
    const rect = svg.getBoundingClientRect();
    const scale = rect.height > 0 ? layout.height / rect.height : 1;
    return yToBeat(layout, (event.clientY - rect.top) * scale);
  }

  /** @param {SVGSVGElement} svg */
  bindPointer(svg) {
    svg.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      const hit = event.target instanceof Element ? event.target.closest("[data-index]") : null;
      if (hit instanceof SVGGElement && this.onSymbolDown(event, Number(hit.dataset.index))) return;
      if (!this.canDrag()) return;
      event.preventDefault();
      this.dragging = true;
      this.container.dataset.dragging = "true";
      svg.setPointerCapture?.(event.pointerId);
      this.onSeek(this.beatAt(event));
    });
    svg.addEventListener("pointermove", (event) => {
      if (this.dragging) this.onSeek(this.beatAt(event));
    });
    const end = (/** @type {PointerEvent} */ event) => {
      if (!this.dragging) return;
      this.dragging = false;
      delete this.container.dataset.dragging;
      if (svg.hasPointerCapture?.(event.pointerId)) svg.releasePointerCapture(event.pointerId);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }

  /**
   * Put the cursor on `beat`; the symbols being performed light up. `follow` scrolls
   * the staff to keep the cursor in view (not while it is dragged).
   * @param {number} beat
   * @param {{follow?: boolean}} [options]
   */
  setBeat(beat, { follow = false } = {}) {
    const b = Math.min(this.beats, Math.max(0, Number(beat) || 0));
    this.beat = b;
    const { layout, cursor } = this;
    if (!layout || !cursor) return; // nothing drawn yet
    const y = beatToY(layout, b);
    cursor.setAttribute("transform", `translate(0 ${y.toFixed(2)})`);
    this.container.dataset.beat = b.toFixed(3);
    const { bar, beatInBar } = beatPosition(b, this.meter, this.beats);
    this.container.setAttribute("aria-valuenow", b.toFixed(2));
    this.container.setAttribute("aria-valuetext", `beat ${b.toFixed(2)}: bar ${bar}, beat ${beatInBar}`);
    for (const item of this.elements) {
      const start = Number(item.symbol.beat);
      const end = start + (Number(item.symbol.duration) || 0);
      const current = b >= start - 1e-6 && b <= end + 1e-6 && (end > start || Math.abs(b - start) < 0.25);
      if (current !== item.current) {
        item.current = current;
        item.g.classList.toggle("is-current", current);
      }
    }
    if (follow && !this.dragging) {
      const box = this.container;
      const top = followScroll(y, box.scrollTop, box.clientHeight, box.scrollHeight);
      if (top !== box.scrollTop) box.scrollTop = top;
    }
  }

  /**
   * Whether the cursor may be dragged now (a class for the pointer's look).
   * @param {boolean} draggable
   */
  setDraggable(draggable) {
    this.container.classList.toggle("staff--draggable", draggable);
  }
}
