// Words and numbers of the score page: the measures panel (with units), the beat
// readout and the footprints' states. Pure functions (no DOM), tested with node
// (tests/js/score-format.test.mjs).
//
// The footprints JSON: {seconds_per_beat, footprints: [{side, start_s, end_s,
// position_m: [x, z], heading_rad, level, kind, step_m}], centre_path_m: [[x, z], …],
// eps_physics_m2_s4, eps_comfort_m2, min_foot_height_m, ground_skate_m}.

import { beatPosition } from "./layout.js";

const finite = (value) => value != null && value !== "" && Number.isFinite(Number(value));

/**
 * `value` with `digits` decimals and its unit ("0.12 cm"), or "—" when absent; a value
 * that rounds to zero is written without a sign ("0.0 mm", not "-0.0 mm").
 */
export function quantity(value, digits, unit) {
  if (!finite(value)) return "—";
  let text = Number(value).toFixed(digits);
  if (/^-0(\.0*)?$/.test(text)) text = text.slice(1);
  return unit ? `${text} ${unit}` : text;
}

/** Seconds per beat: the footprints' own, else from the score's tempo. */
export function secondsPerBeat(footprints, score) {
  if (finite(footprints?.seconds_per_beat) && footprints.seconds_per_beat > 0) {
    return Number(footprints.seconds_per_beat);
  }
  const tempo = Number(score?.tempo_bpm);
  if (!(tempo > 0)) throw new Error("the score has no tempo");
  return 60 / tempo;
}

/** The steps: every print but the starting stance. */
export function stepCount(footprints) {
  return (footprints?.footprints ?? []).filter((p) => p.kind !== "start").length;
}

/** `value` × `scale` as quantity() writes it ("—" when absent). */
const scaled = (value, scale, digits, unit) => quantity(finite(value) ? Number(value) * scale : null, digits, unit);

/**
 * The measures panel: [label, value, explanation] rows, with units (ε_comfort in cm²,
 * the lowest foot in mm, standing-foot movement in cm).
 * @returns {Array<[string, string, string]>}
 */
export function measureRows(footprints, score) {
  const f = footprints ?? {};
  const beats = Number(score?.meter) * Number(score?.measures);
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
      finite(score?.tempo_bpm) ? `${Number(score.tempo_bpm)} bpm · ${score.measures} × ${score.meter} beats` : "—",
      seconds == null || !Number.isFinite(seconds) ? "" : `${seconds.toFixed(2)} s`,
    ],
  ];
}

/** "Bar 2 · beat 1 of 2": where `beat` is, for the readout beside the metronome. */
export function beatReadout(beat, meter, beats) {
  const { bar, beatInBar } = beatPosition(beat, meter, beats);
  return `Bar ${bar} · beat ${beatInBar} of ${meter}`;
}

/**
 * A print's state at `seconds`: "current" while its foot is on it, "past" after,
 * "future" before it is used.
 */
export function printState(print, seconds) {
  if (seconds < print.start_s - 1e-6) return "future";
  if (seconds <= print.end_s + 1e-6) return "current";
  return "past";
}
