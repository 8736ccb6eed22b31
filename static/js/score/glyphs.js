// @ts-check
// The symbols of the staff as simple shapes, the Labanotation way as far as practical,
// and their words (tooltips). Pure functions (no DOM), tested with node
// (tests/js/score-glyphs.test.mjs); staff-view.js turns them into SVG.
//
// A box is {x0, x1, y0, y1} in SVG px with y0 < y1: y0 is the top (where a movement
// arrives, the later beat) and y1 the bottom (where it starts). Direction shapes
// (seed 003 §2): place a rectangle; forward and backward a rectangle with a notch, the
// tab standing up (forward) or down (backward) on the limb's side; the sides a wedge
// pointing left or right; the diagonals a rectangle with the corner opposite the
// direction cut off, its point towards the direction. Levels: low filled dark, middle
// a dot, high hatched. Turns are parallelograms slanting like the turn, holds a small
// circle, paths a long bracket beside the staff, step sizes a small tag.

import { COLUMN_LABELS, beatToY } from "./layout.js";

/** @typedef {import("./layout.js").StaffLayout} StaffLayout */
/** @typedef {{x0: number, x1: number, y0: number, y1: number}} Box SVG px, y0 < y1 */
/** @typedef {[number, number]} XY an SVG point */

/**
 * A symbol of the score (docs/score-format.md); `kind` says which of the rest it has.
 * @typedef {object} ScoreSymbol
 * @property {string} kind "direction", "turn", "hold", "path" or "step_size"
 * @property {string} column
 * @property {number} beat where it starts
 * @property {number} [duration] beats
 * @property {string} [part] the body part a pre-sign names
 * @property {string} [direction]
 * @property {string} [level] "low", "middle" or "high"
 * @property {string} [turn] "left" or "right"
 * @property {number} [amount] a turn's, in full turns
 * @property {string} [path] "straight" or "curved"
 * @property {number} [amount_deg] a curved path's, degrees (negative: to the left)
 * @property {number} [size] a step size, −3 … +3
 */

export const DIRECTIONS = Object.freeze([
  "place", "forward", "backward", "left", "right",
  "left_forward", "right_forward", "left_backward", "right_backward",
]);
export const LEVELS = Object.freeze(["low", "middle", "high"]);

/**
 * "1.5", "2", "0.125": at most three decimals, no trailing zeros.
 * @param {unknown} value a number, or a number's text
 */
export function num(value) {
  return String(Math.round(Number(value) * 1000) / 1000);
}

const plural = (/** @type {number} */ n, /** @type {string} */ word) => `${num(n)} ${word}${Math.abs(n - 1) < 1e-9 ? "" : "s"}`;

/**
 * Where a symbol is drawn: a box in its column from its start (bottom) to its arrival
 * (top), inset from the column's edges; at least `minHeight` px tall (a zero-length
 * symbol grows upwards from its beat). Null for a column the layout lacks.
 * @param {StaffLayout} layout
 * @param {ScoreSymbol} symbol
 * @param {{minHeight?: number}} [options]
 * @returns {Box | null}
 */
export function symbolBox(layout, symbol, { minHeight = Math.max(8, layout.pxPerBeat * 0.3) } = {}) {
  const column = layout.columns[symbol.column];
  if (!column) return null;
  const pad = Math.max(2, layout.unit * 0.12);
  const start = Number(symbol.beat) || 0;
  const duration = Math.max(0, Number(symbol.duration) || 0);
  const y1 = beatToY(layout, start) - 1;
  let y0 = beatToY(layout, start + duration) + 1;
  if (y1 - y0 < minHeight) y0 = y1 - minHeight;
  return { x0: column.x0 + pad, x1: column.x1 - pad, y0, y1 };
}

/**
 * The outline of a direction symbol in `box` as [[x, y], …]: `side` is the column's
 * side (−1 left, +1 right), which puts the forward/backward tab on the limb's side.
 * @param {string | undefined} direction
 * @param {number} side
 * @param {Box} box
 * @returns {XY[]}
 */
