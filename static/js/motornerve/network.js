// @ts-check
// MotorNerve's network in the browser: a port of motioncore/motornerve/network.py
// (Weights.forward's layers and Stepper's incremental runtime) over the packed weights
// of motioncore/motornerve/packed.py (a JSON manifest and a little-endian float32 blob).
//
// * MotorNerveNetwork copies the blob once into the memory of its kernel (kernel.js: a
//   hand-written WebAssembly SIMD y = W x + b) and views each tensor there. Every weight
//   keeps PyTorch's row-major layout, [out, in] for the linear layers and GRUs and
//   [out, in, k] for the convolutions, so each output is one contiguous dot product:
//   nothing needs transposing at load, because the convolution windows are kept here in
//   the weights' [in, k] order (a push shifts k·in numbers, against the k·in·out
//   multiply-adds of its column).
// * Stepper runs one character step by step exactly as network.Stepper does: push() a
//   raw state (normalise it, compute the new first-convolution column from the last k
//   normalised states, the new second-convolution column from the last k of those, and
//   both GRU directions' input projections of it); predict() an intent (the forward GRU
//   over the cached projections, the backward GRU over them in reverse, the intent
//   encoder, cached while the intent stays the same, fusion and both heads) gives the
//   next raw state and the feet's contact probabilities. Every buffer is allocated in
//   the constructor; push() and predict() allocate nothing.
//
// Numbers: the weights, activations and sums are float32 as in numpy (whose BLAS sums
// in another order), so the two agree to about 1e-6.
// Plain ES module, no node-only API: it loads in a browser as it does in node's tests
// (tests/js/motornerve.test.mjs) and benchmark (bench/motornerve_js_step.mjs).

import { AffineKernel } from "./kernel.js";

/** The manifest's `format` this module reads. */
export const FORMAT = "motornerve-f32-v1";
/** The normalisation vectors, in the manifest's `norms`. */
export const NORMS = /** @type {const} */ (["state_mean", "state_std", "intent_mean", "intent_std", "output_mean", "output_std"]);
/** The intent encoder's output width (fixed by the architecture: network.parameter_shapes). */
export const INTENT_CODE = 256;

/**
 * @typedef {object} Shape network.Shape: sizes of the state, intent, convolutions, GRU
 * @property {number} state
 * @property {number} intent
 * @property {number} channels
 * @property {number} kernel
 * @property {number} gru units per direction
 * @property {number[]} intent_hidden the intent encoder's two hidden widths
 * @property {number[]} fusion the three fusion widths
 * @property {boolean} [residual] whether the motion head gives the change (the default of weights
 *   saved without it) or the next state
 */
/**
 * @typedef {object} TensorEntry where one tensor lies in the blob (in float32 numbers)
 * @property {string} name
 * @property {number[]} shape
 * @property {number} offset
 * @property {number} length
 */
/**
 * @typedef {object} Manifest packed.pack's manifest
 * @property {string} format
 * @property {Shape} shape
 * @property {TensorEntry[]} tensors
 * @property {TensorEntry[]} norms
 * @property {number[]} [start_state]
 * @property {import("./controller.js").Runtime} runtime the constants of runtime.py, state.py, intent.py
 * @property {Record<string, unknown>} [meta]
 */
/** @typedef {Record<(typeof NORMS)[number], Float32Array>} Norms */
/**
 * @typedef {object} Prediction what Stepper.predict gives (its own buffers, overwritten by the next call)
 * @property {Float64Array} state the next raw state [S]
 * @property {Float64Array} contacts the feet's contact probabilities [2] (left, right)
 */

/**
 * Every parameter's PyTorch name and shape for a network of `shape`, in the order
 * network.parameter_shapes lists them.
 * @param {Shape} shape
 * @returns {Map<string, number[]>}
 */
