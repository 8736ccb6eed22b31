// @ts-check
// Motion units and the four momentum phases of each unit, in the browser: a
// frame-for-frame port of motioncore/analysis/phases.py (seed 000 §2.3 and §6.2; the module
// docstring there gives the definitions and the deviations from the seed).
//
// Conventions: F frames; `curve` Float64Array [F], non-negative momentum measure
// (any units); `fps` Hz; times in seconds; codes Int8Array [F] indexing PHASES;
// unit bounds Int32Array [K], a unit being frames [start, stop) with its peak inside.
// Same floating-point operations as numpy, so codes match motioncore exactly.

import { firstMin, slopePerS } from "./mtp.js";
import { peaks as mtpPeaks } from "./peaks.js";

/** Phase names; `PhaseLabels.codes` holds their indices (0-3). */
export const PHASES = Object.freeze(["start", "steady", "transition", "ending"]);

/**
 * A motion unit as `Unit.as_dict()`: frames and seconds.
 * @typedef {{start_frame: number, peak_frame: number, stop_frame: number, start_s: number,
 *   peak_s: number, stop_s: number, peak_value: number}} UnitDict
 */

/**
 * A run of one phase, frames `[start_frame, stop_frame)` inside one unit, times in
 * seconds (as the server's `phases.runs`).
 * @typedef {{phase: string, start_frame: number, stop_frame: number, start_s: number,
 *   stop_s: number}} Run
 */

/** Motion units of a curve: Int32Array [K] starts, peaks and stops (exclusive). */
export class Units {
  /**
   * @param {Float64Array} curve [F]
   * @param {Int32Array} starts [K]
   * @param {Int32Array} peaks [K]
   * @param {Int32Array} stops [K]
   * @param {number} fps Hz
   */
  constructor(curve, starts, peaks, stops, fps) {
    this.curve = curve;
    this.starts = starts;
    this.peaks = peaks;
    this.stops = stops;
    this.fps = fps;
  }

  /** @returns {UnitDict[]} */
  asDicts() {
    return Array.from(this.peaks, (p, k) => ({
      start_frame: this.starts[k],
      peak_frame: p,
      stop_frame: this.stops[k],
      start_s: this.starts[k] / this.fps,
      peak_s: p / this.fps,
      stop_s: this.stops[k] / this.fps,
      peak_value: this.curve[p],
    }));
  }
}

/** Four-phase labels of a clip: motioncore's `PhaseLabels`. */
export class PhaseLabels {
  /**
   * @param {{fps: number, codes: Int8Array, units: Units, alpha: number, steadyRatio: number,
   *   flatSlopeRatio: number, minPeak: number}} fields
   */
  constructor(fields) {
    /** @type {number} Hz */ this.fps = fields.fps;
    /** @type {Int8Array} [F] index into PHASES */ this.codes = fields.codes;
    /** @type {Units} they tile [0, F) */ this.units = fields.units;
    /** @type {number} */ this.alpha = fields.alpha;
    /** @type {number} */ this.steadyRatio = fields.steadyRatio;
    /** @type {number} */ this.flatSlopeRatio = fields.flatSlopeRatio;
    /** @type {number} curve units */ this.minPeak = fields.minPeak;
  }

  /** @returns {Run[]} runs of one phase in frame order; a run never spans two units */
  runs() {
    const n = this.codes.length;
    const cut = new Uint8Array(n + 1);
    cut[0] = cut[n] = 1;
    for (let f = 1; f < n; f += 1) if (this.codes[f] !== this.codes[f - 1]) cut[f] = 1;
    for (const s of this.units.starts) cut[s] = 1;
    const out = [];
    let a = 0;
    for (let b = 1; b <= n; b += 1) {
      if (!cut[b]) continue;
      const [phase, startS, stopS] = [PHASES[this.codes[a]], a / this.fps, b / this.fps];
      out.push({ phase, start_frame: a, stop_frame: b, start_s: startS, stop_s: stopS });
      a = b;
    }
    return out;
  }

  /** @returns {Object<string, number>} share of the frames in each phase (0-1) */
  fractions() {
    const counts = [0, 0, 0, 0];
    for (const code of this.codes) counts[code] += 1;
    return Object.fromEntries(PHASES.map((p, i) => [p, counts[i] / this.codes.length]));
  }

  /** motioncore's `PhaseLabels.as_dict()` (snake_case keys, the server's JSON `phases`). */
  asDict() {
    return {
      fps: this.fps,
      alpha: this.alpha,
      steady_ratio: this.steadyRatio,
      flat_slope_ratio: this.flatSlopeRatio,
      min_peak: this.minPeak,
      phases: [...PHASES],
      units: this.units.asDicts(),
      runs: this.runs(),
      fractions: this.fractions(),
    };
  }
}

/**
 * `phases._checked`: a Float64Array copy; throws unless [F ≥ 3], finite, ≥ 0, fps > 0.
 * @param {ArrayLike<number>} curve
 * @param {number} fps
 */
function checked(curve, fps) {
  const c = Float64Array.from(curve);
  if (c.length < 3 || !(fps > 0)) {
    throw new RangeError(`need a curve [F>=3] and fps > 0; got ${c.length}, ${fps}`);
  }
  if (!c.every((x) => Number.isFinite(x) && x >= 0)) {
    throw new RangeError("the momentum curve must be finite and non-negative");
  }
  return c;
}

