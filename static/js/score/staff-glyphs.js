// @ts-check
// The staff's symbols as SVG: one <g> per symbol (its shape and a <title>), drawn from
// the shapes of glyphs.js, and the legend's small samples of the signs. staff-view.js
// puts them on the staff.

import {
  directionPoints, dotCentre, holdCircle, levelClass, num, pathBracket, pathLabel, stepSizeBox,
  stepSizeLabel, symbolBox, symbolTitle, turnLabel, turnPoints,
} from "./glyphs.js";
import { beatToY } from "./layout.js";

/** @typedef {import("./glyphs.js").ScoreSymbol} ScoreSymbol */
/** @typedef {import("./layout.js").StaffLayout} StaffLayout */
/** @typedef {import("./layout.js").Column} Column */

/**
 * A sign of the legend: {kind: "direction", direction, level} or {kind: "turn" | "hold" |
 * "path" | "step_size"}.
 * @typedef {{kind: string, direction?: string, level?: string, side?: number, turn?: string}} Sign
 */

/**
 * Draws a symbol of one kind into `g`; false when it cannot be placed.
 * @callback Drawer
 * @param {SVGGElement} g
 * @param {ScoreSymbol} symbol
 * @param {StaffLayout} layout
 * @param {Column} column the symbol's
 * @returns {boolean}
 */

const SVG = "http://www.w3.org/2000/svg";
export const HATCH_ID = "staff-hatch";

/**
 * An SVG element with attributes (null ones left out), appended to `parent` when given.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name
 * @param {Record<string, unknown>} [attributes]
 * @param {Element | null} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
export function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value != null) node.setAttribute(key, String(value));
  }
  parent?.append(node);
  return node;
}

/**
 * "x,y x,y …" of an SVG polygon or polyline.
 * @param {ReadonlyArray<readonly number[]>} list
 */
export const points = (list) => list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");

/** @type {Drawer} */
function drawDirection(g, symbol, layout, column) {
  const box = symbolBox(layout, symbol);
  if (!box) return false;
  const level = symbol.level ?? "middle";
  let shape;
  try {
    shape = directionPoints(symbol.direction, column.side, box);
  } catch {
    return false;
  }
  el("polygon", {
    class: `staff__glyph ${levelClass(level)}`,
    points: points(shape),
    fill: level === "high" ? `url(#${HATCH_ID})` : null,
    "data-direction": symbol.direction,
    "data-level": level,
  }, g);
  if (level === "middle") {
    const [cx, cy] = dotCentre(symbol.direction, box);
    el("circle", { class: "staff__dot", cx, cy, r: Math.max(1.6, Math.min(2.6, (box.x1 - box.x0) * 0.12)) }, g);
  }
  return true;
}

/** @type {Drawer} */
function drawTurn(g, symbol, layout) {
  const box = symbolBox(layout, symbol);
  if (!box) return false;
  el("polygon", { class: "staff__glyph staff__turn", points: points(turnPoints(symbol.turn, box)) }, g);
  const label = turnLabel(symbol.amount);
  if (label && box.y1 - box.y0 >= 14) {
    el("text", {
      class: "staff__glyph-label", x: (box.x0 + box.x1) / 2, y: (box.y0 + box.y1) / 2 + 3.5, "text-anchor": "middle",
    }, g).textContent = label;
  }
  return true;
}

/** @type {Drawer} */
function drawHold(g, symbol, layout) {
  const circle = holdCircle(layout, symbol);
  if (!circle) return false;
  const end = beatToY(layout, Number(symbol.beat) + (Number(symbol.duration) || 0));
  if (circle.cy - circle.r - end > 2) {
    el("line", { class: "staff__hold-span", x1: circle.cx, x2: circle.cx, y1: circle.cy - circle.r, y2: end + 1 }, g);
  }
  el("circle", { class: "staff__hold", ...circle }, g);
  return true;
}

