// @ts-check
// Momentum transition points (MTP) in the browser: a frame-for-frame port of
// motioncore/analysis/mtp.py (seed 000 §3.1; the module docstring there explains the
// four conditions and every deviation from the seed's listing).
//
// Conventions: F frames; `curve` is a Float64Array [F] momentum measure (speed m/s,
// energy J/kg or |PCA| m/s; `minPeak` is in its units); velocities are flat
// Float64Array [F*3] (x, y, z per frame, m/s, world frame, Y up); `fps` is Hz;
// frame indices are Int32Array. Every floating-point operation is the one numpy
// does, in the same order, so results match motioncore bit for bit except where a
// libm function is involved (acos: angles may differ in the last ulp).
// Inputs are never mutated. No dependencies: plain ES module for browser and node.

import { formatG3 } from "./format-g3.js";
import { peaks } from "./peaks.js";

export { formatG3 };

/** Condition names, in the row order of `MTPResult.passed`. */
export const CONDITIONS = Object.freeze(["retention", "direction", "deceleration", "non_extremum"]);
export const REVERSAL_ADVICE = "insert a transition or use a longer blend";
const DEG_PER_RAD = 180 / Math.PI; // numpy's rad2deg constant

/**
 * `np.gradient(curve) * fps`: central differences inside, one-sided at both ends.
 * @param {Float64Array} curve [F], F ≥ 2
 * @param {number} fps Hz
 * @returns {Float64Array} [F] curve units per second
 */
export function slopePerS(curve, fps) {
  const n = curve.length;
  const out = new Float64Array(n);
  out[0] = (curve[1] - curve[0]) * fps;
  for (let i = 1; i < n - 1; i += 1) out[i] = ((curve[i + 1] - curve[i - 1]) / 2.0) * fps;
  out[n - 1] = (curve[n - 1] - curve[n - 2]) * fps;
  return out;
}

/**
 * `_unit_peak_frame`: each frame's motion-unit peak if the frame is at or after it,
 * else -1. Units split at the first lowest frame between consecutive peaks; the
 * valley frame starts the next unit (and is -1, before that unit's peak).
 * @param {Float64Array} curve [F]
 * @param {Int32Array} unitPeaks [K] ascending
 * @returns {Int32Array} [F]
 */
export function unitPeakFrame(curve, unitPeaks) {
  const n = curve.length;
  const marks = new Int32Array(n).fill(-1);
  for (const p of unitPeaks) marks[p] = p;
  for (let k = 0; k + 1 < unitPeaks.length; k += 1) {
    marks[firstMin(curve, unitPeaks[k], unitPeaks[k + 1] + 1)] = -2; // the valley
  }
  const out = new Int32Array(n);
  let latest = -1;
  let ended = false;
  for (let f = 0; f < n; f += 1) {
    if (marks[f] === -2) ended = true;
    else if (marks[f] !== -1) {
      latest = Math.max(latest, marks[f]);
      ended = false;
    }
    out[f] = ended ? -1 : latest;
  }
  return out;
}

/**
 * First index of the minimum of `x[from:to)` (np.argmin + from).
 * @param {Float64Array} x
 * @param {number} from
 * @param {number} to exclusive, > from
 */
export function firstMin(x, from, to) {
  let at = from;
  for (let i = from + 1; i < to; i += 1) if (x[i] < x[at]) at = i;
  return at;
}

/**
 * `_extremum_distance`: frames to the nearest local extremum (ends and flats count:
 * frame i inside is one when `(c[i]-c[i-1]) * (c[i+1]-c[i]) <= 0`).
 * @param {Float64Array} curve [F]
 * @returns {Int32Array} [F]
 */
export function extremumDistance(curve) {
  const n = curve.length;
  const isExt = (/** @type {number} */ i) =>
    i === 0 || i === n - 1 || (curve[i] - curve[i - 1]) * (curve[i + 1] - curve[i]) <= 0.0;
  const out = new Int32Array(n);
  let last = 0;
  for (let i = 0; i < n; i += 1) {
    if (isExt(i)) last = i;
    out[i] = i - last;
  }
  let next = n - 1;
  for (let i = n - 1; i >= 0; i -= 1) {
    if (isExt(i)) next = i;
    if (next - i < out[i]) out[i] = next - i;
  }
  return out;
}

/**
 * `_angles_deg`: angle between each velocity and the next clip's velocity, degrees;
 * NaN where either is zero.
 * @param {Float64Array} velocity [F*3] m/s
 * @param {ArrayLike<number>} nextVelocity [3] or [F*3] m/s
 * @returns {Float64Array} [F] degrees in [0, 180]
 */
