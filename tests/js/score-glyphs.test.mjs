// Unit tests of the staff's signs and their words (static/js/score/glyphs.js):
// node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  DIRECTIONS, directionPoints, dotCentre, holdCircle, levelClass, num, pathBracket, pathLabel,
  stepSizeBox, stepSizeLabel, symbolBox, symbolTitle, turnLabel, turnPoints,
} from "../../static/js/score/glyphs.js";
import { beatToY, staffLayout } from "../../static/js/score/layout.js";

const layout = staffLayout({ width: 360, beats: 10, pxPerBeat: 40 });
const box = { x0: 10, x1: 30, y0: 100, y1: 140 };
const bounds = (points) => ({
  x0: Math.min(...points.map(([x]) => x)), x1: Math.max(...points.map(([x]) => x)),
  y0: Math.min(...points.map(([, y]) => y)), y1: Math.max(...points.map(([, y]) => y)),
});
/** Twice the signed area (shoelace); 0 for a degenerate outline. */
const area = (points) => Math.abs(points.reduce((sum, [x, y], i) => {
  const [nx, ny] = points[(i + 1) % points.length];
  return sum + x * ny - nx * y;
}, 0)) / 2;

test("a symbol's box: its column, from its start (bottom) up to its arrival", () => {
  const s = { column: "support_right", kind: "direction", beat: 2, duration: 1.5 };
  const b = symbolBox(layout, s);
  const column = layout.columns.support_right;
  assert.ok(b.x0 > column.x0 && b.x1 < column.x1 && b.x0 < b.x1);
  assert.equal(b.y1, beatToY(layout, 2) - 1);
  assert.equal(b.y0, beatToY(layout, 3.5) + 1);
  assert.ok(b.y1 - b.y0 > 55); // height = duration (1.5 beats of 40 px, less the gaps)
  // A zero-length symbol still shows, growing up from its beat.
  const z = symbolBox(layout, { ...s, duration: 0 });
  assert.equal(z.y1, beatToY(layout, 2) - 1);
  assert.ok(z.y1 - z.y0 >= 8);
  assert.equal(symbolBox(layout, { ...s, column: "tail" }), null);
});

test("direction shapes stay in their box and differ from each other", () => {
  const outlines = new Map();
  for (const direction of DIRECTIONS) {
    for (const side of [-1, 1]) {
      const points = directionPoints(direction, side, box);
      const b = bounds(points);
      assert.ok(b.x0 >= box.x0 && b.x1 <= box.x1 && b.y0 >= box.y0 && b.y1 <= box.y1, direction);
      assert.ok(area(points) > 0.3 * 20 * 40, `${direction}: area ${area(points)}`);
      outlines.set(`${direction}/${side}`, JSON.stringify(points));
    }
  }
  const right = DIRECTIONS.map((d) => outlines.get(`${d}/1`));
  assert.equal(new Set(right).size, DIRECTIONS.length);
  assert.throws(() => directionPoints("up", 1, box));
});

test("place is the rectangle; forward/backward are notched on the limb's side; sides are wedges", () => {
  assert.deepEqual(directionPoints("place", 1, box), [[10, 100], [30, 100], [30, 140], [10, 140]]);
  assert.equal(area(directionPoints("place", 1, box)), 800);
  // Forward: the full height only on the limb's side at the top.
  const topXs = (points) => points.filter(([, y]) => y === box.y0).map(([x]) => x);
  const bottomXs = (points) => points.filter(([, y]) => y === box.y1).map(([x]) => x);
  assert.deepEqual(topXs(directionPoints("forward", 1, box)).sort(), [20, 30]);
  assert.deepEqual(topXs(directionPoints("forward", -1, box)).sort(), [10, 20]);
  assert.deepEqual(bottomXs(directionPoints("forward", 1, box)).sort(), [10, 30]);
  assert.deepEqual(bottomXs(directionPoints("backward", 1, box)).sort(), [20, 30]);
  assert.deepEqual(topXs(directionPoints("backward", 1, box)).sort(), [10, 30]);
  // Side: a triangle pointing that way.
  assert.deepEqual(directionPoints("right", 1, box), [[10, 100], [30, 120], [10, 140]]);
  assert.deepEqual(directionPoints("left", -1, box), [[30, 100], [30, 140], [10, 120]]);
});

test("diagonals: a corner cut off, the remaining point towards the direction", () => {
  const has = (points, corner) => points.some(([x, y]) => x === corner[0] && y === corner[1]);
  const corners = { topLeft: [10, 100], topRight: [30, 100], bottomLeft: [10, 140], bottomRight: [30, 140] };
  const cases = {
    right_forward: "topLeft", left_forward: "topRight", right_backward: "bottomLeft", left_backward: "bottomRight",
  };
  for (const [direction, cut] of Object.entries(cases)) {
    const points = directionPoints(direction, 1, box);
    assert.equal(points.length, 4, direction);
    for (const [name, corner] of Object.entries(corners)) assert.equal(has(points, corner), name !== cut, `${direction} ${name}`);
  }
});