/**
 * `phases._units` on a checked curve: one unit per `mtp.peaks` peak, split at the
 * first minimum between consecutive peaks (the valley starts the next unit).
 * @param {Float64Array} c [F]
 * @param {number} fps
 * @param {number} prominenceRatio
 * @returns {Units}
 * @throws {RangeError} no peak (a constant curve above 1 / prominenceRatio; motioncore raises too)
 */
function splitUnits(c, fps, prominenceRatio) {
  const p = mtpPeaks(c, prominenceRatio);
  const k = p.length;
  if (k === 0) throw new RangeError("the curve has no motion unit (no peak is prominent enough)");
  const starts = new Int32Array(k);
  const stops = new Int32Array(k);
  for (let i = 0; i + 1 < k; i += 1) stops[i] = starts[i + 1] = firstMin(c, p[i], p[i + 1]);
  stops[k - 1] = c.length;
  return new Units(c, starts, p, stops, fps);
}

/**
 * `phases.units`: split a momentum curve into motion units, one per peak (§6.2).
 * @param {ArrayLike<number>} curve [F] non-negative momentum measure
 * @param {number} fps Hz
 * @param {{prominenceRatio?: number}} [options]
 * @returns {UnitDict[]} in frame order, tiling [0, F)
 */
export function units(curve, fps, { prominenceRatio = 0.1 } = {}) {
  return splitUnits(checked(curve, fps), fps, prominenceRatio).asDicts();
}

/**
 * `phases.label`: start / steady / transition / ending per frame (seed 000 §2.3).
 * @param {ArrayLike<number>} curve [F] non-negative momentum measure
 * @param {number} fps Hz
 * @param {Object} options
 * @param {number} options.alpha transition keeps this fraction of the unit's peak (no
 *   default here: motioncore.parameters has it, served to the page)
 * @param {number} [options.steadyRatio=0.9] steady keeps this fraction of the peak
 * @param {number} [options.flatSlopeRatio=0.5] steady |slope| ≤ this × the unit's max |slope|
 * @param {number} [options.minPeak=0] curve units; a unit peaking at most this is all ending
 * @param {number} [options.prominenceRatio=0.1]
 * @returns {PhaseLabels}
 * @throws {RangeError} bad curve or fps, or not 0 < alpha ≤ steadyRatio ≤ 1, flatSlopeRatio ≥ 0
 */
export function label(curve, fps, options) {
  const { alpha, steadyRatio = 0.9, flatSlopeRatio = 0.5 } = options;
  const { minPeak = 0.0, prominenceRatio = 0.1 } = options;
  const c = checked(curve, fps);
  if (!(alpha > 0.0 && alpha <= steadyRatio && steadyRatio <= 1.0 && flatSlopeRatio >= 0.0)) {
    throw new RangeError(
      "need 0 < alpha <= steady_ratio <= 1 and flat_slope_ratio >= 0; " +
        `got ${alpha}, ${steadyRatio}, ${flatSlopeRatio}`,
    );
  }
  const u = splitUnits(c, fps, prominenceRatio);
  const slope = slopePerS(c, fps);
  const codes = new Int8Array(c.length);
  for (let k = 0; k < u.peaks.length; k += 1) {
    const [start, peak, stop] = [u.starts[k], u.peaks[k], u.stops[k]];
    const thresholds = { alpha, steadyRatio, flatSlopeRatio, minPeak };
    const [a, b, e] = unitEdges(c, slope, start, peak, stop, thresholds);
    for (let f = start; f < stop; f += 1) codes[f] = Number(f >= a) + Number(f >= b) + Number(f >= e);
  }
  return new PhaseLabels({ fps, codes, units: u, alpha, steadyRatio, flatSlopeRatio, minPeak });
}

/**
 * `_steady` and the ending edge for one unit: [steady from, steady to, ending from].
 * Steady is the run around the peak with curve ≥ steadyRatio·P and |slope| ≤
 * flatSlopeRatio·(unit's max |slope|); if the peak fails, the run is empty, after the
 * peak when it is rising, else at it. Ending starts at the first frame from the steady
 * run's end below alpha·P. An idle unit (P ≤ minPeak) is all ending.
 * @param {Float64Array} c [F] the curve
 * @param {Float64Array} slope [F] its slope per second
 * @param {number} start the unit's first frame
 * @param {number} peak its peak
 * @param {number} stop its end (exclusive)
 * @param {{alpha: number, steadyRatio: number, flatSlopeRatio: number, minPeak: number}} thresholds
 * @returns {[number, number, number]}
 */
function unitEdges(c, slope, start, peak, stop, { alpha, steadyRatio, flatSlopeRatio, minPeak }) {
  const top = c[peak];
  if (top <= minPeak) return [start, start, start];
  let steepest = -Infinity;
  for (let f = start; f < stop; f += 1) steepest = Math.max(steepest, Math.abs(slope[f]));
  const ok = (/** @type {number} */ f) => c[f] >= steadyRatio * top && Math.abs(slope[f]) <= flatSlopeRatio * steepest;
  let from;
  let to;
  if (ok(peak)) {
    from = peak;
    while (from > start && ok(from - 1)) from -= 1;
    to = peak;
    while (to < stop && ok(to)) to += 1;
  } else {
    from = to = slope[peak] > 0.0 ? peak + 1 : peak;
  }
  let ending = to;
  while (ending < stop && !(c[ending] < alpha * top)) ending += 1;
  return [from, to, ending];
}
