// @ts-check
// The score editor's model: the score being edited, its changes with undo and redo, the
// palette's signs and the symbols they make, snapping to beats, and the server's
// problems sorted by the symbol they name. Pure (no DOM), tested with node
// (tests/js/score-edits.test.mjs); staff-editor.js draws and drives it.
//
// A score is kinetograph-score/1 (docs/score-format.md). Symbols keep their order in the
// list: the server names a problem by the symbol's index in the list it was sent
// ("symbol 3 (direction in support_left at beat 2): …"), and the staff draws each
// symbol with that index.

import { DIRECTIONS } from "./glyphs.js";

/** @typedef {import("./glyphs.js").ScoreSymbol} ScoreSymbol */
/** @typedef {import("./format.js").Score} Score */

/**
 * A palette sign: what a new symbol is, and the columns it may stand in.
 * @typedef {{key: string, label: string, kind: string, columns: readonly string[],
 *   fields: Record<string, string | number>}} Sign
 */

const LIMBS = Object.freeze([
  "support_left", "support_right", "leg_left", "leg_right", "body", "arm_left", "arm_right", "head",
]);

/** @type {readonly Sign[]} the palette, in its order */
export const SIGNS = Object.freeze(/** @type {Sign[]} */ ([
  ...DIRECTIONS.map((direction) => ({
    key: `direction:${direction}`, label: `Direction: ${direction.replace("_", " ")}`, kind: "direction", columns: LIMBS,
    fields: { direction },
  })),
  { key: "turn:left", label: "Turn left", kind: "turn", columns: LIMBS, fields: { turn: "left" } },
  { key: "turn:right", label: "Turn right", kind: "turn", columns: LIMBS, fields: { turn: "right" } },
  { key: "hold", label: "Hold", kind: "hold", columns: LIMBS, fields: {} },
  { key: "path:straight", label: "Path: straight", kind: "path", columns: ["path"], fields: { path: "straight" } },
  { key: "path:curved", label: "Path: curved", kind: "path", columns: ["path"], fields: { path: "curved" } },
  {
    key: "step_size", label: "Step size", kind: "step_size", columns: ["support_left", "support_right"],
    fields: {},
  },
]));

/** The field a sign's "amount" input sets, its default and its meaning. */
export const AMOUNTS = Object.freeze({
  turn: { field: "amount", initial: 0.25, unit: "of a turn" },
  path: { field: "amount_deg", initial: 90, unit: "degrees (+: curving right)" },
  step_size: { field: "size", initial: 1, unit: "from −3 (very short) to 3 (very long)" },
});

/**
 * The palette sign of `symbol` (its key).
 * @param {ScoreSymbol} symbol
 */
export function signKey(symbol) {
  if (symbol.kind === "direction") return `direction:${symbol.direction}`;
  if (symbol.kind === "turn") return `turn:${symbol.turn}`;
  if (symbol.kind === "path") return `path:${symbol.path}`;
  return String(symbol.kind);
}

/**
 * The sign of `key` (a palette entry); throws on an unknown one.
 * @param {string} key
 */
export function signOf(key) {
  const sign = SIGNS.find((s) => s.key === key);
  if (!sign) throw new Error(`no sign ${key}`);
  return sign;
}

/**
 * A new symbol of palette sign `key` in `column` at `beat` for `duration` beats; `level`
 * for directions, `amount` for turns, paths and step sizes (their default when absent).
 * @param {string} key
 * @param {{column: string, beat: number, duration: number, level?: string, amount?: number}} where
 * @returns {ScoreSymbol}
 */
export function makeSymbol(key, { column, beat, duration, level = "middle", amount }) {
  const sign = signOf(key);
  /** @type {ScoreSymbol} */
  const symbol = { column, kind: sign.kind, beat, duration, ...sign.fields };
  if (sign.kind === "direction") symbol.level = level;
  const extra = AMOUNTS[/** @type {keyof typeof AMOUNTS} */ (sign.kind)];
  if (extra) Object.assign(symbol, { [extra.field]: Number.isFinite(amount) ? Number(amount) : extra.initial });
  if (sign.kind === "step_size") symbol.duration = 0;
  if (sign.kind === "path" && sign.fields.path === "straight") delete symbol.amount_deg;
  return symbol;
}

/**
 * Whether a symbol like `symbol` may stand in `column`.
 * @param {ScoreSymbol} symbol
 * @param {string} column
 */
export function allowedIn(symbol, column) {
  const sign = SIGNS.find((s) => s.key === signKey(symbol));
  return Boolean(sign && sign.columns.includes(column));
}

/**
 * `beat` on the grid of `step` beats, not below 0.
 * @param {number} beat
 * @param {number} step
 */
export function snapBeat(beat, step) {
  const s = step > 0 ? step : 1;
  return Math.max(0, Math.round(beat / s) * s);
}

/**
 * The server's problems by the index of the symbol each names ("symbol N …"); the rest
 * (the score's header, its length) under -1.
 * @param {readonly string[]} problems
 * @returns {Map<number, string[]>}
 */