export function anglesDeg(velocity, nextVelocity) {
  const n = velocity.length / 3;
  const stride = nextVelocity.length === 3 ? 0 : 3;
  const out = new Float64Array(n);
  for (let f = 0, j = 0; f < n; f += 1, j += stride) {
    const [a0, a1, a2] = [velocity[3 * f], velocity[3 * f + 1], velocity[3 * f + 2]];
    const [b0, b1, b2] = [nextVelocity[j], nextVelocity[j + 1], nextVelocity[j + 2]];
    const norms = Math.sqrt(a0 * a0 + a1 * a1 + a2 * a2) * Math.sqrt(b0 * b0 + b1 * b1 + b2 * b2);
    const cos = (a0 * b0 + a1 * b1 + a2 * b2) / (norms > 0.0 ? norms : NaN);
    out[f] = Math.acos(Math.min(Math.max(cos, -1.0), 1.0)) * DEG_PER_RAD;
  }
  return out;
}

/**
 * `_no_candidate_reason`: the first condition that leaves no frame, as a sentence.
 * @param {Uint8Array[]} passed 4 rows [F] of 0/1, in CONDITIONS order
 * @param {Float64Array} curve [F]
 * @param {number} minPeak curve units
 * @returns {string | null}
 */
export function noCandidateReason(passed, curve, minPeak) {
  let max = -Infinity;
  for (const x of curve) if (x > max || Number.isNaN(x)) max = x; // numpy's max keeps NaN
  if (max < minPeak) {
    return (
      "no reliable candidate: the motion never builds momentum " +
      `(peak ${formatG3(max)} below min_peak ${formatG3(minPeak)})`
    );
  }
  /** @type {Array<[number, string]>} [row of `passed`, what leaves no frame] */
  const steps = [
    [2, "the curve never decelerates"],
    [0, "no decelerating frame keeps alpha of its motion unit's peak"],
    [3, "the only such frames are local extrema of the curve"],
    [1, "every such frame points more than theta_max from the next clip's velocity"],
  ];
  const alive = new Uint8Array(curve.length).fill(1);
  for (const [row, text] of steps) {
    let any = false;
    for (let f = 0; f < curve.length; f += 1) {
      alive[f] &= passed[row][f];
      any ||= alive[f] === 1;
    }
    if (!any) return `no reliable candidate: ${text}`;
  }
  return null;
}

/**
 * One condition at one frame, as motioncore's breakdown: pass/fail, value, threshold,
 * margin (≥ 0 passes; value and margin null where the value does not exist), and
 * `peak_frame` (retention) or `skipped` (direction).
 * @typedef {{passed: boolean, value: number | null, threshold: number, margin: number | null,
 *   peak_frame?: number, skipped?: boolean}} Condition
 */

/**
 * One MTP candidate, as motioncore's `Candidate.as_dict()`.
 * @typedef {{frame: number, time_s: number, value: number, peak_frame: number,
 *   breakdown: Object<string, Condition>}} Candidate
 */

/**
 * The fields of `MTPResult` (motioncore's, camelCase). Arrays are per frame, [F].
 * @typedef {Object} MTPFields
 * @property {number} fps Hz
 * @property {number} alpha retention threshold used
 * @property {number} thetaMaxDeg direction threshold used, degrees
 * @property {boolean} directionChecked whether condition (2) was tested
 * @property {number} minDecelPerS curve units/s
 * @property {number} extremumGuardS seconds
 * @property {Float64Array} curve [F] the momentum measure (a copy)
 * @property {Int32Array} peakFrame [F] the unit's peak at or before each frame, -1 before it
 * @property {Float64Array} retention [F] curve / the unit's peak (NaN before the first peak)
 * @property {Float64Array} angleDeg [F] degrees to the next velocity (NaN: skipped, zero)
 * @property {Float64Array} slopePerS [F] curve units/s
 * @property {Float64Array} extremumDistanceS [F] seconds to the nearest local extremum
 * @property {Uint8Array[]} passed 4 rows [F] of 0/1, in CONDITIONS order
 * @property {Int32Array} order [K] candidates, highest curve first (ties: earliest)
 * @property {number} bestFrame the chosen cut, -1 when there is no reliable candidate
 * @property {string | null} reason why there is no reliable candidate
 * @property {string | null} recommendation advice for a near-reversal
 */