export function parameterShapes(shape) {
  const { channels: c, kernel: k, gru: g } = shape;
  /** @type {Map<string, number[]>} */
  const out = new Map([
    ["conv1.weight", [c, shape.state, k]], ["conv1.bias", [c]],
    ["conv2.weight", [c, c, k]], ["conv2.bias", [c]],
  ]);
  for (const suffix of ["", "_reverse"]) {
    out.set(`gru.weight_ih_l0${suffix}`, [3 * g, c]);
    out.set(`gru.weight_hh_l0${suffix}`, [3 * g, g]);
    out.set(`gru.bias_ih_l0${suffix}`, [3 * g]);
    out.set(`gru.bias_hh_l0${suffix}`, [3 * g]);
  }
  const widths = {
    intent: [shape.intent, ...shape.intent_hidden, INTENT_CODE],
    fusion: [2 * g + INTENT_CODE, ...shape.fusion],
  };
  for (const [name, sizes] of Object.entries(widths)) {
    for (let layer = 0; layer + 1 < sizes.length; layer += 1) {
      out.set(`${name}.${2 * layer}.weight`, [sizes[layer + 1], sizes[layer]]);
      out.set(`${name}.${2 * layer}.bias`, [sizes[layer + 1]]);
    }
  }
  const last = shape.fusion[shape.fusion.length - 1];
  out.set("motion.weight", [shape.state, last]);
  out.set("motion.bias", [shape.state]);
  out.set("contact.weight", [2, last]);
  out.set("contact.bias", [2]);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * A view of one manifest entry in the blob's numbers, checked against them and `dims`.
 * @param {TensorEntry} entry
 * @param {Float32Array} blob the blob's float32 numbers (in the kernel's memory)
 * @param {number[] | undefined} dims the shape it must have
 */
function view(entry, blob, dims) {
  const { name, shape, offset, length } = entry;
  if (!dims) throw new Error(`MotorNerve: unexpected tensor ${name}`);
  if (shape.length !== dims.length || shape.some((d, i) => d !== dims[i])) {
    throw new Error(`MotorNerve: ${name} is [${shape}], not [${dims}]`);
  }
  const size = dims.reduce((a, b) => a * b, 1);
  if (length !== size || !Number.isInteger(offset) || offset < 0 || offset % 4 !== 0) {
    throw new Error(`MotorNerve: ${name} has offset ${offset} and length ${length}`);
  }
  if (offset + length > blob.length) {
    throw new Error(`MotorNerve: ${name} runs past the blob's ${4 * blob.length} bytes`);
  }
  return blob.subarray(offset, offset + length);
}

/**
 * The largest input and output of any product of a network of `shape`.
 * @param {Shape} shape
 */
function productSizes(shape) {
  const { state: s, intent, channels: c, kernel: k, gru: g } = shape;
  const widths = [...shape.intent_hidden, INTENT_CODE, ...shape.fusion];
  return {
    inputs: Math.max(s * k, c * k, c, g, intent, 2 * g + INTENT_CODE, ...widths),
    outputs: Math.max(c, 3 * g, s, 2, ...widths),
  };
}

/** The network: the manifest, its kernel and views of the blob's tensors in the kernel's memory. */
export class MotorNerveNetwork {
  /**
   * @param {Manifest} manifest packed.pack's manifest (parsed JSON)
   * @param {ArrayBuffer} buffer the float32 blob (copied into the kernel's memory)
   */
  constructor(manifest, buffer) {
    if (!manifest || manifest.format !== FORMAT) {
      throw new Error(`MotorNerve: not a ${FORMAT} manifest (format ${JSON.stringify(manifest?.format)})`);
    }
    if (!LITTLE_ENDIAN) throw new Error("MotorNerve: the float32 blob is little-endian; this machine is not");
    this.manifest = manifest;
    this.shape = manifest.shape;
    this.runtime = manifest.runtime;
    /** States the pose encoder reads (network.HISTORY). */
    this.history = manifest.runtime.HISTORY;
    /** GRU steps: what two valid convolutions leave of the history. */
    this.columns = this.history - 2 * (this.shape.kernel - 1);
    if (this.columns < 1) throw new Error(`MotorNerve: kernel ${this.shape.kernel} leaves no columns`);
    const expected = parameterShapes(this.shape);
    const { inputs, outputs } = productSizes(this.shape);
    const numbers = Math.floor(buffer.byteLength / 4);
    /** The WebAssembly kernel every product of this network runs on. */
    this.kernel = new AffineKernel(numbers, inputs, outputs);
    const blob = this.kernel.weights;
    blob.set(new Float32Array(buffer, 0, numbers));
    /** @type {Map<string, Float32Array>} */
    this.params = new Map();
    for (const entry of manifest.tensors) {
      if (this.params.has(entry.name)) throw new Error(`MotorNerve: ${entry.name} twice`);
      this.params.set(entry.name, view(entry, blob, expected.get(entry.name)));
    }
    const missing = [...expected.keys()].filter((name) => !this.params.has(name));
    if (missing.length) throw new Error(`MotorNerve: the manifest lacks ${missing.join(", ")}`);
    const sizes = { state: this.shape.state, intent: this.shape.intent, output: this.shape.state };
    /** @type {Partial<Norms>} */
    const norms = {};
    for (const entry of manifest.norms) {
      const name = /** @type {(typeof NORMS)[number]} */ (entry.name);
      const size = NORMS.includes(name) ? sizes[/** @type {keyof sizes} */ (name.split("_")[0])] : undefined;
      norms[name] = view(entry, blob, size === undefined ? undefined : [size]);
    }
    for (const name of NORMS) if (!norms[name]) throw new Error(`MotorNerve: the manifest lacks ${name}`);
    /** @type {Norms} */
    this.norms = /** @type {Norms} */ (norms);
    /** The standing state the controller starts from (runtime.start_state), or null. */
    this.startState = manifest.start_state ? Float64Array.from(manifest.start_state) : null;
  }

