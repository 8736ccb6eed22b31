// @ts-check
// The score editor on the staff: select a symbol (click), move it (drag; to another
// column too, where its kind may stand) or stretch it (drag its top edge), delete it,
// add symbols from the palette at the cursor's beat, change the selected one from the
// palette, undo and redo; beats snap to the grid chosen; the bars, beats a bar and tempo. The model is edits.js; the
// staff (staff-view.js) draws it, with the selected symbol and the problems the server
// found on the symbols they name. Every change calls `onEdit` (the page re-animates).
//
// Keys (while the player or the staff has focus, not while typing in a field):
// Ctrl+Z undo · Ctrl+Shift+Z or Ctrl+Y redo · Delete remove the selected symbol ·
// [ / ] move it a grid step earlier / later · - / = shorten / lengthen it · A add the
// palette's sign at the cursor · Esc deselect.

import { COLUMN_LABELS } from "./layout.js";
import { LEVELS, symbolBox } from "./glyphs.js";
import {
  AMOUNTS, SIGNS, allowedIn, makeSymbol, placeSymbol, problemsBySymbol, signKey, signOf, snapBeat,
  stretchSymbol,
} from "./edits.js";

/** @typedef {import("./edits.js").ScoreEdits} ScoreEdits */
/** @typedef {import("./staff-view.js").StaffView} StaffView */
/** @typedef {import("./glyphs.js").ScoreSymbol} ScoreSymbol */

const STRETCH_EDGE_PX = 7;

/**
 * @param {HTMLElement} root
 * @param {string} selector
 */
function field(root, selector) {
  const found = root.querySelector(selector);
  if (!(found instanceof HTMLInputElement || found instanceof HTMLSelectElement)) {
    throw new Error(`the editor has no ${selector}`);
  }
  return found;
}

/**
 * @param {HTMLSelectElement | HTMLInputElement} select
 * @param {Array<[string, string]>} options value, label
 */
function fill(select, options) {
  select.replaceChildren(...options.map(([value, label]) => new Option(label, value)));
}

/** @param {EventTarget | null} target */
const typing = (target) => (target instanceof HTMLInputElement && target.type !== "range")
  || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;

export class StaffEditor {
  /**
   * @param {{root: HTMLElement, keys: HTMLElement, staff: StaffView, edits: ScoreEdits,
   *   currentBeat: () => number, onEdit: () => void}} options
   *   root: the editor's panel (toolbar, palette, problems); keys: where its keys are read
   */
  constructor({ root, keys, staff, edits, currentBeat, onEdit }) {
    this.root = root;
    this.staff = staff;
    this.edits = edits;
    this.currentBeat = currentBeat;
    this.onEdit = onEdit;
    /** @type {number | null} */
    this.selected = null;
    /** @type {Map<number, string[]>} */
    this.problems = new Map();
    this.ui = {
      sign: /** @type {HTMLSelectElement} */ (field(root, "[name=sign]")),
      column: /** @type {HTMLSelectElement} */ (field(root, "[name=column]")),
      level: /** @type {HTMLSelectElement} */ (field(root, "[name=level]")),
      duration: /** @type {HTMLInputElement} */ (field(root, "[name=duration]")),
      amount: /** @type {HTMLInputElement} */ (field(root, "[name=amount]")),
      snap: /** @type {HTMLSelectElement} */ (field(root, "[name=snap]")),
      list: /** @type {HTMLElement} */ (root.querySelector("[data-editor-problems]")),
      selection: /** @type {HTMLElement} */ (root.querySelector("[data-editor-selection]")),
      header: /** @type {HTMLInputElement[]} */ (["measures", "meter", "tempo_bpm"].map((name) => field(root, `[name=${name}]`))),
    };
    for (const input of this.ui.header) input.addEventListener("change", () => this.headerChanged(input));
    fill(this.ui.sign, SIGNS.map((s) => [s.key, s.label]));
    fill(this.ui.level, LEVELS.map((l) => [l, l]));
    this.ui.level.value = "middle";
    this.ui.sign.addEventListener("change", () => this.signChanged());
    this.signChanged();
    staff.onSymbolDown = (event, index) => this.press(event, index);
    /** @type {Record<string, () => void>} */
    const buttons = {
      undo: () => this.undo(),
      redo: () => this.redo(),
      delete: () => this.removeSelected(),
      add: () => this.addAtCursor(),
      apply: () => this.applyToSelected(),
    };
    for (const button of root.querySelectorAll("[data-edit]")) {
      const action = buttons[/** @type {HTMLElement} */ (button).dataset.edit ?? ""];
      if (action) button.addEventListener("click", action);
    }
    keys.addEventListener("keydown", (event) => this.key(event));
    this.refresh();
  }