/** @type {Drawer} */
function drawPath(g, symbol, layout) {
  const bracket = pathBracket(layout, symbol);
  if (!bracket) return false;
  el("polyline", { class: "staff__path", points: points(bracket.points) }, g);
  if (bracket.bow) el("path", { class: "staff__path", d: bracket.bow }, g);
  const label = pathLabel(symbol);
  if (label) {
    el("text", { class: "staff__glyph-label staff__path-label", x: bracket.labelX, y: bracket.labelY }, g)
      .textContent = label;
  }
  return true;
}

/** @type {Drawer} */
function drawStepSize(g, symbol, layout) {
  const box = stepSizeBox(layout, symbol);
  if (!box) return false;
  el("rect", {
    class: "staff__tag", x: box.x0, y: box.y0, width: box.x1 - box.x0, height: box.y1 - box.y0, rx: 3,
  }, g);
  el("text", {
    class: "staff__tag-label", x: (box.x0 + box.x1) / 2, y: box.y1 - 3, "text-anchor": "middle",
  }, g).textContent = stepSizeLabel(symbol.size);
  return true;
}

/** @type {Record<string, Drawer | undefined>} by symbol kind */
const DRAWERS = {
  direction: drawDirection,
  turn: drawTurn,
  hold: drawHold,
  path: drawPath,
  step_size: drawStepSize,
};

/**
 * One symbol's <g> (its shape and <title>), or null when it cannot be placed (a column
 * the layout lacks, an unknown kind or direction).
 * @param {ScoreSymbol} symbol
 * @param {StaffLayout} layout
 * @returns {SVGGElement | null}
 */
export function drawSymbol(symbol, layout) {
  const column = layout.columns[symbol.column];
  if (!column) return null;
  const g = el("g", {
    class: `staff__symbol staff__symbol--${symbol.kind}`,
    "data-kind": symbol.kind,
    "data-column": symbol.column,
    "data-beat": num(symbol.beat),
    "data-duration": num(Number(symbol.duration) || 0),
  });
  el("title", {}, g).textContent = symbolTitle(symbol);
  const draw = DRAWERS[symbol.kind];
  return draw && draw(g, symbol, layout, column) ? g : null;
}

/**
 * A small SVG sample of a sign for the legend; 22 × 30 px.
 * @param {Sign} sign
 */
export function legendSample(sign) {
  const svg = el("svg", { class: "staff-legend__sample", width: 22, height: 30, viewBox: "0 0 22 30", "aria-hidden": "true" });
  // A high level's hatch is the staff's pattern (one document: url(#staff-hatch) resolves).
  const box = { x0: 4, x1: 18, y0: 3, y1: 27 };
  switch (sign.kind) {
    case "direction": {
      const level = sign.level ?? "middle";
      el("polygon", {
        class: `staff__glyph ${levelClass(level)}`,
        points: points(directionPoints(sign.direction, sign.side ?? 1, box)),
        fill: level === "high" ? `url(#${HATCH_ID})` : null,
      }, svg);
      if (level === "middle") {
        const [cx, cy] = dotCentre(sign.direction, box);
        el("circle", { class: "staff__dot", cx, cy, r: 2 }, svg);
      }
      break;
    }
    case "turn":
      el("polygon", { class: "staff__glyph staff__turn", points: points(turnPoints(sign.turn ?? "right", box)) }, svg);
      break;
    case "hold":
      el("circle", { class: "staff__hold", cx: 11, cy: 20, r: 4 }, svg);
      break;
    case "path":
      el("polyline", { class: "staff__path", points: points([[8, 3], [14, 3], [14, 27], [8, 27]]) }, svg);
      break;
    case "step_size":
      el("rect", { class: "staff__tag", x: 2, y: 9, width: 18, height: 12, rx: 3 }, svg);
      el("text", { class: "staff__tag-label", x: 11, y: 18, "text-anchor": "middle" }, svg).textContent = "+1";
      break;
    default:
      break;
  }
  return svg;
}