  /**
   * Fetch and read a manifest and its blob.
   * @param {string | URL} manifestUrl
   * @param {string | URL} dataUrl
   * @param {typeof fetch} [fetchImpl]
   */
  static async load(manifestUrl, dataUrl, fetchImpl = globalThis.fetch.bind(globalThis)) {
    const [manifest, data] = await Promise.all([
      fetchImpl(manifestUrl).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${manifestUrl}: HTTP ${r.status}`)))),
      fetchImpl(dataUrl).then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${dataUrl}: HTTP ${r.status}`)))),
    ]);
    return new MotorNerveNetwork(manifest, data);
  }

  /** @param {string} name a PyTorch parameter name */
  tensor(name) {
    const out = this.params.get(name);
    if (!out) throw new Error(`MotorNerve: no tensor ${name}`);
    return out;
  }

  /** Parameters in all. */
  get parameterCount() {
    let n = 0;
    for (const p of this.params.values()) n += p.length;
    return n;
  }
}

/** ELU (α = 1) in place. @param {Float32Array} x */
function elu(x) {
  for (let i = 0; i < x.length; i += 1) {
    const v = x[i];
    if (!(v > 0)) x[i] = Math.expm1(v);
  }
}

/** @param {number} x */
const sigmoid = (x) => 1 / (1 + Math.exp(-x));

/**
 * Shift each of `rows` rows of `k` values one to the left and put `column[r]` last (the
 * newest): `window [rows, k]`, oldest first, the layout of a convolution's [in, k].
 * @param {Float32Array} window
 * @param {Float32Array} column
 * @param {number} k
 */
function slide(window, column, k) {
  for (let r = 0, p = 0; r < column.length; r += 1, p += k) {
    for (let j = 0; j < k - 1; j += 1) window[p + j] = window[p + j + 1];
    window[p + k - 1] = column[r];
  }
}

/**
 * The GRU layer of one direction (PyTorch's gates r, z, n).
 * @typedef {object} GruDirection
 * @property {Float32Array} wIh [3G, C]
 * @property {Float32Array} bIh [3G]
 * @property {Float32Array} wHh [3G, G]
 * @property {Float32Array} bHh [3G]
 * @property {Float32Array} gi [columns, 3G] input projections, oldest column first
 * @property {Float32Array} h [G] state (a view into the fusion input)
 */