/** Per-frame MTP test of one clip: motioncore's `MTPResult`. */
export class MTPResult {
  /** @param {MTPFields} fields */
  constructor(fields) {
    this.fps = fields.fps;
    this.alpha = fields.alpha;
    this.thetaMaxDeg = fields.thetaMaxDeg;
    this.directionChecked = fields.directionChecked;
    this.minDecelPerS = fields.minDecelPerS;
    this.extremumGuardS = fields.extremumGuardS;
    this.curve = fields.curve;
    this.peakFrame = fields.peakFrame;
    this.retention = fields.retention;
    this.angleDeg = fields.angleDeg;
    this.slopePerS = fields.slopePerS;
    this.extremumDistanceS = fields.extremumDistanceS;
    this.passed = fields.passed;
    this.order = fields.order;
    this.bestFrame = fields.bestFrame;
    this.reason = fields.reason;
    this.recommendation = fields.recommendation;
  }

  /**
   * Pass/fail, value, threshold and margin (≥ 0 passes) of each condition at `frame`;
   * `null` where a value does not exist; plus `retention.peak_frame`, `direction.skipped`.
   * @param {number} frame
   */
  breakdown(frame) {
    const values = [this.retention, this.angleDeg, this.slopePerS, this.extremumDistanceS];
    const limits = [this.alpha, this.thetaMaxDeg, -this.minDecelPerS, this.extremumGuardS];
    const signs = [1, -1, -1, 1];
    /** @type {Object<string, Condition>} */
    const out = {};
    CONDITIONS.forEach((name, row) => {
      const value = values[row][frame];
      const missing = Number.isNaN(value);
      out[name] = {
        passed: this.passed[row][frame] === 1,
        value: missing ? null : value,
        threshold: limits[row],
        margin: missing ? null : signs[row] * (value - limits[row]),
      };
    });
    out.retention.peak_frame = this.peakFrame[frame];
    out.direction.skipped = !this.directionChecked;
    return out;
  }

  /** @param {number} frame @returns {Candidate} */
  candidate(frame) {
    return {
      frame,
      time_s: frame / this.fps,
      value: this.curve[frame],
      peak_frame: this.peakFrame[frame],
      breakdown: this.breakdown(frame),
    };
  }

  /** @returns {Candidate[]} every candidate, in `order` (builds K breakdowns) */
  candidates() {
    return Array.from(this.order, (f) => this.candidate(f));
  }

  /** @returns {Candidate | null} the chosen cut */
  get best() {
    return this.bestFrame < 0 ? null : this.candidate(this.bestFrame);
  }

  /** @returns {Object<string, number>} frames passing each condition */
  framesPassing() {
    /** @type {Object<string, number>} */
    const out = {};
    CONDITIONS.forEach((name, row) => {
      out[name] = this.passed[row].reduce((a, b) => a + b, 0);
    });
    return out;
  }

  /** motioncore's `MTPResult.as_dict()` (snake_case keys, the server's JSON). */
  asDict() {
    return {
      fps: this.fps,
      alpha: this.alpha,
      theta_max_deg: this.thetaMaxDeg,
      direction_checked: this.directionChecked,
      frames_passing: this.framesPassing(),
      candidates: this.candidates(),
      best: this.best,
      reason: this.reason,
      recommendation: this.recommendation,
    };
  }
}

/**
 * `mtp.detect`: test every frame against the four MTP conditions (seed 000 §3.1).
 * @param {ArrayLike<number>} curve [F] momentum measure, F ≥ 3, non-negative
 * @param {ArrayLike<number>} velocity [F*3] m/s, world frame (direction of motion)
 * @param {number} fps Hz
 * @param {Object} options
 * @param {number} options.alpha retention against the unit's peak (0.5–0.7)
 * @param {number} options.thetaMaxDeg largest angle to the next velocity, degrees
 *   (α and θ_max have no defaults here: motioncore.parameters has them, served to the page)
 * @param {ArrayLike<number> | null} [options.nextVelocity=null] [3] or [F*3] m/s; null skips (2)
 * @param {number} [options.minPeak=0.1] curve units; weaker units have no candidates
 * @param {number} [options.minDecelPerS=0] the curve must fall faster, curve units/s
 * @param {number} [options.extremumGuardS=0] seconds kept away from local extrema
 * @param {number} [options.peakProminenceRatio=0.1]
 * @param {number} [options.reversalDeg=150] degrees; all valid frames this far → advice
 * @returns {MTPResult}
 * @throws {RangeError} mismatched lengths, fewer than 3 frames or fps ≤ 0
 */
