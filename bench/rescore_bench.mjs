// Speed of the browser's re-scoring (static/js/analysis/rescore.js) on a 10,000-frame
// clip: what an α/θ slider or the measure selector costs per change (target < 16 ms,
// one animation frame).
//
// The clip is real-ish: the sent curves of CMU 131_02 (tests/fixtures/rescore/
// clip_cmu_131_02.json, 120 Hz, start-walk-stop) tiled forwards then backwards in time
// until 10,000 frames, so the curves never jump. Each setting cycles through the α, θ,
// measure and next-clip changes a user makes; 20 warm-up runs, then 200 timed ones.
//
// --json prints one JSON object instead (for bench/rescore_bench.py, which times the same
// cycle in headless Chromium and in motioncore): the settings, every timed sample, a
// fingerprint of the tiled curves (to check that Python tiled the same) and, per
// setting, the candidates, chosen cut, frames passing each condition and cut frames.
//
//     node bench/rescore_bench.mjs [--frames 10000] [--runs 200] [--json]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { rescore } from "../static/js/analysis/rescore.js";

const TARGET_MS = 16;
const WARMUP_RUNS = 20;
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const FRAMES = option("--frames", 10_000);
const RUNS = option("--runs", 200);
const JSON_OUTPUT = args.includes("--json");

/** Frame i of the tiled clip: forwards, backwards, forwards, … through the source. */
function sourceFrame(i, n) {
  const period = 2 * (n - 1);
  const k = i % period;
  return k < n ? k : period - k;
}

function tiledCurves(curves, n) {
  const src = curves.speed_m_per_s.length;
  const out = {};
  for (const [key, values] of Object.entries(curves)) {
    const width = values.length / src;
    const tiled = new Array(n * width);
    for (let i = 0; i < n; i += 1) {
      const j = sourceFrame(i, src);
      for (let c = 0; c < width; c += 1) tiled[i * width + c] = values[j * width + c];
    }
    out[key] = tiled;
  }
  return out;
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const SOURCE = new URL("../tests/fixtures/rescore/clip_cmu_131_02.json", import.meta.url);
const fixture = JSON.parse(readFileSync(SOURCE, "utf8"));
const curves = tiledCurves(fixture.curves, FRAMES);
const settings = [
  { alpha: 0.6, thetaMaxDeg: 75, measure: "speed", nextLocalVelocity: null },
  { alpha: 0.55, thetaMaxDeg: 60, measure: "speed", nextLocalVelocity: [0.05, 0, 1.1] },
  { alpha: 0.7, thetaMaxDeg: 90, measure: "energy", nextLocalVelocity: [0.05, 0, 1.1] },
  { alpha: 0.65, thetaMaxDeg: 80, measure: "pca", nextLocalVelocity: [-0.3, 0, 0.9] },
];

function timed() {
  const samples = [];
  let candidates = 0;
  for (let r = 0; r < WARMUP_RUNS + RUNS; r += 1) {
    const setting = settings[r % settings.length];
    const t0 = performance.now();
    const out = rescore({ curves, fps: fixture.fps, periodic: fixture.periodic, ...setting });
    const ms = performance.now() - t0;
    candidates += out.candidates.length;
    if (r >= WARMUP_RUNS) samples.push(ms);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const perRun = candidates / (WARMUP_RUNS + RUNS);
  return {
    median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), candidates: perRun, samples,
  };
}

/** Per key: [key, length, nulls, Σ value·(i mod 7 + 1)] in index order (null as 0). */
function fingerprint(tiled) {
  return Object.keys(tiled).sort().map((key) => {
    let sum = 0;
    let nulls = 0;
    tiled[key].forEach((v, i) => {
      if (v === null) nulls += 1;
      else sum += v * ((i % 7) + 1);
    });
    return [key, tiled[key].length, nulls, sum];
  });
}

/** What bench/rescore_bench.py compares with motioncore, for one setting. */
function summary(out) {
  return {
    candidates: out.candidates.length,
    best: out.best === null ? -1 : out.best.frame,
    order: Array.from(out.mtp.order),
    frames_passing: out.frames_passing,
    cuts: out.cuts.frames,
    reason: out.reason,
  };
}

if (JSON_OUTPUT) {
  const t = timed();
  const base = { curves, fps: fixture.fps, periodic: fixture.periodic };
  console.log(JSON.stringify({
    node: process.version,
    frames: FRAMES,
    warmup: WARMUP_RUNS,
    runs: RUNS,
    fps: fixture.fps,
    periodic: fixture.periodic,
    settings,
    fingerprint: fingerprint(curves),
    samples_ms: t.samples,
    median_ms: t.median,
    p95_ms: t.p95,
    candidates_per_run: t.candidates,
    results: settings.map((setting) => summary(rescore({ ...base, ...setting }))),
  }));
  process.exit(0);
}

console.log(`rescore: ${FRAMES} frames (CMU 131_02 tiled), ${RUNS} runs, node ${process.version}`);
const t = timed();
const pass = t.p95 < TARGET_MS;
console.log(
  `median ${t.median.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms ` +
    `(${t.candidates.toFixed(0)} candidates with breakdowns per run): ` +
    `${pass ? "PASS" : "FAIL"} (p95 < ${TARGET_MS} ms)`,
);
process.exitCode = pass ? 0 : 1;