/** One character step by step (network.Stepper): push raw states, predict the next. */
export class Stepper {
  /** @param {MotorNerveNetwork} network */
  constructor(network) {
    this.network = network;
    this.kernel = network.kernel;
    const { state: s, intent, channels: c, kernel: k, gru: g, intent_hidden: hidden, fusion } = network.shape;
    this.sizes = { s, intent, c, k, g, columns: network.columns };
    const t = (/** @type {string} */ name) => network.tensor(name);
    this.norms = network.norms;
    /** Whether the motion head gives the change to the last state (network.Shape.residual). */
    this.residual = network.shape.residual !== false;
    /** The newest raw state pushed [S] (float64, as pushed). */
    this.last = new Float64Array(s);
    this.window1 = new Float32Array(s * k); // normalised states [S, k]
    this.window2 = new Float32Array(c * k); // first-convolution columns [C, k]
    this.normed = new Float32Array(s);
    this.column1 = new Float32Array(c);
    this.column2 = new Float32Array(c);
    this.counts = { normed: 0, conv1: 0, gi: 0 };
    this.fusionIn = new Float32Array(2 * g + INTENT_CODE); // [forward h, backward h, intent code]
    /** @type {GruDirection[]} forward, backward */
    this.gru = ["", "_reverse"].map((suffix, d) => ({
      wIh: t(`gru.weight_ih_l0${suffix}`), bIh: t(`gru.bias_ih_l0${suffix}`),
      wHh: t(`gru.weight_hh_l0${suffix}`), bHh: t(`gru.bias_hh_l0${suffix}`),
      gi: new Float32Array(network.columns * 3 * g),
      h: this.fusionIn.subarray(d * g, (d + 1) * g),
    }));
    this.gh = new Float32Array(3 * g);
    this.giRow = new Float32Array(3 * g);
    this.intentKey = new Float32Array(intent);
    this.hasIntent = false;
    this.intentNormed = new Float32Array(intent);
    const intentWidths = [intent, hidden[0], hidden[1], INTENT_CODE];
    this.intentLayers = [0, 1, 2].map((layer) => ({
      w: t(`intent.${2 * layer}.weight`), b: t(`intent.${2 * layer}.bias`),
      rows: intentWidths[layer + 1], cols: intentWidths[layer],
      out: layer === 2 ? this.fusionIn.subarray(2 * g) : new Float32Array(intentWidths[layer + 1]),
    }));
    const fusionWidths = [2 * g + INTENT_CODE, ...fusion];
    this.fusionLayers = [0, 1, 2].map((layer) => ({
      w: t(`fusion.${2 * layer}.weight`), b: t(`fusion.${2 * layer}.bias`),
      rows: fusionWidths[layer + 1], cols: fusionWidths[layer], out: new Float32Array(fusionWidths[layer + 1]),
    }));
    this.conv = {
      w1: t("conv1.weight"), b1: t("conv1.bias"), w2: t("conv2.weight"), b2: t("conv2.bias"),
      motionW: t("motion.weight"), motionB: t("motion.bias"),
      contactW: t("contact.weight"), contactB: t("contact.bias"),
    };
    this.delta = new Float32Array(s);
    this.logits = new Float32Array(2);
    /** @type {Prediction} */
    this.result = { state: new Float64Array(s), contacts: new Float64Array(2) };
  }

  /** Whether enough states were pushed to predict (network.HISTORY). */
  get ready() {
    return this.counts.gi === this.sizes.columns;
  }

  /**
   * Start from `state` held for the whole history (standing still).
   * @param {ArrayLike<number>} state
   */
  fill(state) {
    for (let i = 0; i < this.network.history; i += 1) this.push(state);
  }

  /**
   * Append a raw state [S] (the newest) and compute its new columns.
   * @param {ArrayLike<number>} raw
   */
  push(raw) {
    const { s, c, k, g, columns } = this.sizes;
    const { state_mean: mean, state_std: std } = this.norms;
    const { normed, counts, conv } = this;
    if (raw.length !== s) throw new Error(`MotorNerve: a state has ${s} numbers, not ${raw.length}`);
    for (let i = 0; i < s; i += 1) {
      this.last[i] = raw[i];
      normed[i] = Math.fround(Math.fround(raw[i]) - mean[i]) / std[i];
    }
    slide(this.window1, normed, k);
    counts.normed = Math.min(counts.normed + 1, k);
    if (counts.normed < k) return;
    this.kernel.affine(conv.w1, conv.b1, this.window1, this.column1, c, s * k);
    elu(this.column1);
    slide(this.window2, this.column1, k);
    counts.conv1 = Math.min(counts.conv1 + 1, k);
    if (counts.conv1 < k) return;
    this.kernel.affine(conv.w2, conv.b2, this.window2, this.column2, c, c * k);
    elu(this.column2);
    const row = 3 * g;
    for (const d of this.gru) {
      d.gi.copyWithin(0, row); // drop the oldest column's projection
      this.kernel.affine(d.wIh, d.bIh, this.column2, this.giRow, row, c);
      d.gi.set(this.giRow, (columns - 1) * row);
    }
    counts.gi = Math.min(counts.gi + 1, columns);
  }

