// @ts-check
// The geometry of the score page's staff: where each column stands, which y a beat is
// at and which beat a y is at (the cursor's drag), bars and beat ticks, and the frame
// of a beat. Pure functions (no DOM), tested with node (tests/js/score-layout.test.mjs).
//
// The staff (docs/score-format.md) is read bottom to top: beat 0 at the bottom. Its
// columns, from the centre line outwards (seed 003 §2): the supports next to the centre
// line, then the leg gestures (the two outer staff lines close these four columns),
// then the body, the arms and the head; the right side's columns on the right, the
// left side's on the left. The score format has one `body` and one `head` column: they
// stand on the right, and the left keeps an empty body column so that the arms mirror
// each other. The `path` column stands apart, outside on the right.

/** @typedef {readonly [string | null, number]} Slot a column (null: empty) and its width in units */
/** @typedef {{x0: number, x1: number, cx: number, side: number}} Column side: −1 left, +1 right */

/**
 * The staff's geometry (px): `lines` are the three staff lines' x (left outer, centre,
 * right outer); `top` is the y of the last beat and `bottom` the y of beat 0;
 * `left`/`right` bound all the columns.
 * @typedef {{width: number, height: number, unit: number, centreX: number, lines: number[],
 *   columns: Record<string, Column>, left: number, right: number, top: number,
 *   bottom: number, beats: number, pxPerBeat: number}} StaffLayout
 */

/** @type {readonly Slot[]} the left side's slots */
const LEFT_SLOTS = Object.freeze([["support_left", 1], ["leg_left", 1], [null, 1], ["arm_left", 1]]);
/** @type {readonly Slot[]} the right side's slots */
const RIGHT_SLOTS = Object.freeze([
  ["support_right", 1], ["leg_right", 1], ["body", 1], ["arm_right", 1], ["head", 1],
  [null, 0.4], ["path", 1],
]);

/** Each side's slots from the centre line out: [column or null (empty), width in units]. */
export const SIDES = Object.freeze({ left: LEFT_SLOTS, right: RIGHT_SLOTS });

/**
 * Short labels under the staff, and the columns' names for people.
 * @type {Readonly<Record<string, readonly [string, string] | undefined>>}
 */
export const COLUMN_LABELS = Object.freeze({
  support_left: ["sup", "left support"],
  support_right: ["sup", "right support"],
  leg_left: ["leg", "left leg gesture"],
  leg_right: ["leg", "right leg gesture"],
  body: ["body", "body"],
  arm_left: ["arm", "left arm"],
  arm_right: ["arm", "right arm"],
  head: ["head", "head"],
  path: ["path", "path"],
});

/** The slots inside the staff's outer lines, on each side (supports and leg gestures). */
export const INNER_SLOTS = 2;

export const DEFAULTS = Object.freeze({
  pxPerBeat: 40,
  margin: Object.freeze({ left: 30, right: 6, top: 16, bottom: 34 }),
  minUnit: 18,
  maxUnit: 44,
});

const units = (/** @type {readonly Slot[]} */ slots) => slots.reduce((sum, [, width]) => sum + width, 0);

/**
 * The staff's layout for an SVG `width` px wide holding `beats` beats.
 * @param {{width: number, beats: number, pxPerBeat?: number,
 *          margin?: {left: number, right: number, top: number, bottom: number}}} options
 * @returns {StaffLayout}
 */
export function staffLayout({ width, beats, pxPerBeat = DEFAULTS.pxPerBeat, margin = DEFAULTS.margin }) {
  if (!(beats > 0)) throw new Error(`a staff needs beats > 0, not ${beats}`);
  const leftUnits = units(SIDES.left);
  const rightUnits = units(SIDES.right);
  const room = Math.max(0, width - margin.left - margin.right);
  const unit = Math.min(DEFAULTS.maxUnit, Math.max(DEFAULTS.minUnit, room / (leftUnits + rightUnits)));
  const spare = Math.max(0, room - unit * (leftUnits + rightUnits));
  const centreX = margin.left + spare / 2 + leftUnits * unit;
  /** @type {Record<string, Column>} */
  const columns = {};
  /** @type {Array<["left" | "right", number]>} */
  const sides = [["left", -1], ["right", 1]];
  for (const [name, side] of sides) {
    let from = 0;
    for (const [column, slotWidth] of SIDES[name]) {
      const to = from + slotWidth;
      if (column) {
        const a = centreX + side * from * unit;
        const b = centreX + side * to * unit;
        columns[column] = { x0: Math.min(a, b), x1: Math.max(a, b), cx: (a + b) / 2, side };
      }
      from = to;
    }
  }
  const inner = (/** @type {readonly Slot[]} */ slots) => units(slots.slice(0, INNER_SLOTS));
  const top = margin.top;
  const bottom = top + beats * pxPerBeat;
  return {
    width: Math.max(width, margin.left + margin.right + unit * (leftUnits + rightUnits)),
    height: bottom + margin.bottom,
    unit,
    centreX,
    lines: [centreX - inner(SIDES.left) * unit, centreX, centreX + inner(SIDES.right) * unit],
    columns,
    left: centreX - leftUnits * unit,
    right: centreX + rightUnits * unit,
    top,
    bottom,
    beats,
    pxPerBeat,
  };
}

