// From the analysis JSON (GET /api/v1/clips/{id}/analysis/, docs/analysis.md) to what
// the curves panel draws. Pure functions: testable with node.

const CURVE_KEYS = Object.freeze({
  speed: "speed_m_per_s",
  energy: "energy_j_per_kg",
  pca: "pca_m_per_s",
});
const PHASE_CODES = Object.freeze({ start: 0, steady: 1, transition: 2, ending: 3 });

/** Phase code per frame (0 start … 3 ending) from `phases.runs`. */
export function codesFromRuns(runs, frames) {
  const codes = new Uint8Array(frames).fill(PHASE_CODES.ending);
  for (const run of runs ?? []) {
    codes.fill(PHASE_CODES[run.phase] ?? PHASE_CODES.ending, run.start_frame, run.stop_frame);
  }
  return codes;
}

/**
 * The curve a method scores (|projection| for PCA, as motioncore does) with its unit.
 * @param {object} curves the analysis `curves` object
 * @param {"speed" | "energy" | "pca"} method
 */
export function measure(curves, method) {
  const values = curves[CURVE_KEYS[method]];
  if (!values) throw new Error(`no ${method} curve in the analysis`);
  return method === "pca" ? values.map(Math.abs) : values;
}

/** CurvesPanel data from an analysis body. */
export function panelData(body) {
  const method = body.parameters.method;
  return {
    fps: body.fps,
    curve: measure(body.curves, method),
    unit: body.parameters.curve_unit,
    label: method,
    codes: codesFromRuns(body.phases.runs, body.frames),
    gaitPhase: body.curves.gait_phase_rad,
    contacts: body.curves.contacts ?? {},
    candidates: body.candidates,
    best: body.best ? body.best.frame : -1,
  };
}

/** One line for people: the chosen cut, or why there is none. */
export function summary(body) {
  const n = body.candidates.length;
  if (!body.best) return `No cut: ${body.reason ?? "no candidate"}.`;
  const cuts = body.cuts.frames.length;
  const aligned = body.cuts.strategy === "phase_aligned" ? ` · ${cuts} phase-aligned cut points` : "";
  return `Best cut: frame ${body.best.frame} (${body.best.time_s.toFixed(3)} s) · ${n} candidate${n === 1 ? "" : "s"}${aligned}`;
}