  /**
   * The next raw state and contact probabilities for `rawIntent` [12]: `this.result`,
   * overwritten by the next call (copy what you keep).
   * @param {ArrayLike<number>} rawIntent
   * @returns {Prediction}
   */
  predict(rawIntent) {
    if (!this.ready) throw new Error(`MotorNerve: the stepper needs ${this.network.history} states before it predicts`);
    const { s, columns } = this.sizes;
    this.encodeIntent(rawIntent);
    const [forward, backward] = this.gru;
    forward.h.fill(0);
    for (let t = 0; t < columns; t += 1) this.gruStep(forward, t);
    backward.h.fill(0);
    for (let t = columns - 1; t >= 0; t -= 1) this.gruStep(backward, t);
    let x = this.fusionIn;
    for (const layer of this.fusionLayers) {
      this.kernel.affine(layer.w, layer.b, x, layer.out, layer.rows, layer.cols);
      elu(layer.out);
      x = layer.out;
    }
    const { conv, delta, logits, result } = this;
    this.kernel.affine(conv.motionW, conv.motionB, x, delta, s, x.length);
    this.kernel.affine(conv.contactW, conv.contactB, x, logits, 2, x.length);
    const { output_mean: mean, output_std: std } = this.norms;
    // network.Weights.next_state: the last state plus the change, or the state itself
    for (let i = 0; i < s; i += 1) {
      const out = Math.fround(Math.fround(delta[i] * std[i]) + mean[i]);
      result.state[i] = this.residual ? this.last[i] + out : out;
    }
    result.contacts[0] = Math.fround(sigmoid(logits[0]));
    result.contacts[1] = Math.fround(sigmoid(logits[1]));
    return result;
  }

  /**
   * The intent encoder's code of `rawIntent` into the fusion input, unless the intent is
   * the last one's (as float32: network.Stepper keys its cache on the float32 bytes).
   * @param {ArrayLike<number>} rawIntent
   */
  encodeIntent(rawIntent) {
    const { intent } = this.sizes;
    const key = this.intentKey;
    if (rawIntent.length !== intent) throw new Error(`MotorNerve: an intent has ${intent} numbers, not ${rawIntent.length}`);
    let same = this.hasIntent;
    for (let i = 0; i < intent && same; i += 1) same = Math.fround(rawIntent[i]) === key[i];
    if (same) return;
    const { intent_mean: mean, intent_std: std } = this.norms;
    for (let i = 0; i < intent; i += 1) {
      key[i] = rawIntent[i];
      this.intentNormed[i] = Math.fround(key[i] - mean[i]) / std[i];
    }
    this.hasIntent = true;
    let x = this.intentNormed;
    for (const layer of this.intentLayers) {
      this.kernel.affine(layer.w, layer.b, x, layer.out, layer.rows, layer.cols);
      elu(layer.out);
      x = layer.out;
    }
  }

  /**
   * One GRU step of direction `d` from its cached input projection of column `t`.
   * @param {GruDirection} d
   * @param {number} t
   */
  gruStep(d, t) {
    const { g } = this.sizes;
    const { gh } = this;
    const { h, gi } = d;
    this.kernel.affine(d.wHh, d.bHh, h, gh, 3 * g, g);
    const base = t * 3 * g;
    for (let u = 0; u < g; u += 1) {
      const r = Math.fround(sigmoid(gi[base + u] + gh[u]));
      const z = Math.fround(sigmoid(gi[base + g + u] + gh[g + u]));
      const n = Math.fround(Math.tanh(gi[base + 2 * g + u] + Math.fround(r * gh[2 * g + u])));
      h[u] = (1 - z) * n + z * h[u];
    }
  }
}
