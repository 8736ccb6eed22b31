// @ts-check
// MotorNerve's one arithmetic kernel in the browser: y = W x + b in float32 with
// WebAssembly SIMD (affine.wat, compiled into affine-wasm.js). The kernel's memory holds
// the network's weights, copied in once, and a scratch area where each product's input
// is copied and its output read back (a few thousand numbers a product, against its
// rows × cols multiply-adds). The memory is sized once, in the constructor: it never
// grows afterwards, so the views of it stay valid.

import { AFFINE_WASM } from "./affine-wasm.js";

const PAGE_BYTES = 65536;
/** Float32 numbers in 16 bytes: the scratch area starts on a 16-byte boundary. */
const LANES = 4;

/** @type {WebAssembly.Module | null} compiled on first use, shared by every kernel */
let compiled = null;

export class AffineKernel {
  /**
   * @param {number} weights float32 numbers of weights the memory holds (`this.weights`)
   * @param {number} inputs the most numbers a product's input has
   * @param {number} outputs the most rows a product has
   */
  constructor(weights, inputs, outputs) {
    compiled ??= new WebAssembly.Module(AFFINE_WASM);
    const exports = new WebAssembly.Instance(compiled).exports;
    const memory = /** @type {WebAssembly.Memory} */ (exports.memory);
    this.run = /** @type {(w: number, b: number, x: number, y: number, rows: number, cols: number) => void} */ (
      exports.affine
    );
    const start = Math.ceil(weights / LANES) * LANES;
    const total = start + Math.ceil(inputs / LANES) * LANES + outputs;
    const missing = Math.ceil((4 * total) / PAGE_BYTES) - memory.buffer.byteLength / PAGE_BYTES;
    if (missing > 0) memory.grow(missing);
    const heap = new Float32Array(memory.buffer, 0, total);
    /** The weights' numbers: fill them, then take views of them (subarray). */
    this.weights = heap.subarray(0, weights);
    this.input = heap.subarray(start, start + Math.ceil(inputs / LANES) * LANES);
    this.output = heap.subarray(start + this.input.length);
    this.inputs = inputs;
  }

  /**
   * `y = W x + b` for `W [rows, cols]` row-major, float32 sums (affine.wat).
   * @param {Float32Array} w a view of `this.weights`
   * @param {Float32Array} b a view of `this.weights` [rows]
   * @param {Float32Array} x [cols] (or longer: its first cols numbers)
   * @param {Float32Array} y [rows] (written)
   * @param {number} rows
   * @param {number} cols
   */
  affine(w, b, x, y, rows, cols) {
    if (cols > this.inputs || rows > this.output.length) {
      throw new Error(`MotorNerve: a ${rows}×${cols} product is larger than the kernel's scratch`);
    }
    this.input.set(x.length === cols ? x : x.subarray(0, cols));
    this.run(w.byteOffset, b.byteOffset, this.input.byteOffset, this.output.byteOffset, rows, cols);
    y.set(this.output.subarray(0, rows));
  }
}
