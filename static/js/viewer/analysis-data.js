// @ts-check
// From the analysis JSON (GET /api/v1/clips/{id}/analysis/, docs/analysis.md) to what
// the curves panel draws. Pure functions: testable with node.

import { curveOf } from "../analysis/rescore.js";

/**
 * The analysis JSON (the server's, or the browser's re-scoring in the same keys); the
 * fields the clip page reads.
 * @typedef {object} AnalysisBody
 * @property {number} fps
 * @property {number} frames
 * @property {{measure: import("../analysis/rescore.js").Measure, curve_unit: string,
 *   next_velocity_local_m_per_s: number[] | null}} parameters
 * @property {{runs: {phase: string, start_frame: number, stop_frame: number}[]}} phases
 * @property {import("../analysis/rescore.js").AnalysisCurves} curves
 * @property {import("../analysis/mtp.js").Candidate[]} candidates
 * @property {{frame: number, time_s: number} | null} best
 * @property {string | null} [reason]
 * @property {string | null} [recommendation]
 * @property {{strategy: string, frames: number[]}} cuts
 * @property {{periodic?: boolean}} [gait]
 */

const PHASE_CODES = Object.freeze({ start: 0, steady: 1, transition: 2, ending: 3 });

/**
 * Phase code per frame (0 start … 3 ending) from `phases.runs`.
 * @param {AnalysisBody["phases"]["runs"] | undefined} runs
 * @param {number} frames
 */
export function codesFromRuns(runs, frames) {
  /** @type {Record<string, number | undefined>} */
  const codes = PHASE_CODES;
  const out = new Uint8Array(frames).fill(PHASE_CODES.ending);
  for (const run of runs ?? []) {
    out.fill(codes[run.phase] ?? PHASE_CODES.ending, run.start_frame, run.stop_frame);
  }
  return out;
}

/**
 * CurvesPanel data from an analysis body.
 * @param {AnalysisBody} body
 * @returns {import("./curves-panel.js").CurvesData}
 */
export function panelData(body) {
  const measure = body.parameters.measure;
  return {
    fps: body.fps,
    curve: curveOf(body.curves, measure), // |projection| for PCA, as motioncore scores it
    unit: body.parameters.curve_unit,
    label: measure,
    codes: codesFromRuns(body.phases.runs, body.frames),
    gaitPhase: body.curves.gait_phase_rad,
    contacts: body.curves.contacts ?? {},
    candidates: body.candidates,
    best: body.best ? body.best.frame : -1,
  };
}

/**
 * One line for people: the chosen cut, or why there is none.
 * @param {AnalysisBody} body
 */
export function summary(body) {
  const n = body.candidates.length;
  if (!body.best) return `No cut: ${body.reason ?? "no candidate"}.`;
  const cuts = body.cuts.frames.length;
  const aligned = body.cuts.strategy === "phase_aligned" ? ` · ${cuts} phase-aligned cut points` : "";
  return `Best cut: frame ${body.best.frame} (${body.best.time_s.toFixed(3)} s) · ${n} candidate${n === 1 ? "" : "s"}${aligned}`;
}
