// Unit tests of the score page's words and the metronome's timing
// (static/js/score/format.js, static/js/score/metronome.js): node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  beatReadout, measureRows, printState, quantity, secondsPerBeat, stepCount,
} from "../../static/js/score/format.js";
import { Metronome, isAccent, tickDue } from "../../static/js/score/metronome.js";

const SCORE = { tempo_bpm: 120, meter: 2, measures: 5, symbols: [] };
const FOOTPRINTS = {
  seconds_per_beat: 0.5,
  footprints: [
    { side: "left", start_s: 0, end_s: 1, position_m: [0.09, 0], heading_rad: 0, level: "middle", kind: "start", step_m: 0 },
    { side: "right", start_s: 0, end_s: 0, position_m: [-0.09, 0], heading_rad: 0, level: "middle", kind: "start", step_m: 0 },
    { side: "right", start_s: 0.5, end_s: 1.5, position_m: [-0.09, 0.7], heading_rad: 0, level: "middle", kind: "step", step_m: 0.7 },
    { side: "left", start_s: 1, end_s: 5, position_m: [0.09, 1.4], heading_rad: 0, level: "middle", kind: "step", step_m: 0.7 },
  ],
  centre_path_m: [[0, 0], [0, 0.1]],
  eps_physics_m2_s4: 5.816,
  eps_comfort_m2: 7.1e-5,
  min_foot_height_m: -0.00001,
  ground_skate_m: 0.0042,
};

test("the measures with their units: ε_comfort in cm², the lowest foot in mm, foot movement in cm", () => {
  const rows = Object.fromEntries(measureRows(FOOTPRINTS, SCORE).map(([label, value]) => [label, value]));
  assert.equal(rows["ε physics"], "5.82 m²/s⁴");
  assert.equal(rows["ε comfort"], "0.71 cm²");
  assert.equal(rows["Lowest foot"], "0.0 mm"); // no "-0.0"
  assert.equal(rows["Standing-foot movement"], "0.42 cm");
  assert.equal(rows.Steps, "2");
  assert.equal(rows.Timing, "120 bpm · 5 × 2 beats");
  const timing = measureRows(FOOTPRINTS, SCORE).find(([label]) => label === "Timing");
  assert.equal(timing[2], "5.00 s");
  for (const [, , note] of measureRows(FOOTPRINTS, SCORE)) assert.equal(typeof note, "string");
  // Without footprints: dashes, not errors.
  const bare = Object.fromEntries(measureRows(null, SCORE).map(([label, value]) => [label, value]));
  assert.equal(bare["ε physics"], "—");
  assert.equal(bare.Steps, "—");
  assert.equal(quantity(-0.04, 1, "mm"), "0.0 mm");
  assert.equal(quantity(-0.4, 1, "mm"), "-0.4 mm");
  assert.equal(quantity(null, 1, "mm"), "—");
});

test("seconds per beat from the footprints, else the tempo", () => {
  assert.equal(secondsPerBeat(FOOTPRINTS, SCORE), 0.5);
  assert.equal(secondsPerBeat(null, { tempo_bpm: 100 }), 0.6);
  assert.equal(secondsPerBeat({ seconds_per_beat: 0 }, { tempo_bpm: 60 }), 1);
  assert.throws(() => secondsPerBeat(null, {}));
  assert.equal(stepCount(FOOTPRINTS), 2);
  assert.equal(stepCount({}), 0);
});

test("the beat readout", () => {
  assert.equal(beatReadout(0, 2, 10), "Bar 1 · beat 1 of 2");
  assert.equal(beatReadout(3.2, 2, 10), "Bar 2 · beat 2 of 2");
  assert.equal(beatReadout(10, 2, 10), "Bar 5 · beat 2 of 2");
  assert.equal(beatReadout(5, 4, 16), "Bar 2 · beat 2 of 4");
});

test("a print is future, current while the foot stands on it, then past", () => {
  const print = FOOTPRINTS.footprints[2];
  assert.equal(printState(print, 0.2), "future");
  assert.equal(printState(print, 0.5), "current");
  assert.equal(printState(print, 1.5), "current");
  assert.equal(printState(print, 1.6), "past");
});

test("metronome ticks: whole beats reached while playing, a loop, a start on the beat", () => {
  assert.equal(tickDue(0.9, 1.02), 1);
  assert.equal(tickDue(1.02, 1.5), null);
  assert.equal(tickDue(1.5, 2.0), 2); // exactly on the beat
  assert.equal(tickDue(1.9, 3.1), 3); // a slow frame crossed two: one tick, the latest
  assert.equal(tickDue(9.9, 0.05, 10), 0); // looped back to the start
  assert.equal(tickDue(9.9, 10, 10), null); // the score's end is not a beat
  assert.equal(tickDue(null, 0), 0); // play pressed on beat 0
  assert.equal(tickDue(null, 4.01), 4);
  assert.equal(tickDue(null, 4.3), null); // play pressed between beats
  assert.equal(tickDue(1, Number.NaN), null);
  assert.equal(isAccent(0, 2), true);
  assert.equal(isAccent(3, 2), false);
  assert.equal(isAccent(4, 4), true);
});

test("the metronome without Web Audio stays silent; with it, a click per tick", () => {
  const silent = new Metronome({ audio: null });
  silent.setEnabled(true);
  assert.equal(silent.silent, true);
  silent.tick(true); // no error
  const made = [];
  class FakeContext {
    constructor() {
      this.currentTime = 1;
      this.destination = {};
    }
    resume() { return Promise.resolve(); }
    suspend() { return Promise.resolve(); }
    close() { return Promise.resolve(); }
    createOscillator() {
      const o = { frequency: {}, connect: (g) => g, start: (t) => made.push(["start", t, o.frequency.value]), stop() {} };
      return o;
    }
    createGain() {
      return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d };
    }
  }
  const m = new Metronome({ audio: FakeContext });
  m.tick(true); // off: nothing
  assert.equal(made.length, 0);
  m.setEnabled(true);
  m.tick(true);
  m.tick(false);
  assert.deepEqual(made.map(([, , f]) => f), [1600, 1000]);
  m.setEnabled(false);
  m.tick(true);
  assert.equal(made.length, 2);
  m.dispose();
});