export function detect(curve, velocity, fps, options) {
  const {
    alpha, thetaMaxDeg, nextVelocity = null, minPeak = 0.1, minDecelPerS = 0.0,
    extremumGuardS = 0.0, peakProminenceRatio = 0.1, reversalDeg = 150.0,
  } = options;
  const c = Float64Array.from(curve);
  const v = velocity instanceof Float64Array ? velocity : Float64Array.from(velocity);
  const n = c.length;
  if (n < 3 || v.length !== 3 * n || !(fps > 0)) {
    throw new RangeError(
      `need curve [F>=3], velocity [F*3] and fps > 0; got ${n}, ${v.length}, ${fps}`,
    );
  }
  if (nextVelocity !== null && nextVelocity.length !== 3 && nextVelocity.length !== 3 * n) {
    throw new RangeError(`next_velocity must be [3] or [F*3]; got ${nextVelocity.length}`);
  }
  const peakFrame = unitPeakFrame(c, peaks(c, peakProminenceRatio));
  const angle = nextVelocity === null ? new Float64Array(n).fill(NaN) : anglesDeg(v, nextVelocity);
  const slope = slopePerS(c, fps);
  const dist = extremumDistance(c);
  const retention = new Float64Array(n);
  const distS = new Float64Array(n);
  const passed = [0, 1, 2, 3].map(() => new Uint8Array(n));
  const cand = [];
  for (let f = 0; f < n; f += 1) {
    const ref = peakFrame[f] >= 0 ? c[peakFrame[f]] : NaN;
    retention[f] = c[f] / ref;
    distS[f] = dist[f] / fps;
    passed[0][f] = retention[f] >= alpha && f > peakFrame[f] && ref >= minPeak ? 1 : 0;
    passed[1][f] = nextVelocity === null || angle[f] <= thetaMaxDeg ? 1 : 0;
    passed[2][f] = slope[f] < -minDecelPerS ? 1 : 0;
    passed[3][f] = distS[f] > 0.0 && distS[f] >= extremumGuardS ? 1 : 0;
    if (passed[0][f] & passed[1][f] & passed[2][f] & passed[3][f]) cand.push(f);
  }
  const byMomentum = (/** @type {number} */ a, /** @type {number} */ b) => (c[a] !== c[b] ? (c[a] > c[b] ? -1 : 1) : a - b);
  const order = Int32Array.from(cand).sort(byMomentum);
  const reason = noCandidateReason(passed, c, minPeak);
  return new MTPResult({
    fps, alpha, thetaMaxDeg, directionChecked: nextVelocity !== null, minDecelPerS, extremumGuardS,
    curve: c, peakFrame, retention, angleDeg: angle, slopePerS: slope, extremumDistanceS: distS,
    passed, order,
    bestFrame: reason === null ? strongestLast(c, peakFrame, cand) : -1,
    reason,
    recommendation: isReversal(passed, angle, reversalDeg) ? REVERSAL_ADVICE : null,
  });
}

/**
 * The last of `frames` in the motion unit whose peak is highest among theirs (the
 * first such unit in `frames`' order on ties).
 * @param {Float64Array} curve [F]
 * @param {Int32Array} peakFrame [F]
 * @param {ArrayLike<number> & Iterable<number>} frames [K ≥ 1] candidate frames
 * @returns {number}
 */
export function strongestLast(curve, peakFrame, frames) {
  let strongest = peakFrame[frames[0]];
  for (const f of frames) if (curve[peakFrame[f]] > curve[strongest]) strongest = peakFrame[f];
  let last = -1;
  for (const f of frames) if (peakFrame[f] === strongest && f > last) last = f;
  return last;
}

/**
 * Whether every otherwise-valid frame (else every retaining frame) is ≥ reversalDeg off.
 * @param {Uint8Array[]} passed 4 rows [F] of 0/1, in CONDITIONS order
 * @param {Float64Array} angle [F] degrees
 * @param {number} reversalDeg
 */
function isReversal(passed, angle, reversalDeg) {
  const n = angle.length;
  let anyValid = false;
  const valid = (/** @type {number} */ f) => (passed[0][f] & passed[2][f] & passed[3][f]) === 1;
  for (let f = 0; f < n && !anyValid; f += 1) anyValid = valid(f);
  let min = Infinity;
  for (let f = 0; f < n; f += 1) {
    const inPool = anyValid ? valid(f) : passed[0][f] === 1;
    if (inPool && Number.isFinite(angle[f]) && angle[f] < min) min = angle[f];
  }
  return min !== Infinity && min >= reversalDeg;
}