test("the middle level's dot sits inside the shape", () => {
  assert.deepEqual(dotCentre("place", box), [20, 120]);
  assert.ok(dotCentre("right", box)[0] < 20); // inside the wedge, towards its base
  assert.ok(dotCentre("left", box)[0] > 20);
  assert.equal(levelClass("low"), "staff__glyph--low");
  assert.equal(levelClass("high"), "staff__glyph--high");
  assert.equal(levelClass(undefined), "staff__glyph--middle");
});

test("turn signs slant towards their side; amounts as fractions", () => {
  const right = turnPoints("right", box);
  const left = turnPoints("left", box);
  assert.equal(right.length, 4);
  assert.notDeepEqual(right, left);
  assert.ok(area(right) > 0 && Math.abs(area(right) - area(left)) < 1e-9);
  // Right: the right corners lower (larger y) than the left ones.
  assert.ok(right[1][1] > right[0][1] && right[2][1] > right[3][1]);
  assert.ok(left[0][1] > left[1][1]);
  assert.equal(turnLabel(0.25), "¼");
  assert.equal(turnLabel(0.5), "½");
  assert.equal(turnLabel(0.125), "⅛");
  assert.equal(turnLabel(1), "1");
  assert.equal(turnLabel(1.75), "1¾");
  assert.equal(turnLabel(0.3), "0.3");
  assert.equal(turnLabel(0), "");
});

test("holds, path brackets and step-size tags are placed at their beats in their columns", () => {
  const hold = holdCircle(layout, { column: "support_left", kind: "hold", beat: 3, duration: 1 });
  assert.equal(hold.cx, layout.columns.support_left.cx);
  assert.ok(hold.cy < beatToY(layout, 3) && hold.cy > beatToY(layout, 3.5));
  const path = pathBracket(layout, { column: "path", kind: "path", beat: 0, duration: 4, path: "straight" });
  const b = bounds(path.points);
  assert.ok(b.x0 >= layout.columns.path.x0 && b.x1 <= layout.columns.path.x1);
  assert.equal(b.y1, beatToY(layout, 0) - 2);
  assert.equal(b.y0, beatToY(layout, 4) + 2);
  assert.equal(path.bow, null);
  const curved = pathBracket(layout, { column: "path", kind: "path", beat: 0, duration: 4, path: "curved", amount_deg: 90 });
  assert.match(curved.bow, /^M [\d.]+ [\d.]+ Q /);
  assert.equal(pathLabel({ path: "curved", amount_deg: 90 }), "90° R");
  assert.equal(pathLabel({ path: "curved", amount_deg: -45 }), "45° L");
  assert.equal(pathLabel({ path: "straight" }), "");
  const tag = stepSizeBox(layout, { column: "support_right", kind: "step_size", beat: 0, size: 1 });
  assert.ok(tag.x0 < layout.columns.support_right.x1 && tag.x1 > layout.columns.support_right.x1); // outside edge
  const leftTag = stepSizeBox(layout, { column: "support_left", kind: "step_size", beat: 0, size: 1 });
  assert.ok(leftTag.x0 < layout.columns.support_left.x0 && leftTag.x1 > layout.columns.support_left.x0);
  assert.equal(tag.y1, beatToY(layout, 0) - 1);
  assert.equal(stepSizeLabel(2), "+2");
  assert.equal(stepSizeLabel(-3), "−3");
  assert.equal(stepSizeLabel(0), "0");
});

test("tooltips name kind, direction, level, part, column, beat and duration", () => {
  assert.equal(
    symbolTitle({ column: "arm_left", kind: "direction", beat: 0, duration: 2, direction: "left_forward", level: "high", part: "hand" }),
    "Direction: left forward, high level · left arm, hand · beat 0, 2 beats",
  );
  assert.equal(
    symbolTitle({ column: "support_right", kind: "direction", beat: 1.5, duration: 1, direction: "forward", level: "middle" }),
    "Direction: forward, middle level · right support · beat 1.5, 1 beat",
  );
  assert.equal(
    symbolTitle({ column: "body", kind: "turn", beat: 2, duration: 1, turn: "right", amount: 0.25 }),
    "Turn: right ¼ (90°) · body · beat 2, 1 beat",
  );
  assert.equal(symbolTitle({ column: "support_right", kind: "hold", beat: 3, duration: 1 }), "Hold · right support · beat 3, 1 beat");
  assert.equal(
    symbolTitle({ column: "path", kind: "path", beat: 0, duration: 4, path: "curved", amount_deg: 90 }),
    "Path: curved 90° to the right · path · beat 0, 4 beats",
  );
  assert.equal(
    symbolTitle({ column: "support_right", kind: "step_size", beat: 0, size: 1 }),
    "Step size: +1 (a little longer) · right support · beat 0",
  );
  assert.equal(num(0.1 + 0.2), "0.3");
});