  get snap() {
    return Number(this.ui.snap.value) || 1;
  }

  // --- the palette ---------------------------------------------------------------------

  /** The columns the palette's sign may stand in; its amount's meaning. */
  signChanged() {
    const sign = signOf(this.ui.sign.value);
    const previous = this.ui.column.value;
    fill(this.ui.column, sign.columns.map((c) => [c, COLUMN_LABELS[c]?.[1] ?? c]));
    if (sign.columns.includes(previous)) this.ui.column.value = previous;
    this.ui.level.disabled = sign.kind !== "direction";
    const amount = AMOUNTS[/** @type {keyof typeof AMOUNTS} */ (sign.kind)];
    const straight = sign.key === "path:straight";
    this.ui.amount.disabled = !amount || straight;
    if (amount && !straight) {
      this.ui.amount.value = String(amount.initial);
      this.ui.amount.title = `Amount: ${amount.unit}`;
    }
    this.ui.duration.disabled = sign.kind === "step_size";
  }

  /**
   * The palette's symbol at `beat` (its column, unless `column` is given).
   * @param {number} beat
   * @param {string} [column]
   */
  paletteSymbol(beat, column) {
    return makeSymbol(this.ui.sign.value, {
      column: column ?? this.ui.column.value,
      beat,
      duration: Math.max(0, Number(this.ui.duration.value) || 0),
      level: this.ui.level.value,
      amount: this.ui.amount.disabled ? undefined : Number(this.ui.amount.value),
    });
  }

  /** @param {ScoreSymbol} symbol the palette shows this symbol's sign and fields */
  showInPalette(symbol) {
    this.ui.sign.value = signKey(symbol);
    this.signChanged();
    this.ui.column.value = symbol.column;
    if (symbol.level) this.ui.level.value = symbol.level;
    this.ui.duration.value = String(symbol.duration ?? 0);
    const amount = AMOUNTS[/** @type {keyof typeof AMOUNTS} */ (symbol.kind)];
    const value = amount ? symbol[/** @type {"amount" | "amount_deg" | "size"} */ (amount.field)] : null;
    if (value != null) this.ui.amount.value = String(value);
  }

  // --- the changes ---------------------------------------------------------------------

  /**
   * A header field changed (bars, beats a bar, tempo): a change of the score when it
   * is a number in the field's range; else the field shows the score's value again.
   * @param {HTMLInputElement} input
   */
  headerChanged(input) {
    const value = Number(input.value);
    const name = /** @type {"measures" | "meter" | "tempo_bpm"} */ (input.name);
    const whole = name !== "tempo_bpm" ? Number.isInteger(value) : true;
    if (!Number.isFinite(value) || !whole || value < Number(input.min) || value > Number(input.max)) {
      input.value = String(this.edits.score[name]);
      return;
    }
    this.edits.setHeader({ [name]: value });
    this.changed();
  }

  addAtCursor() {
    const beat = snapBeat(this.currentBeat(), this.snap);
    this.select(this.edits.add(this.paletteSymbol(beat)));
    this.changed();
  }

  applyToSelected() {
    const index = this.selected;
    const symbol = index == null ? null : this.edits.symbols[index];
    if (index == null || !symbol) return;
    const made = this.paletteSymbol(symbol.beat, this.ui.column.value);
    this.edits.replace(index, made);
    this.changed();
  }

  removeSelected() {
    if (this.selected == null) return;
    this.edits.remove(this.selected);
    this.selected = null;
    this.changed();
  }

  undo() {
    if (this.edits.undo()) this.afterHistory();
  }

  redo() {
    if (this.edits.redo()) this.afterHistory();
  }

  afterHistory() {
    if (this.selected != null && this.selected >= this.edits.symbols.length) this.selected = null;
    this.changed();
  }

  /**
   * Move the selected symbol by `steps` grid steps (`stretch`: lengthen it instead).
   * @param {number} steps
   * @param {boolean} stretch
   */
  nudge(steps, stretch) {
    const index = this.selected;
    const symbol = index == null ? null : this.edits.symbols[index];
    if (index == null || !symbol) return;
    if (stretch) this.edits.stretch(index, snapBeat((symbol.duration ?? 0) + steps * this.snap, this.snap));
    else this.edits.move(index, snapBeat(symbol.beat + steps * this.snap, this.snap));
    this.changed();
  }

  /** Redraw the staff and the editor's state; the page re-animates. */
  changed() {
    this.problems = new Map(); // they name symbols by index: the next animation says again
    this.staff.setScore(this.edits.score);
    this.refresh();
    this.onEdit();
  }

  // --- selection and problems ----------------------------------------------------------

