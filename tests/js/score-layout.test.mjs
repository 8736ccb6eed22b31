// Unit tests of the score page's staff geometry (static/js/score/layout.js):
// node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  COLUMN_LABELS, DEFAULTS, SIDES, barLines, beatOfTime, beatPosition, beatTicks, beatToY, columnAt,
  followScroll, frameOfBeat, staffLayout, yToBeat,
} from "../../static/js/score/layout.js";

const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} ≉ ${b}`);
const COLUMNS = ["support_left", "support_right", "leg_left", "leg_right", "body", "arm_left", "arm_right", "head", "path"];

test("every column of the score format has a place and a label", () => {
  const layout = staffLayout({ width: 360, beats: 8 });
  assert.deepEqual(Object.keys(layout.columns).sort(), [...COLUMNS].sort());
  for (const name of COLUMNS) assert.ok(COLUMN_LABELS[name], name);
  const placed = [...SIDES.left, ...SIDES.right].flatMap(([c]) => (c ? [c] : []));
  assert.deepEqual(placed.sort(), [...COLUMNS].sort());
});

test("columns from the centre line outwards: supports, legs, body, arms, head; path outside", () => {
  const layout = staffLayout({ width: 360, beats: 8 });
  const c = layout.columns;
  const cx = (name) => c[name].cx;
  // Right side: increasing x from the centre line.
  const right = ["support_right", "leg_right", "body", "arm_right", "head", "path"];
  right.forEach((name, i) => {
    assert.equal(c[name].side, 1, name);
    assert.ok(cx(name) > layout.centreX, name);
    if (i > 0) assert.ok(cx(name) > cx(right[i - 1]), `${name} after ${right[i - 1]}`);
  });
  // Left side: decreasing x.
  const left = ["support_left", "leg_left", "arm_left"];
  left.forEach((name, i) => {
    assert.equal(c[name].side, -1, name);
    assert.ok(cx(name) < layout.centreX, name);
    if (i > 0) assert.ok(cx(name) < cx(left[i - 1]), `${name} after ${left[i - 1]}`);
  });
  // The supports touch the centre line; the arms mirror each other.
  close(c.support_right.x0, layout.centreX);
  close(c.support_left.x1, layout.centreX);
  close(cx("arm_right") - layout.centreX, layout.centreX - cx("arm_left"));
  close(cx("support_right") - layout.centreX, layout.unit / 2);
  // The path column stands apart from the head column.
  assert.ok(c.path.x0 - c.head.x1 > 0.2 * layout.unit);
  // Columns do not overlap and are one unit wide.
  const spans = Object.values(c).sort((a, b) => a.x0 - b.x0);
  for (let i = 1; i < spans.length; i += 1) assert.ok(spans[i].x0 >= spans[i - 1].x1 - 1e-9);
  for (const span of spans) close(span.x1 - span.x0, layout.unit);
});

test("the three staff lines: the centre, and the outer lines closing supports and leg gestures", () => {
  const layout = staffLayout({ width: 360, beats: 8 });
  const [outerLeft, centre, outerRight] = layout.lines;
  close(centre, layout.centreX);
  close(outerRight, layout.columns.leg_right.x1);
  close(outerLeft, layout.columns.leg_left.x0);
  close(layout.columns.body.x0, outerRight);
});

test("the staff fits its width: 300 to 400 px wide, columns of legible size", () => {
  for (const width of [300, 340, 400]) {
    const layout = staffLayout({ width, beats: 10 });
    assert.ok(layout.left >= DEFAULTS.margin.left - 1e-9, `${width}: ${layout.left}`);
    assert.ok(layout.right <= width - DEFAULTS.margin.right + 1e-9, `${width}: ${layout.right}`);
    assert.ok(layout.unit >= 25 && layout.unit <= DEFAULTS.maxUnit, `${width}: unit ${layout.unit}`);
    assert.equal(layout.width, width);
  }
  // Very wide: the unit stops growing and the staff is centred in the room.
  const wide = staffLayout({ width: 1000, beats: 4 });
  assert.equal(wide.unit, DEFAULTS.maxUnit);
  close(wide.left - DEFAULTS.margin.left, 1000 - DEFAULTS.margin.right - wide.right);
  // Very narrow: the unit stops shrinking and the SVG grows past the width.
  const narrow = staffLayout({ width: 100, beats: 4 });
  assert.equal(narrow.unit, DEFAULTS.minUnit);
  assert.ok(narrow.width > 100 && narrow.right <= narrow.width);
  assert.throws(() => staffLayout({ width: 300, beats: 0 }));
});

test("beat → y goes up the page from beat 0 at the bottom; y → beat inverts it, clamped", () => {
  const layout = staffLayout({ width: 340, beats: 10, pxPerBeat: 40 });
  assert.equal(layout.bottom, DEFAULTS.margin.top + 400);
  assert.equal(layout.height, layout.bottom + DEFAULTS.margin.bottom);
  assert.equal(beatToY(layout, 0), layout.bottom);
  assert.equal(beatToY(layout, 10), layout.top);
  assert.equal(beatToY(layout, 2.5), layout.bottom - 100);
  for (const beat of [0, 0.25, 1, 3.7, 9.99, 10]) close(yToBeat(layout, beatToY(layout, beat)), beat);
  assert.equal(yToBeat(layout, layout.bottom + 50), 0); // below the staff: the start
  assert.equal(yToBeat(layout, -20), 10); // above it: the end
  assert.equal(yToBeat(layout, beatToY(layout, 3.3), 0.5), 3.5); // snapped
  assert.equal(yToBeat(layout, beatToY(layout, 3.2), 1), 3);
});

test("the column under an x", () => {
  const layout = staffLayout({ width: 360, beats: 4 });
  assert.equal(columnAt(layout, layout.centreX + 1), "support_right");
  assert.equal(columnAt(layout, layout.centreX - 1), "support_left");
  assert.equal(columnAt(layout, layout.columns.head.cx), "head");
  assert.equal(columnAt(layout, layout.centreX - 2.5 * layout.unit), null); // the empty slot
  assert.equal(columnAt(layout, 1), null);
});

test("bar lines every meter beats with the bar numbers; beat ticks between", () => {
  assert.deepEqual(barLines(10, 2), [
    { beat: 0, bar: 1 }, { beat: 2, bar: 2 }, { beat: 4, bar: 3 }, { beat: 6, bar: 4 },
    { beat: 8, bar: 5 }, { beat: 10, bar: null },
  ]);
  assert.deepEqual(barLines(8, 4), [{ beat: 0, bar: 1 }, { beat: 4, bar: 2 }, { beat: 8, bar: null }]);
  assert.deepEqual(barLines(3, 3), [{ beat: 0, bar: 1 }, { beat: 3, bar: null }]);
  assert.deepEqual(beatTicks(10, 2), [1, 3, 5, 7, 9]);
  assert.deepEqual(beatTicks(8, 4), [1, 2, 3, 5, 6, 7]);
  assert.deepEqual(beatTicks(4, 1), []);
});

test("where a beat is in the bars", () => {
  assert.deepEqual(beatPosition(0, 2, 10), { bar: 1, beatInBar: 1, index: 0 });
  assert.deepEqual(beatPosition(1.5, 2, 10), { bar: 1, beatInBar: 2, index: 1 });
  assert.deepEqual(beatPosition(2, 2, 10), { bar: 2, beatInBar: 1, index: 2 });
  assert.deepEqual(beatPosition(6.999999999, 4, 16), { bar: 2, beatInBar: 4, index: 7 });
  assert.deepEqual(beatPosition(10, 2, 10), { bar: 5, beatInBar: 2, index: 9 }); // the end
  assert.deepEqual(beatPosition(-1, 2, 10), { bar: 1, beatInBar: 1, index: 0 });
});

test("time ↔ beat ↔ frame: frame 0 is beat 0, 60 fps", () => {
  close(beatOfTime(1.5, 0.5), 3);
  assert.equal(frameOfBeat(0, 0.5, 60, 301), 0);
  assert.equal(frameOfBeat(4, 0.5, 60, 301), 120);
  assert.equal(frameOfBeat(8, 0.5, 60, 301), 240);
  assert.equal(frameOfBeat(10, 0.5, 60, 301), 300);
  assert.equal(frameOfBeat(11, 0.5, 60, 301), 300); // clamped to the last frame
  assert.equal(frameOfBeat(-1, 0.5, 60, 301), 0);
  assert.equal(frameOfBeat(1 / 3, 0.6, 60, 577), 12);
  // The drag: y → beat → frame, for a 120 bpm score drawn 40 px a beat.
  const layout = staffLayout({ width: 340, beats: 10 });
  assert.equal(frameOfBeat(yToBeat(layout, beatToY(layout, 6)), 0.5, 60, 301), 180);
});

test("following the cursor: the staff scrolls only when it leaves the middle band", () => {
  // A 1000 px staff in a 400 px box: the band is 80 … 320 px of the box.
  assert.equal(followScroll(500, 300, 400, 1000), 300); // inside: stays
  assert.equal(followScroll(390, 300, 400, 1000), 300);
  assert.equal(followScroll(950, 300, 400, 1000), 600); // below: middle, clamped to the end
  assert.equal(followScroll(100, 300, 400, 1000), 0); // above: middle, clamped to the top
  assert.equal(followScroll(500, 0, 400, 1000), 300);
  assert.equal(followScroll(200, 0, 400, 300), 0); // nothing to scroll
});
