// @ts-check
// Re-score MTP candidates and re-label the four phases in the browser when α, θ_max
// or the momentum measure change: motioncore.analysis.analyze (the part after
// `features`) on the curves the server sends in analysis.json (docs/analysis.md).
//
// Input layout (the server's `curves`, rounded to 5 decimals there):
//   speed_m_per_s, energy_j_per_kg, pca_m_per_s (signed) [F]; gait_phase_rad [F]
//   (null where undefined); com_velocity_m_per_s flat [F*3] (x, y, z per frame, m/s,
//   world, Y up); heading_rad [F] (yaw about +Y, 0 facing +Z).
// `nextLocalVelocity` is the server's `parameters.next_velocity_local_m_per_s` ([3] m/s,
// the next clip's initial COM velocity in its own heading frame) or null.
// Output keys are the server's JSON keys, so one renderer shows both.

import { detect, strongestLast } from "./mtp.js";
import { label } from "./phases.js";

/** @typedef {"speed" | "energy" | "pca"} Measure a momentum measure */

/**
 * The server's `curves` (see above); the clip page also gets the foot contacts there.
 * @typedef {object} AnalysisCurves
 * @property {ArrayLike<number>} speed_m_per_s [F]
 * @property {ArrayLike<number>} energy_j_per_kg [F]
 * @property {ArrayLike<number>} pca_m_per_s [F] signed
 * @property {(number | null)[]} gait_phase_rad [F] null where undefined
 * @property {ArrayLike<number>} com_velocity_m_per_s [F*3]
 * @property {ArrayLike<number>} heading_rad [F]
 * @property {{left?: number[][], right?: number[][]}} [contacts] [start, stop) frame runs
 */

/** Below this peak (curve units) a motion unit never builds momentum: momentum.MIN_PEAK. */
export const MIN_PEAK = Object.freeze({ speed: 0.1, energy: 0.005, pca: 0.1 });
/** Units of each measure: analysis.CURVE_UNITS. */
export const CURVE_UNITS = Object.freeze({ speed: "m/s", energy: "J/kg", pca: "m/s" });
const CURVE_KEYS = Object.freeze({
  speed: "speed_m_per_s",
  energy: "energy_j_per_kg",
  pca: "pca_m_per_s",
});
const TWO_PI = 2.0 * Math.PI;
const PHASE_ATOL_RAD = 1e-12; // gait.aligned_frames: a run starting exactly on the target

/**
 * `Features.curve(measure)`: speed, energy, or |PCA projection|.
 * @param {AnalysisCurves} curves the server's `curves`
 * @param {Measure} method
 * @returns {Float64Array} [F] curve units (CURVE_UNITS[method])
 */
export function curveOf(curves, method) {
  if (!(method in CURVE_KEYS)) {
    throw new RangeError(`unknown momentum measure '${method}': use speed, energy or pca`);
  }
  const values = Float64Array.from(curves[CURVE_KEYS[method]]);
  if (method === "pca") for (let f = 0; f < values.length; f += 1) values[f] = Math.abs(values[f]);
  return values;
}

/**
 * The next clip's velocity as each frame of this clip sees it: `local` turned by the
 * frame's heading about +Y (`quat.rotate(alignment.yaw(heading), local)`, same
 * operations: q = (cos h/2, 0, sin h/2, 0), v + w·t + u×t with t = 2·u×v).
 * @param {ArrayLike<number>} heading [F] radians
 * @param {ArrayLike<number>} local [3] m/s
 * @returns {Float64Array} [F*3] m/s, world
 */
export function nextVelocityPerFrame(heading, local) {
  const n = heading.length;
  const out = new Float64Array(3 * n);
  const [v0, v1, v2] = [local[0], local[1], local[2]];
  for (let f = 0; f < n; f += 1) {
    const half = 0.5 * heading[f];
    const w = Math.cos(half);
    const s = Math.sin(half);
    const [u0, u1, u2] = [s * 0.0, s * 1.0, s * 0.0];
    const t0 = 2.0 * (u1 * v2 - u2 * v1);
    const t1 = 2.0 * (u2 * v0 - u0 * v2);
    const t2 = 2.0 * (u0 * v1 - u1 * v0);
    out[3 * f] = v0 + w * t0 + (u1 * t2 - u2 * t1);
    out[3 * f + 1] = v1 + w * t1 + (u2 * t0 - u0 * t2);
    out[3 * f + 2] = v2 + w * t2 + (u0 * t1 - u1 * t0);
  }
  return out;
}

/** numpy's float `mod` (the sign of the divisor). */
function pyMod(/** @type {number} */ a, /** @type {number} */ b) {
  const m = a % b;
  if (m === 0) return 0; // copysign(0, b) with b > 0
  return (b < 0) !== (m < 0) ? m + b : m;
}

/**
 * `gait.aligned_frames`: frames where the gait phase crosses `targetPhaseRad` (mod 2π),
 * one per cycle: the first defined frame at or past it after a defined frame before
 * it, or a defined frame exactly on it after an undefined one.
 * @param {ArrayLike<number | null>} phase [F] radians in [0, 2π), null/NaN undefined
 * @param {number} targetPhaseRad
 * @returns {Int32Array} [K] ascending
 */