/**
 * The y (px, down the SVG) of `beat`; beat 0 is at the bottom of the staff.
 * @param {{bottom: number, pxPerBeat: number}} layout
 * @param {number} beat
 */
export function beatToY(layout, beat) {
  return layout.bottom - beat * layout.pxPerBeat;
}

/**
 * The beat at `y` (the cursor dragged or the staff clicked), clamped to the score;
 * `snap` > 0 rounds it to multiples of `snap` beats.
 * @param {{bottom: number, pxPerBeat: number, beats: number}} layout
 * @param {number} y px
 * @param {number} [snap] beats
 */
export function yToBeat(layout, y, snap = 0) {
  let beat = (layout.bottom - y) / layout.pxPerBeat;
  if (snap > 0) beat = Math.round(beat / snap) * snap;
  return Math.min(layout.beats, Math.max(0, beat));
}

/**
 * The column whose span holds x (px), or null.
 * @param {StaffLayout} layout
 * @param {number} x
 */
export function columnAt(layout, x) {
  for (const [name, c] of Object.entries(layout.columns)) if (x >= c.x0 && x < c.x1) return name;
  return null;
}

/**
 * The bar lines: [{beat, bar}] at 0, meter, 2 × meter … beats; `bar` is the number of
 * the measure that starts there (the last line, closing the score, has none: null).
 * @param {number} beats
 * @param {number} meter beats per bar
 * @returns {{beat: number, bar: number | null}[]}
 */
export function barLines(beats, meter) {
  const lines = [];
  const count = Math.ceil(beats / meter - 1e-9);
  for (let i = 0; i <= count; i += 1) {
    const beat = Math.min(beats, i * meter);
    lines.push({ beat, bar: beat < beats - 1e-9 ? i + 1 : null });
  }
  return lines;
}

/**
 * The whole beats that are not on a bar line (the ticks on the centre line).
 * @param {number} beats
 * @param {number} meter
 */
export function beatTicks(beats, meter) {
  const ticks = [];
  for (let beat = 1; beat < beats - 1e-9; beat += 1) if (beat % meter !== 0) ticks.push(beat);
  return ticks;
}

/**
 * Where `beat` is in the bars: {bar (1-based), beatInBar (1 … meter), index (whole beats
 * done)}; the score's very end counts as the last beat of the last bar.
 * @param {number} beat
 * @param {number} meter
 * @param {number} [beats]
 */
export function beatPosition(beat, meter, beats = Infinity) {
  const last = Math.max(0, Math.ceil(beats) - 1);
  const index = Math.min(last, Math.max(0, Math.floor(beat + 1e-6)));
  return { bar: Math.floor(index / meter) + 1, beatInBar: (index % meter) + 1, index };
}

/**
 * The beat at `seconds` of the animation (frame 0 is beat 0).
 * @param {number} seconds
 * @param {number} secondsPerBeat
 */
export function beatOfTime(seconds, secondsPerBeat) {
  return seconds / secondsPerBeat;
}

/**
 * The frame nearest to `beat`, clamped to 0 … frames − 1.
 * @param {number} beat
 * @param {number} secondsPerBeat
 * @param {number} fps
 * @param {number} frames
 */
export function frameOfBeat(beat, secondsPerBeat, fps, frames) {
  return Math.min(frames - 1, Math.max(0, Math.round(beat * secondsPerBeat * fps)));
}

/**
 * The scrollTop that keeps y (px in the scrolled content) in view of a box
 * `viewHeight` px tall scrolled to `scrollTop`: unchanged while y is inside the middle
 * band (`band` of the height, centred), else y is brought to the middle.
 * @param {number} y
 * @param {number} scrollTop
 * @param {number} viewHeight
 * @param {number} contentHeight
 * @param {number} [band]
 */
export function followScroll(y, scrollTop, viewHeight, contentHeight, band = 0.6) {
  const rim = (viewHeight * (1 - band)) / 2;
  if (y >= scrollTop + rim && y <= scrollTop + viewHeight - rim) return scrollTop;
  return Math.min(Math.max(0, contentHeight - viewHeight), Math.max(0, y - viewHeight / 2));
}
