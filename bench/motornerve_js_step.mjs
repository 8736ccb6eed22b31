// Speed of MotorNerve's browser kernel (static/js/motornerve/network.js) in node: one
// character step, Stepper.predict then Stepper.push of the predicted state, on the
// shipped network size (network.Shape(): 2.89 M parameters). The seed's budget is a
// 30 Hz step in well under one 60 Hz frame (16.7 ms).
//
// The weights are random (a tiny deterministic PRNG here, uniform ±scale/√fan_in like
// network.random_weights, unit normalisation, output_std 0.01): no fixture file. The
// intent changes every 15 steps (so the intent encoder's cache is both hit and missed,
// as when a user steers). 200 warm-up steps, then 2000 timed ones; prints the median,
// quartiles and the 99th percentile in µs.
//
//     node bench/motornerve_js_step.mjs [--steps 2000] [--warmup 200] [--json]
import { performance } from "node:perf_hooks";

import { FORMAT, MotorNerveNetwork, Stepper, parameterShapes } from "../static/js/motornerve/network.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const STEPS = option("--steps", 2000);
const WARMUP = option("--warmup", 200);
const JSON_OUTPUT = args.includes("--json");
/** network.Shape() (motioncore/motornerve/network.py). */
const SHAPE = { state: 130, intent: 12, channels: 480, kernel: 5, gru: 128, intent_hidden: [256, 512], fusion: [512, 512, 256] };
/** network.HISTORY: the only runtime constant the stepper reads. */
const HISTORY = 15;

/** mulberry32: a tiny deterministic PRNG, uniform in [0, 1). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A packed manifest and blob of random weights of `shape` (packed.pack's layout). */
function randomNetwork(shape, seed = 1, scale = 1.0) {
  const random = prng(seed);
  const entries = [];
  let offset = 0;
  const add = (list, name, dims) => {
    const length = dims.reduce((a, b) => a * b, 1);
    list.push({ name, shape: dims, offset, length });
    offset += Math.ceil(length / 4) * 4;
  };
  const tensors = [];
  for (const [name, dims] of parameterShapes(shape)) add(tensors, name, dims);
  const norms = [];
  for (const name of ["state_mean", "state_std", "intent_mean", "intent_std", "output_mean", "output_std"]) {
    add(norms, name, [name.startsWith("intent") ? shape.intent : shape.state]);
  }
  const buffer = new ArrayBuffer(4 * offset);
  for (const e of tensors) {
    const fanIn = e.shape.length === 1 ? e.shape[0] : e.shape.slice(1).reduce((a, b) => a * b, 1);
    const bound = scale / Math.sqrt(fanIn);
    const v = new Float32Array(buffer, 4 * e.offset, e.length);
    for (let i = 0; i < v.length; i += 1) v[i] = (2 * random() - 1) * bound;
  }
  for (const e of norms) {
    const value = e.name.endsWith("_mean") ? 0 : e.name === "output_std" ? 0.01 : 1;
    new Float32Array(buffer, 4 * e.offset, e.length).fill(value);
  }
  const manifest = { format: FORMAT, shape, tensors, norms, runtime: { HISTORY } };
  return { manifest: /** @type {any} */ (manifest), buffer };
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const { manifest, buffer } = randomNetwork(SHAPE);
const network = new MotorNerveNetwork(manifest, buffer);
const stepper = new Stepper(network);
const start = new Float64Array(SHAPE.state);
for (let j = 0; j < 21; j += 1) start.set([1, 0, 0, 0, 1, 0], 6 * j);
start[129] = 0.95;
stepper.fill(start);
const random = prng(7);
const intents = Array.from({ length: 16 }, () => Float64Array.from({ length: SHAPE.intent }, () => 2 * random() - 1));
const next = new Float64Array(SHAPE.state);

function step(t) {
  const out = stepper.predict(intents[Math.floor(t / 15) % intents.length]);
  next.set(out.state);
  stepper.push(next);
}

for (let t = 0; t < WARMUP; t += 1) step(t);
const samples = new Float64Array(STEPS);
for (let t = 0; t < STEPS; t += 1) {
  const t0 = performance.now();
  step(WARMUP + t);
  samples[t] = (performance.now() - t0) * 1000;
}
const sorted = Array.from(samples).sort((a, b) => a - b);
const result = {
  parameters: network.parameterCount,
  steps: STEPS,
  warmup: WARMUP,
  median_us: quantile(sorted, 0.5),
  p25_us: quantile(sorted, 0.25),
  p75_us: quantile(sorted, 0.75),
  p99_us: quantile(sorted, 0.99),
  node: process.version,
  finite: Array.from(next).every(Number.isFinite),
};
if (JSON_OUTPUT) {
  console.log(JSON.stringify(result));
} else {
  console.log(`MotorNerve step (predict + push), ${(result.parameters / 1e6).toFixed(2)} M parameters, node ${result.node}`);
  console.log(`  median ${result.median_us.toFixed(0)} µs  (p25 ${result.p25_us.toFixed(0)}, p75 ${result.p75_us.toFixed(0)}, p99 ${result.p99_us.toFixed(0)}) over ${STEPS} steps after ${WARMUP} warm-up`);
}