export function alignedFrames(phase, targetPhaseRad) {
  const t = pyMod(targetPhaseRad, TWO_PI);
  const out = [];
  let wraps = 0;
  let prevValue = 0; // nan_to_num: undefined counts as 0 for the wrap count
  let prevDefined = false;
  let prevTurn = NaN;
  for (let f = 0; f < phase.length; f += 1) {
    const raw = phase[f];
    const p = raw === null ? NaN : raw;
    const defined = Number.isFinite(p);
    const value = Number.isNaN(p) ? 0 : p;
    if (f > 0 && value - prevValue < 0) wraps += 1;
    const turn = defined ? Math.floor((p + TWO_PI * wraps - t) / TWO_PI) : NaN;
    const crossed = f > 0 && turn > prevTurn && prevDefined;
    const on = !prevDefined && defined && Math.abs(p - t) <= PHASE_ATOL_RAD;
    if (crossed || on) out.push(f);
    [prevValue, prevDefined, prevTurn] = [value, defined, turn];
  }
  return Int32Array.from(out);
}

/**
 * `analysis._cuts`: phase-aligned cuts for a periodic motion, else the single MTP.
 * @param {import("./mtp.js").MTPResult} result
 * @param {ArrayLike<number | null>} phase [F] gait phase, radians (null undefined)
 * @param {boolean} periodic the server's `gait.periodic`
 * @returns {{strategy: string, frames: number[], times_s: number[], gait_phase_rad: number | null}}
 */
export function cuts(result, phase, periodic) {
  /**
   * @param {string} strategy
   * @param {ArrayLike<number>} frames
   * @param {number | null} phaseRad
   */
  const make = (strategy, frames, phaseRad) => ({
    strategy,
    frames: Array.from(frames),
    times_s: Array.from(frames, (f) => f / result.fps),
    gait_phase_rad: phaseRad,
  });
  const best = result.bestFrame;
  if (best < 0) return make("none", [], null);
  const at = (/** @type {number} */ f) => {
    const value = phase[f];
    return value === null ? NaN : value;
  };
  if (periodic) {
    const defined = result.order.filter((f) => Number.isFinite(at(f)));
    if (defined.length) {
      const ref = Number.isFinite(at(best))
        ? best
        : strongestLast(result.curve, result.peakFrame, defined);
      return make("phase_aligned", alignedFrames(phase, at(ref)), at(ref));
    }
  }
  return make("mtp", [best], null);
}

/**
 * Re-score and re-label a clip at new parameters (motioncore.analysis.analyze).
 * @param {Object} args
 * @param {AnalysisCurves} args.curves the server's `curves` (see top)
 * @param {number} args.fps Hz
 * @param {number} args.alpha momentum retention against the unit's peak (0.5–0.7)
 * @param {number} args.thetaMaxDeg largest angle to the next clip's velocity, degrees
 * @param {Measure} args.measure the momentum measure
 *   (defaults and bounds: motioncore.parameters, served to the page; none are copied here)
 * @param {ArrayLike<number> | null} [args.nextLocalVelocity=null] [3] m/s; null skips θ
 * @param {boolean} [args.periodic=false] the server's `gait.periodic` (phase-aligned cuts)
 * @returns {{parameters: {alpha: number, theta_max_deg: number, measure: Measure, curve_unit: string,
 *     direction_checked: boolean, next_velocity_local_m_per_s: number[] | null},
 *   mtp: import("./mtp.js").MTPResult,
 *   labels: import("./phases.js").PhaseLabels, best: (import("./mtp.js").Candidate | null),
 *   reason: (string | null), recommendation: (string | null),
 *   frames_passing: Object<string, number>,
 *   candidates: import("./mtp.js").Candidate[], cuts: ReturnType<typeof cuts>}}
 *   `mtp.breakdown(frame)` explains any frame, `labels.codes` [F] / `labels.runs()` colour
 *   the timeline; `candidates` are in `mtp.order`, each with its breakdown.
 */
export function rescore(args) {
  const { curves, fps, alpha, thetaMaxDeg, measure } = args;
  const { nextLocalVelocity = null, periodic = false } = args;
  const curve = curveOf(curves, measure);
  const nextVelocity =
    nextLocalVelocity === null ? null : nextVelocityPerFrame(curves.heading_rad, nextLocalVelocity);
  const minPeak = MIN_PEAK[measure];
  const velocity = curves.com_velocity_m_per_s;
  const mtp = detect(curve, velocity, fps, { alpha, thetaMaxDeg, nextVelocity, minPeak });
  // analysis.STEADY_RATIO, raised to α when α is higher (as motioncore does)
  const labels = label(curve, fps, { alpha, steadyRatio: Math.max(0.9, alpha) });
  return {
    parameters: {
      alpha,
      theta_max_deg: thetaMaxDeg,
      measure,
      curve_unit: CURVE_UNITS[measure],
      direction_checked: nextVelocity !== null,
      next_velocity_local_m_per_s: nextLocalVelocity && Array.from(nextLocalVelocity),
    },
    mtp,
    labels,
    best: mtp.best,
    reason: mtp.reason,
    recommendation: mtp.recommendation,
    frames_passing: mtp.framesPassing(),
    candidates: mtp.candidates(),
    cuts: cuts(mtp, curves.gait_phase_rad, periodic),
  };
}