export function directionPoints(direction, side, { x0, x1, y0, y1 }) {
  const width = x1 - x0;
  const height = y1 - y0;
  const xm = (x0 + x1) / 2;
  const ym = (y0 + y1) / 2;
  const notch = Math.min(height * 0.35, width * 0.6);
  const cut = Math.min(height * 0.5, width * 0.9);
  switch (direction) {
    case "place":
      return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
    case "forward":
      return side < 0
        ? [[x0, y0], [xm, y0], [xm, y0 + notch], [x1, y0 + notch], [x1, y1], [x0, y1]]
        : [[x0, y0 + notch], [xm, y0 + notch], [xm, y0], [x1, y0], [x1, y1], [x0, y1]];
    case "backward":
      return side < 0
        ? [[x0, y0], [x1, y0], [x1, y1 - notch], [xm, y1 - notch], [xm, y1], [x0, y1]]
        : [[x0, y0], [x1, y0], [x1, y1], [xm, y1], [xm, y1 - notch], [x0, y1 - notch]];
    case "left":
      return [[x1, y0], [x1, y1], [x0, ym]];
    case "right":
      return [[x0, y0], [x1, ym], [x0, y1]];
    case "right_forward": // the top-left corner cut: the point at the top right
      return [[x0, y0 + cut], [x1, y0], [x1, y1], [x0, y1]];
    case "left_forward":
      return [[x0, y0], [x1, y0 + cut], [x1, y1], [x0, y1]];
    case "right_backward": // the bottom-left corner cut: the point at the bottom right
      return [[x0, y0], [x1, y0], [x1, y1], [x0, y1 - cut]];
    case "left_backward":
      return [[x0, y0], [x1, y0], [x1, y1 - cut], [x0, y1]];
    default:
      throw new Error(`unknown direction ${direction}`);
  }
}

/**
 * The middle of a direction shape's body (where the middle level's dot goes): the
 * centre of the box, moved into the wedge for the side directions.
 * @param {string | undefined} direction
 * @param {Box} box
 * @returns {XY}
 */
export function dotCentre(direction, { x0, x1, y0, y1 }) {
  const shift = direction === "left" ? 0.15 : direction === "right" ? -0.15 : 0;
  return [(x0 + x1) / 2 + shift * (x1 - x0), (y0 + y1) / 2];
}

/**
 * A turn sign: a parallelogram whose top and bottom slant down towards the turn's side
 * (right: the right corners lower). [[x, y], …].
 * @param {string | undefined} turn
 * @param {Box} box
 * @returns {XY[]}
 */
export function turnPoints(turn, { x0, x1, y0, y1 }) {
  const slant = Math.min((y1 - y0) * 0.3, (x1 - x0) * 0.6);
  return turn === "left"
    ? [[x0, y0 + slant], [x1, y0], [x1, y1 - slant], [x0, y1]]
    : [[x0, y0], [x1, y0 + slant], [x1, y1], [x0, y1 - slant]];
}

/**
 * "¼", "½", "1¼", "0.3": a turn's amount (a fraction of a full turn) for its sign.
 * @param {unknown} amount
 */
export function turnLabel(amount) {
  const a = Number(amount);
  if (!(a > 0)) return "";
  const whole = Math.floor(a + 1e-9);
  const eighths = Math.round((a - whole) * 8);
  if (Math.abs(a - whole - eighths / 8) > 1e-6) return num(a);
  const part = ["", "⅛", "¼", "⅜", "½", "⅝", "¾", "⅞"][eighths] ?? "";
  if (eighths === 8) return String(whole + 1);
  return `${whole > 0 ? whole : ""}${part}` || "0";
}

/**
 * "+2", "−1", "0": a step-size sign's tag.
 * @param {unknown} size
 */
export function stepSizeLabel(size) {
  const s = Math.round(Number(size) || 0);
  return s > 0 ? `+${s}` : s < 0 ? `−${-s}` : "0";
}

/** @type {Record<number, string | undefined>} */
const STEP_SIZES = {
  "-3": "very short", "-2": "shorter", "-1": "a little shorter", 0: "normal",
  1: "a little longer", 2: "longer", 3: "very long",
};

/**
 * A hold's circle: centre just above its beat, radius to fit the column.
 * @param {StaffLayout} layout
 * @param {ScoreSymbol} symbol
 * @returns {{cx: number, cy: number, r: number} | null}
 */
export function holdCircle(layout, symbol) {
  const column = layout.columns[symbol.column];
  if (!column) return null;
  const r = Math.max(3, Math.min(6, layout.unit * 0.2));
  return { cx: column.cx, cy: beatToY(layout, Number(symbol.beat) || 0) - r - 2, r };
}

/**
 * A step-size tag: a small box straddling the outer edge of its support column, its
 * bottom on the step's beat (the step symbol stays readable beside it).
 * @param {StaffLayout} layout
 * @param {ScoreSymbol} symbol
 * @returns {Box | null}
 */
