// Parity of the browser's re-scoring (static/js/analysis/) with motioncore, on the
// fixtures of tests/fixtures/make_rescore_fixtures.py, and its edge cases.
// node --test tests/js/
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import {
  CONDITIONS, REVERSAL_ADVICE, detect, extremumDistance, formatG3, slopePerS, unitPeakFrame,
} from "../../static/js/analysis/mtp.js";
import { localMaxima, peaks, prominences } from "../../static/js/analysis/peaks.js";
import { PHASES, label, units } from "../../static/js/analysis/phases.js";
import {
  CURVE_UNITS, MIN_PEAK, alignedFrames, curveOf, nextVelocityPerFrame, rescore,
} from "../../static/js/analysis/rescore.js";

const FIXTURES = new URL("../fixtures/rescore/", import.meta.url);
const REL_TOL = 1e-9;
const load = (name) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));
/** The seed's α and θ_max (motioncore.parameters; the library takes them, it has no defaults). */
const SEED = { alpha: 0.6, thetaMaxDeg: 75 };
const clipFixtures = readdirSync(FIXTURES).filter((f) => /^(clip|curve)_.*\.json$/.test(f)).sort();

/** Deep equality: numbers within REL_TOL relative (absolute near zero), all else exact. */
function assertClose(actual, expected, path = "$") {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", `${path}: ${actual} is not a number`);
    const scale = Math.max(Math.abs(expected), Math.abs(actual), 1e-300);
    assert.ok(actual === expected || Math.abs(actual - expected) <= REL_TOL * Math.max(scale, 1e-12),
      `${path}: ${actual} != ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((e, i) => assertClose(actual[i], e, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === "object") {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${path}: keys`);
    for (const key of Object.keys(expected)) assertClose(actual[key], expected[key], `${path}.${key}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

const bits = (row) => Array.from(row, (x) => (x ? "1" : "0")).join("");

test("there are clip and curve fixtures", () => {
  assert.ok(clipFixtures.filter((f) => f.startsWith("clip_")).length >= 3);
  assert.ok(clipFixtures.filter((f) => f.startsWith("curve_")).length >= 6);
});

for (const file of clipFixtures) {
  const fx = load(file);
  fx.cases.forEach((c, i) => {
    const next = c.next_velocity_local_m_per_s !== null;
    test(`${file} case ${i}: ${c.measure} α=${c.alpha} θ=${c.theta_max_deg} next=${next}`, () => {
      const e = c.expected;
      const out = rescore({
        curves: fx.curves, fps: fx.fps, alpha: c.alpha, thetaMaxDeg: c.theta_max_deg, measure: c.measure,
        nextLocalVelocity: c.next_velocity_local_m_per_s, periodic: fx.periodic,
      });
      assert.deepEqual(Array.from(peaks(curveOf(fx.curves, c.measure))), e.peaks, "peaks");
      assert.deepEqual(out.mtp.passed.map(bits), e.passed, "pass rows");
      assert.deepEqual(Array.from(out.mtp.order), e.order, "order");
      assert.deepEqual(Array.from(out.labels.codes), e.codes, "phase codes");
      assert.equal(out.reason, e.reason);
      assert.equal(out.recommendation, e.recommendation);
      assert.deepEqual(out.frames_passing, e.frames_passing);
      assertClose(out.parameters, e.parameters, "parameters");
      assertClose(out.best, e.best, "best");
      for (const [frame, breakdown] of Object.entries(e.breakdowns)) {
        assertClose(out.mtp.breakdown(Number(frame)), breakdown, `breakdown(${frame})`);
      }
      const phases = out.labels.asDict();
      assertClose(phases.units, e.units, "units");
      assertClose(phases.runs, e.runs, "runs");
      assertClose(phases.fractions, e.fractions, "fractions");
      assertClose(out.cuts, e.cuts, "cuts");
      assert.deepEqual(out.candidates.map((c) => c.frame), e.order);
    });
  });
}

test("scipy find_peaks (local maxima, plateau middles, prominences) and mtp.peaks", () => {
  for (const c of load("peaks.json")) {
    const x = Float64Array.from(c.x);
    const idx = localMaxima(x);
    assert.deepEqual(Array.from(idx), c.peaks, `peaks of ${c.x}`);
    assert.deepEqual(Array.from(prominences(x, idx)), c.prominences, `prominences of ${c.x}`);
    for (const [ratio, expected] of Object.entries(c.mtp_peaks)) {
      assert.deepEqual(Array.from(peaks(x, Number(ratio))), expected, `mtp.peaks(${c.x}, ${ratio})`);
    }
  }
});

test("Python's .3g formatting", () => {
  for (const { x, text } of load("format_3g.json")) {
    assert.equal(formatG3(x), text, `format(${x}, ".3g")`);
  }
  assert.equal(formatG3(NaN), "nan");
  assert.equal(formatG3(-Infinity), "-inf");
});

test("constants copied from motioncore", () => {
  const k = load("constants.json");
  assert.deepEqual({ ...MIN_PEAK }, k.min_peak);
  assert.deepEqual({ ...CURVE_UNITS }, k.curve_units);
  assert.deepEqual([...CONDITIONS], k.conditions);
  assert.deepEqual([...PHASES], k.phases);
  assert.equal(REVERSAL_ADVICE, k.reversal_advice);
});

test("plateau peaks: the middle, rounded down; edges of the clip may be peaks", () => {
  assert.deepEqual(Array.from(localMaxima(Float64Array.of(0, 1, 1, 0))), [1]);
  assert.deepEqual(Array.from(localMaxima(Float64Array.of(0, 1, 1, 1, 0))), [2]);
  // a plateau that rises on is no peak
  assert.deepEqual(Array.from(localMaxima(Float64Array.of(0, 1, 1, 2, 0))), [3]);
  assert.deepEqual(Array.from(peaks(Float64Array.of(3, 2, 1, 2, 1))), [0, 3]);
  assert.deepEqual(Array.from(peaks(Float64Array.of(0, 0, 0, 0))), [1]); // a flat curve is one unit
});

test("np.gradient slope and extremum distance", () => {
  assert.deepEqual(Array.from(slopePerS(Float64Array.of(0, 1, 4, 9), 10)), [10, 20, 40, 50]);
  const curve = Float64Array.of(0, 1, 2, 3, 2, 2, 1, 0); // a flat counts as an extremum
  assert.deepEqual(Array.from(extremumDistance(curve)), [0, 1, 1, 0, 0, 0, 1, 0]);
});

test("unit peaks: the valley between two peaks starts the next unit", () => {
  const c = Float64Array.of(0, 1, 0.5, 0.2, 0.6, 0.1);
  assert.deepEqual(Array.from(unitPeakFrame(c, Int32Array.of(1, 4))), [-1, 1, 1, -1, 4, 4]);
});

test("a frame at exactly alpha of the peak is still transition (motioncore's codes)", () => {
  const codes = label([0, 0.5, 1, 0.6, 0.3, 0.1, 0], 30, { alpha: 0.6 }).codes;
  assert.deepEqual(Array.from(codes), [0, 0, 1, 2, 3, 3, 3]);
});

test("next velocity turns with each frame's heading about +Y", () => {
  const v = nextVelocityPerFrame([0, Math.PI / 2, Math.PI], [0, 0, 1]);
  const expected = [0, 0, 1, 1, 0, 0, 0, 0, -1];
  expected.forEach((x, i) => assert.ok(Math.abs(v[i] - x) < 1e-15, `${i}: ${v[i]}`));
});

test("phase-aligned frames: one per cycle, and a defined run starting on the target", () => {
  const phase = [null, 3.0, 4.0, 5.0, 6.0, 0.7, 1.7, 2.7, 3.7, null, 3.5, 4.5];
  assert.deepEqual(Array.from(alignedFrames(phase, 3.5)), [2, 8, 10]);
  assert.deepEqual(Array.from(alignedFrames(phase, 3.5 + 2 * Math.PI)), [2, 8, 10]);
});

test("direction skipped without a next clip; a zero velocity fails it", () => {
  const curve = Array.from({ length: 31 }, (_, i) => Math.sin((Math.PI * i) / 30));
  const velocity = curve.flatMap((s, i) => (i === 20 ? [0, 0, 0] : [0, 0, s]));
  const skipped = detect(curve, velocity, 30, SEED);
  assert.equal(skipped.breakdown(20).direction.skipped, true);
  assert.equal(skipped.breakdown(20).direction.value, null);
  assert.ok(skipped.order.includes(20));
  const checked = detect(curve, velocity, 30, { ...SEED, nextVelocity: [0, 0, 2] });
  assert.equal(checked.breakdown(20).direction.passed, false);
  assert.ok(!checked.order.includes(20));
  assert.equal(checked.breakdown(21).direction.value, 0);
});

test("bad input throws like motioncore", () => {
  assert.throws(() => detect([1, 2], [0, 0, 0, 0, 0, 0], 30, SEED), RangeError);
  assert.throws(() => detect([1, 2, 1], [0, 0, 0], 30, SEED), RangeError);
  assert.throws(() => detect([1, 2, 1], new Array(9).fill(0), 0, SEED), RangeError);
  const still = new Array(9).fill(0);
  assert.throws(() => detect([1, 2, 1], still, 30, { ...SEED, nextVelocity: [1, 0] }), RangeError);
  assert.throws(() => label([1, -2, 1], 30, SEED), RangeError);
  assert.throws(() => label([1, NaN, 1], 30, SEED), RangeError);
  assert.throws(() => label([1, 2, 1], 30, { alpha: 0.95 }), RangeError);
  assert.throws(() => units([1, 2], 30), RangeError);
  assert.throws(() => curveOf({}, "jerk"), RangeError);
});

test("inputs are not mutated", () => {
  const curves = load("curve_pendulum.json").curves;
  const before = JSON.stringify(curves);
  rescore({ curves, fps: 60, alpha: 0.6, thetaMaxDeg: 75, measure: "pca", nextLocalVelocity: [1, 0, 0], periodic: true });
  assert.equal(JSON.stringify(curves), before);
});

test("typed-array inputs give the same result as plain arrays", () => {
  const fx = load("clip_walk60.json");
  const typed = Object.fromEntries(
    Object.entries(fx.curves).map(([k, v]) => [k, Float64Array.from(v, (x) => (x === null ? NaN : x))]),
  );
  const args = { fps: fx.fps, alpha: 0.55, thetaMaxDeg: 80, measure: /** @type {const} */ ("speed"), periodic: fx.periodic };
  args.nextLocalVelocity = [0.1, 0, 1];
  const a = rescore({ curves: fx.curves, ...args });
  const b = rescore({ curves: typed, ...args });
  assert.deepEqual(Array.from(b.mtp.order), Array.from(a.mtp.order));
  assert.deepEqual(b.cuts, a.cuts);
  assert.deepEqual(Array.from(b.labels.codes), Array.from(a.labels.codes));
});

test("α above the steady threshold (0.9) raises it to α instead of failing", () => {
  const n = 200;
  const speed = Array.from({ length: n }, (_, f) => Math.sin((Math.PI * f) / (n - 1)));
  const curves = {
    speed_m_per_s: speed, energy_j_per_kg: speed, pca_m_per_s: speed,
    gait_phase_rad: new Array(n).fill(null),
    com_velocity_m_per_s: speed.flatMap((v) => [0, 0, v]), heading_rad: new Array(n).fill(0),
  };
  const result = rescore({ curves, fps: 100, alpha: 0.95, thetaMaxDeg: 75, measure: "speed" });
  assert.equal(result.labels.steadyRatio, 0.95);
  assert.ok(result.candidates.every((c) => c.breakdown.retention.value >= 0.95));
});