export function problemsBySymbol(problems) {
  /** @type {Map<number, string[]>} */
  const out = new Map();
  for (const problem of problems) {
    const match = /^symbol (\d+)\b/.exec(problem);
    const index = match ? Number(match[1]) : -1;
    out.set(index, [...(out.get(index) ?? []), problem]);
  }
  return out;
}

/** @param {Score} score */
const copy = (score) => /** @type {Score} */ (JSON.parse(JSON.stringify(score)));

/**
 * The score being edited, with undo and redo. Each change is one step of the history;
 * a drag is one step however many moves it makes (`begin`, `draft`…, `end`).
 */
export class ScoreEdits {
  /** @param {Score} score */
  constructor(score) {
    /** @type {Score} */
    this.score = copy(score);
    this.score.symbols = this.score.symbols ?? [];
    /** @type {string[]} */
    this.undoStack = [];
    /** @type {string[]} */
    this.redoStack = [];
    /** @type {string | null} the score when the drag began */
    this.dragStart = null;
    /** changes made since the editor opened (undo and redo count) */
    this.revision = 0;
  }

  get symbols() {
    return /** @type {ScoreSymbol[]} */ (this.score.symbols);
  }

  get canUndo() {
    return this.undoStack.length > 0;
  }

  get canRedo() {
    return this.redoStack.length > 0;
  }

  /**
   * Make one change (`change` edits the score in place) as one step of the history.
   * @param {(score: Score) => void} change
   */
  apply(change) {
    const before = JSON.stringify(this.score);
    change(this.score);
    this.record(before);
  }

  /** @param {string} before */
  record(before) {
    if (JSON.stringify(this.score) === before) return false;
    this.undoStack.push(before);
    this.redoStack = [];
    this.revision += 1;
    return true;
  }

  /** Start a drag: the changes until `end` are one step. */
  begin() {
    this.dragStart = JSON.stringify(this.score);
  }

  /**
   * During a drag: the score as it was at `begin`, changed by `change`.
   * @param {(score: Score) => void} change
   */
  draft(change) {
    if (this.dragStart == null) return;
    this.score = /** @type {Score} */ (JSON.parse(this.dragStart));
    change(this.score);
  }

  /** End a drag; whether it changed the score. */
  end() {
    const before = this.dragStart;
    this.dragStart = null;
    return before != null && this.record(before);
  }

  undo() {
    const before = this.undoStack.pop();
    if (before == null) return false;
    this.redoStack.push(JSON.stringify(this.score));
    this.score = /** @type {Score} */ (JSON.parse(before));
    this.revision += 1;
    return true;
  }

  redo() {
    const after = this.redoStack.pop();
    if (after == null) return false;
    this.undoStack.push(JSON.stringify(this.score));
    this.score = /** @type {Score} */ (JSON.parse(after));
    this.revision += 1;
    return true;
  }

  /**
   * Move symbol `index` to `beat` (and `column`, when given and allowed).
   * @param {number} index
   * @param {number} beat
   * @param {string} [column]
   */
  move(index, beat, column) {
    this.apply((score) => placeSymbol(score, index, beat, column));
  }

  /**
   * Symbol `index` lasts `duration` beats (not below 0).
   * @param {number} index
   * @param {number} duration
   */
  stretch(index, duration) {
    this.apply((score) => stretchSymbol(score, index, duration));
  }

  /** @param {number} index */
  remove(index) {
    this.apply((score) => {
      score.symbols?.splice(index, 1);
    });
  }

  /**
   * Add `symbol` at the end of the list; its index.
   * @param {ScoreSymbol} symbol
   */
  add(symbol) {
    this.apply((score) => {
      score.symbols?.push(symbol);
    });
    return this.symbols.length - 1;
  }

  /**
   * Replace symbol `index` by `symbol`.
   * @param {number} index
   * @param {ScoreSymbol} symbol
   */
  replace(index, symbol) {
    this.apply((score) => {
      if (score.symbols && index >= 0 && index < score.symbols.length) score.symbols[index] = symbol;
    });
  }

  /**
   * Set header fields (tempo_bpm, meter, measures).
   * @param {Partial<Score>} fields
   */
  setHeader(fields) {
    this.apply((score) => Object.assign(score, fields));
  }
}

/**
 * @param {Score} score
 * @param {number} index
 * @param {number} beat
 * @param {string} [column]
 */
export function placeSymbol(score, index, beat, column) {
  const symbol = score.symbols?.[index];
  if (!symbol) return;
  symbol.beat = Math.max(0, beat);
  if (column && allowedIn(symbol, column)) symbol.column = column;
}

/**
 * @param {Score} score
 * @param {number} index
 * @param {number} duration
 */
export function stretchSymbol(score, index, duration) {
  const symbol = score.symbols?.[index];
  if (symbol && symbol.kind !== "step_size") symbol.duration = Math.max(0, duration);
}