export function stepSizeBox(layout, symbol) {
  const column = layout.columns[symbol.column];
  if (!column) return null;
  const width = Math.max(14, layout.unit * 0.55);
  const height = 12;
  const y1 = beatToY(layout, Number(symbol.beat) || 0) - 1;
  const x0 = column.side < 0 ? column.x0 - width + 3 : column.x1 - 3;
  return { x0, x1: x0 + width, y0: y1 - height, y1 };
}

/**
 * A path sign: a long bracket in the path column ([x, y] points of the open polyline,
 * its ends turned towards the staff) from the symbol's start to its end; a curved path
 * also gets a bow (an SVG path) bulging to the side it curves to.
 * @param {StaffLayout} layout
 * @param {ScoreSymbol} symbol
 * @returns {{points: XY[], bow: string | null, labelX: number, labelY: number} | null}
 */
export function pathBracket(layout, symbol) {
  const column = layout.columns[symbol.column];
  if (!column) return null;
  const y1 = beatToY(layout, Number(symbol.beat) || 0) - 2;
  const y0 = Math.min(y1 - 8, beatToY(layout, (Number(symbol.beat) || 0) + (Number(symbol.duration) || 0)) + 2);
  const x = column.cx + layout.unit * 0.1;
  const arm = layout.unit * 0.3;
  /** @type {XY[]} */
  const points = [[x - arm, y0], [x, y0], [x, y1], [x - arm, y1]];
  /** @type {string | null} */
  let bow = null;
  if (symbol.path === "curved") {
    const degrees = Number(symbol.amount_deg) || 0;
    const bulge = (degrees < 0 ? -1 : 1) * layout.unit * 0.28;
    const xb = x - layout.unit * 0.18;
    bow = `M ${xb} ${y1 - 3} Q ${xb + bulge} ${(y0 + y1) / 2} ${xb} ${y0 + 3}`;
  }
  return { points, bow, labelX: x + 3, labelY: y0 + 10 };
}

/**
 * A path sign's label: "90°" (curved; negative: to the left), "" for straight.
 * @param {ScoreSymbol} symbol
 */
export function pathLabel(symbol) {
  if (symbol.path !== "curved") return "";
  return `${num(Math.abs(Number(symbol.amount_deg) || 0))}°${Number(symbol.amount_deg) < 0 ? " L" : " R"}`;
}

const words = (/** @type {unknown} */ text) => String(text ?? "").replaceAll("_", " ");

/**
 * The CSS class of a level's fill: staff__glyph--low, --middle or --high.
 * @param {string} level
 */
export function levelClass(level) {
  return `staff__glyph--${LEVELS.includes(level) ? level : "middle"}`;
}

/**
 * A symbol's tooltip, naming its kind, what it says (direction and level, turn, path,
 * size), the column and the part (pre-sign), its beat and duration:
 * "Direction: forward, middle level · right support, foot · beat 0, 1 beat".
 * @param {ScoreSymbol} symbol
 */
export function symbolTitle(symbol) {
  const s = symbol;
  let what;
  switch (s.kind) {
    case "direction":
      what = `Direction: ${words(s.direction)}, ${s.level ?? "middle"} level`;
      break;
    case "turn":
      what = `Turn: ${s.turn} ${turnLabel(s.amount)} (${num((Number(s.amount) || 0) * 360)}°)`;
      break;
    case "hold":
      what = "Hold";
      break;
    case "path": {
      const degrees = Number(s.amount_deg) || 0;
      what = s.path === "curved"
        ? `Path: curved ${num(Math.abs(degrees))}° to the ${degrees < 0 ? "left" : "right"}`
        : "Path: straight";
      break;
    }
    case "step_size":
      what = `Step size: ${stepSizeLabel(s.size)} (${STEP_SIZES[Math.round(Number(s.size) || 0)] ?? "?"})`;
      break;
    default:
      what = words(s.kind);
  }
  const column = COLUMN_LABELS[s.column]?.[1] ?? words(s.column);
  const where = s.part ? `${column}, ${words(s.part)}` : column;
  const duration = Number(s.duration) || 0;
  const when = s.kind === "step_size"
    ? `beat ${num(s.beat)}`
    : `beat ${num(s.beat)}, ${plural(duration, "beat")}`;
  return `${what} · ${where} · ${when}`;
}