  /** @param {number | null} index */
  select(index) {
    this.selected = index;
    const symbol = index == null ? null : this.edits.symbols[index];
    if (symbol) this.showInPalette(symbol);
    this.refresh();
  }

  /**
   * The server's problems with the score (each naming its symbol), or none.
   * @param {readonly string[]} problems
   */
  setProblems(problems) {
    this.problems = problemsBySymbol(problems);
    this.ui.list.replaceChildren(...problems.map((problem) => {
      const item = document.createElement("li");
      const index = /^symbol (\d+)\b/.exec(problem)?.[1];
      if (index == null) {
        item.textContent = problem;
        return item;
      }
      const show = document.createElement("button"); // selects the symbol it names
      show.type = "button";
      show.className = "score-editor__problem";
      show.textContent = problem;
      show.addEventListener("click", () => this.select(Number(index)));
      item.dataset.index = index;
      item.append(show);
      return item;
    }));
    this.ui.list.hidden = problems.length === 0;
    this.refresh();
  }

  refresh() {
    this.staff.mark(this.selected, this.problems);
    for (const input of this.ui.header) {
      const value = String(this.edits.score[/** @type {"measures" | "meter" | "tempo_bpm"} */ (input.name)]);
      if (input.value !== value && document.activeElement !== input) input.value = value;
    }
    const symbol = this.selected == null ? null : this.edits.symbols[this.selected];
    this.root.dataset.selected = symbol ? String(this.selected) : "";
    this.root.dataset.revision = String(this.edits.revision);
    this.ui.selection.textContent = symbol
      ? `Selected: ${symbol.kind} in ${COLUMN_LABELS[symbol.column]?.[1] ?? symbol.column} at beat ${symbol.beat}, ${symbol.duration ?? 0} beats`
      : "Nothing selected: click a symbol on the staff.";
    for (const [name, enabled] of [
      ["undo", this.edits.canUndo], ["redo", this.edits.canRedo], ["delete", symbol != null],
      ["apply", symbol != null],
    ]) {
      const button = this.root.querySelector(`[data-edit=${name}]`);
      if (button instanceof HTMLButtonElement) button.disabled = !enabled;
    }
  }

  // --- the pointer and the keys --------------------------------------------------------

  /**
   * A pointer pressed on symbol `index`: select it, and drag to move or (from its top
   * edge) to stretch it.
   * @param {PointerEvent} event
   * @param {number} index
   * @returns {boolean} taken (no seek)
   */
  press(event, index) {
    const symbol = this.edits.symbols[index];
    const { layout, svg } = this.staff;
    if (!symbol || !layout || !svg) return false;
    event.preventDefault();
    this.select(index);
    const rect = svg.getBoundingClientRect();
    const y = (event.clientY - rect.top) * (rect.height > 0 ? layout.height / rect.height : 1);
    const box = symbolBox(layout, symbol);
    const stretching = symbol.kind !== "step_size" && box != null && y <= box.y0 + STRETCH_EDGE_PX;
    const from = this.staff.beatAt(event);
    const start = { beat: symbol.beat, end: symbol.beat + (symbol.duration ?? 0), column: symbol.column };
    let last = "";
    this.edits.begin();
    const move = (/** @type {PointerEvent} */ e) => {
      const delta = this.staff.beatAt(e) - from;
      const column = stretching ? start.column : this.staff.columnAt(e) ?? start.column;
      const target = stretching
        ? Math.max(this.snap, snapBeat(start.end + delta, this.snap) - start.beat)
        : snapBeat(start.beat + delta, this.snap);
      const key = `${target} ${column}`;
      if (key === last) return;
      last = key;
      this.edits.draft((score) => (stretching
        ? stretchSymbol(score, index, target)
        : placeSymbol(score, index, target, allowedIn(symbol, column) ? column : start.column)));
      this.staff.setScore(this.edits.score);
      this.staff.mark(this.selected, this.problems);
    };
    const end = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      if (this.edits.end()) this.changed();
      else this.refresh();
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
    return true;
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    if (typing(event.target)) return;
    const command = event.ctrlKey || event.metaKey;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    /** @type {(() => void) | undefined} */
    let action;
    if (command && key === "z") action = event.shiftKey ? () => this.redo() : () => this.undo();
    else if (command && key === "y") action = () => this.redo();
    else if (!command && !event.altKey) {
      action = {
        Delete: () => this.removeSelected(),
        Backspace: () => this.removeSelected(),
        Escape: () => this.select(null),
        "[": () => this.nudge(-1, false),
        "]": () => this.nudge(1, false),
        "-": () => this.nudge(-1, true),
        "=": () => this.nudge(1, true),
        a: () => this.addAtCursor(),
      }[key];
    }
    if (!action) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    action();
  }
}
