// @ts-check
// Words and numbers of the score page: the measures panel (with units), the beat
// readout and the footprints' states. Pure functions (no DOM), tested with node
// (tests/js/score-format.test.mjs).
//
// The footprints JSON: {seconds_per_beat, footprints: [{side, start_s, end_s,
// position_m: [x, z], heading_rad, level, kind, step_m}], centre_path_m: [[x, z], …],
// eps_physics_m2_s4, eps_comfort_m2, min_foot_height_m, ground_skate_m}.

import { beatPosition } from "./layout.js";

/**
 * A footprint: which foot, when it stands there (seconds), where (metres, on the ground)
 * and which way it points.
 * @typedef {{side: string, start_s: number, end_s: number, position_m?: number[] | null,
 *   heading_rad?: number, level?: string, kind?: string, step_m?: number}} Print
 */

/**
 * The footprints JSON (see above), as far as the page reads it.
 * @typedef {object} Footprints
 * @property {number} [seconds_per_beat]
 * @property {Print[]} [footprints]
 * @property {number[][]} [centre_path_m]
 * @property {number | null} [eps_physics_m2_s4]
 * @property {number | null} [eps_comfort_m2]
 * @property {number | null} [min_foot_height_m]
 * @property {number | null} [ground_skate_m]
 */

/**
 * The normalised score (kinetograph-score/1, docs/score-format.md), the fields read here.
 * @typedef {object} Score
 * @property {number} tempo_bpm
 * @property {number} meter beats per bar
 * @property {number} measures bars
 * @property {import("./glyphs.js").ScoreSymbol[]} [symbols]
 */

const finite = (/** @type {unknown} */ value) => value != null && value !== "" && Number.isFinite(Number(value));

/**
 * `value` with `digits` decimals and its unit ("0.12 cm"), or "—" when absent; a value
 * that rounds to zero is written without a sign ("0.0 mm", not "-0.0 mm").
 * @param {unknown} value a number, or a number's text
 * @param {number} digits
 * @param {string} [unit]
 */
export function quantity(value, digits, unit) {
  if (!finite(value)) return "—";
  let text = Number(value).toFixed(digits);
  if (/^-0(\.0*)?$/.test(text)) text = text.slice(1);
  return unit ? `${text} ${unit}` : text;
}

/**
 * Seconds per beat: the footprints' own, else from the score's tempo.
 * @param {Footprints | null | undefined} footprints
 * @param {Score | null | undefined} score
 */
export function secondsPerBeat(footprints, score) {
  const own = footprints?.seconds_per_beat;
  if (finite(own) && Number(own) > 0) return Number(own);
  const tempo = Number(score?.tempo_bpm);
  if (!(tempo > 0)) throw new Error("the score has no tempo");
  return 60 / tempo;
}

/**
 * The steps: every print but the starting stance.
 * @param {Footprints | null | undefined} footprints
 */
export function stepCount(footprints) {
  return (footprints?.footprints ?? []).filter((p) => p.kind !== "start").length;
}

/**
 * `value` × `scale` as quantity() writes it ("—" when absent).
 * @param {unknown} value
 * @param {number} scale
 * @param {number} digits
 * @param {string} unit
 */
const scaled = (value, scale, digits, unit) => quantity(finite(value) ? Number(value) * scale : null, digits, unit);

/**
 * The measures panel: [label, value, explanation] rows, with units (ε_comfort in cm²,
 * the lowest foot in mm, standing-foot movement in cm).
 * @param {Footprints | null | undefined} footprints
 * @param {Score | null | undefined} score
 * @returns {Array<[string, string, string]>}
 */
export function measureRows(footprints, score) {
  /** @type {Footprints} */
  const f = footprints ?? {};
  const beats = Number(score?.meter) * Number(score?.measures);
  /** @type {number | null} */
  let seconds = null;
  try {
    seconds = beats * secondsPerBeat(footprints, score);
  } catch {
    seconds = null;
  }
  return [
    ["ε physics", quantity(f.eps_physics_m2_s4, 2, "m²/s⁴"), "mean squared centre acceleration the legs cannot push"],
    ["ε comfort", scaled(f.eps_comfort_m2, 1e4, 2, "cm²"), "mean squared stretch or bend of the standing legs"],
    ["Lowest foot", scaled(f.min_foot_height_m, 1e3, 1, "mm"), "the feet's lowest height above the floor"],
    ["Standing-foot movement", scaled(f.ground_skate_m, 100, 2, "cm"), "how far a standing foot moves, at most"],
    ["Steps", footprints ? String(stepCount(footprints)) : "—", "footprints after the starting stance"],
    [
      "Timing",
      score && finite(score.tempo_bpm) ? `${Number(score.tempo_bpm)} bpm · ${score.measures} × ${score.meter} beats` : "—",
      seconds == null || !Number.isFinite(seconds) ? "" : `${seconds.toFixed(2)} s`,
    ],
  ];
}

/**
 * "Bar 2 · beat 1 of 2": where `beat` is, for the readout beside the metronome.
 * @param {number} beat
 * @param {number} meter
 * @param {number} beats
 */
export function beatReadout(beat, meter, beats) {
  const { bar, beatInBar } = beatPosition(beat, meter, beats);
  return `Bar ${bar} · beat ${beatInBar} of ${meter}`;
}

/**
 * A print's state at `seconds`: "current" while its foot is on it, "past" after,
 * "future" before it is used.
 * @param {{start_s: number, end_s: number}} print
 * @param {number} seconds
 * @returns {"future" | "current" | "past"}
 */
export function printState(print, seconds) {
  if (seconds < print.start_s - 1e-6) return "future";
  if (seconds <= print.end_s + 1e-6) return "current";
  return "past";
}
