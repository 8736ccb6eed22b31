// Unit tests of the Walk page's path maths and wording (static/js/walk/path.js,
// static/js/walk/format.js): node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { measureRows, measuresText, parametersText, pathSummary } from "../../static/js/walk/format.js";
import {
  HALF_M, PRESETS, groundTrack, labelStep, mapView, pathLength, pathProblem, pointAt, presetPoints,
  ribbon, snap, snapPoint, toGround, toScreen, walkEstimate,
} from "../../static/js/walk/path.js";

const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} ≉ ${b}`);

test("length and duration of a path at a speed, or for a set time", () => {
  const points = [[0, 0], [0, 3], [4, 3], [4, 4]];
  assert.equal(pathLength(points), 8);
  assert.equal(pathLength([[1, 1]]), 0);
  assert.equal(pathLength([]), 0);
  assert.deepEqual(walkEstimate(points, 2), { length: 8, seconds: 4, distance: 8 });
  assert.deepEqual(walkEstimate(points, 2, 10), { length: 8, seconds: 10, distance: 20 });
});

test("the presets: Straight is 10 m, all fit on the map and start going somewhere", () => {
  close(pathLength(presetPoints("straight")), 10);
  close(pathLength(presetPoints("curve")), (7 * Math.PI) / 2, 0.05); // a quarter circle, r 7 m
  for (const name of Object.keys(PRESETS)) {
    const points = presetPoints(name);
    assert.ok(points.length >= 2 && pathProblem(points) === "", name);
    for (const [x, z] of points) assert.ok(Math.abs(x) <= HALF_M && Math.abs(z) <= HALF_M, name);
  }
  const copy = presetPoints("straight");
  copy[0][0] = 99;
  assert.equal(PRESETS.straight.points[0][0], 0); // a copy, not the preset
  assert.throws(() => presetPoints("spiral"), /unknown path preset/);
});

test("the curve starts up the map (+z) and turns to the walker's right (-x)", () => {
  const points = presetPoints("curve");
  const [[x0, z0], [x1, z1]] = points;
  assert.ok(z1 > z0 && Math.abs(x1 - x0) < z1 - z0);
  assert.ok(points.at(-1)[0] < -6);
});

test("screen ↔ ground: +z up the screen, +x to the left, and back", () => {
  const view = mapView(500, 500);
  const [ox, oy] = toScreen(view, [0, 0]);
  const [ux, uy] = toScreen(view, [0, 1]);
  const [lx, ly] = toScreen(view, [1, 0]);
  assert.ok(uy < oy && ux === ox); // +z is up
  assert.ok(lx < ox && ly === oy); // +x is left
  close(oy - uy, view.scale);
  for (const point of [[0, 0], [3.2, -7.5], [-10, 10]]) {
    const [px, py] = toScreen(view, point);
    const [x, z] = toGround(view, px, py);
    close(x, point[0], 1e-9);
    close(z, point[1], 1e-9);
  }
  // The ±10 m square fits inside the canvas, labels' margins included.
  for (const corner of [[-10, -10], [10, 10]]) {
    const [px, py] = toScreen(view, corner);
    assert.ok(px > 0 && px < 500 && py > 0 && py < 500, String(corner));
  }
  // Seen from above, not mirrored: turning from +z towards -x turns clockwise on screen.
  const cross = (ux - ox) * (toScreen(view, [-1, 0])[1] - oy) - (uy - oy) * (toScreen(view, [-1, 0])[0] - ox);
  assert.ok(cross > 0);
});

test("snapping to 10 cm, kept on the map, no -0", () => {
  assert.equal(snap(1.234), 1.2);
  assert.equal(snap(-0.04), 0);
  assert.ok(Object.is(snap(-0.04), 0));
  assert.equal(snap(0.15000001), 0.2);
  assert.deepEqual(snapPoint([12.3, -0.26]), [10, -0.3]);
  assert.deepEqual(snapPoint([-30, 4.04]), [-10, 4]);
});

test("a click near a point grabs the nearest one; elsewhere none", () => {
  const view = mapView(400, 400);
  const points = [[0, 0], [0, 0.3], [5, 5]];
  const [px, py] = toScreen(view, [0, 0.25]);
  assert.equal(pointAt(view, points, px, py), 1);
  const [qx, qy] = toScreen(view, [-5, -5]);
  assert.equal(pointAt(view, points, qx, qy), -1);
  assert.equal(pointAt(view, [], qx, qy), -1);
});

test("labels every metre when there is room", () => {
  assert.equal(labelStep(22), 1);
  assert.equal(labelStep(12), 2);
  assert.equal(labelStep(4), 5);
});

test("what stops a walk: fewer than two points, or all in one place", () => {
  assert.match(pathProblem([]), /at least two points/);
  assert.match(pathProblem([[1, 1]]), /at least two points/);
  assert.match(pathProblem([[1, 1], [1, 1]]), /one place/);
  assert.equal(pathProblem([[1, 1], [1, 2]]), "");
});

test("the 3-D ribbon: two triangles per segment, the path's width, on the ground", () => {
  const out = ribbon([[0, 0], [0, 2], [2, 2]], 0.05, 0.01);
  assert.equal(out.length, 2 * 18);
  for (let i = 1; i < out.length; i += 3) close(out[i], 0.01, 1e-7);
  const xs = [...out.subarray(0, 18)].filter((_, i) => i % 3 === 0);
  close(Math.max(...xs) - Math.min(...xs), 0.1, 1e-7); // along z: 0.05 either side in x
  assert.equal(ribbon([[0, 0]], 0.05).length, 0);
  assert.ok(ribbon([[1, 1], [1, 1]], 0.05).every(Number.isFinite));
});

test("the ground track of a joint over the frames", () => {
  const arrays = { frames: 2, joints: 2, positions: [0, 1, 0, 5, 1, 6, 1, 1, 2, 7, 1, 8] };
  assert.deepEqual(groundTrack(arrays, 1), [[5, 6], [7, 8]]);
});

test("wording: parameters, measures with units, the editor's summary", () => {
  const parameters = { path: [[0, 0], [0, 10]], speed_mps: 1.3, seconds: null, mode: "cubic", foot_lock: true };
  assert.equal(parametersText(parameters), "2 points · 10.00 m · 1.30 m/s · to the path's end · cubic · foot lock on");
  assert.match(parametersText({ ...parameters, seconds: 8, foot_lock: false }), /for 8\.0 s · cubic · foot lock off$/);
  const result = {
    frames: 461, fps: 60, path_rms_m: 0.1234, foot_slide_mps: 0.0123, foot_slide_raw_mps: 0.08,
    end_distance_m: 0.2, phase_drift_rad: 0.05, cycles_per_s: 0.93, max_joint_speed_deg_s: 350.4,
  };
  assert.equal(measuresText(result), "path RMS 0.123 m · foot slide 0.012 m/s · 461 frames at 60 fps");
  assert.equal(measuresText({}), "");
  const rows = Object.fromEntries(measureRows(result, parameters).map(([label, value]) => [label, value]));
  assert.equal(rows["Path RMS"], "0.123 m");
  assert.equal(rows["Foot slide"], "0.012 m/s");
  assert.equal(rows["Foot slide before the lock"], "0.080 m/s");
  assert.equal(rows["Phase drift"], "0.050 rad");
  assert.equal(rows.Cadence, "0.93 cycles/s");
  assert.equal(rows["Fastest joint"], "350 °/s");
  assert.equal(rows["Under the ground"], "—"); // not in this result: an older walk
  const deep = Object.fromEntries(measureRows({ penetration_worst_m: 0.0123 }, {}));
  assert.equal(deep["Under the ground"], "1.2 cm");
  assert.equal(rows.Frames, "461 at 60.00 fps");
  assert.equal(rows.Path, "10.00 m");
  assert.equal(measureRows({ foot_slide_raw_mps: null }, {})[2][1], "—");
  assert.match(pathSummary([], 1.3), /No path yet/);
  assert.equal(pathSummary([[0, 0], [0, 6.5]], 1.3), "2 points · 6.50 m · about 5.0 s at 1.30 m/s");
  assert.equal(pathSummary([[0, 0], [0, 6.5]], 1.3, 8), "2 points · 6.50 m · 8.0 s at 1.30 m/s ≈ 10.40 m (more than the path)");
});
