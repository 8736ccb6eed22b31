// Parity of the browser's foot lock (static/js/motornerve/foot-lock.js) with motioncore's
// (motioncore/motornerve/foot_lock.py) on tests/fixtures/make_foot_lock_fixtures.py's
// case: the shipped network's own frames in, per frame the ankles' targets and the hips'
// drop, and the locked pose's joints (numpy solves the legs in rotations; the browser
// moves positions).
// node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { applyLock, FootLock } from "../../static/js/motornerve/foot-lock.js";

const FIXTURES = new URL("../fixtures/foot_lock/", import.meta.url);
/** The brief's parity bound, metres (inputs and expectations are float32). */
const TOLERANCE = 1e-4;

const doc = JSON.parse(readFileSync(new URL("case.json", FIXTURES), "utf8"));
const raw = readFileSync(new URL("case.bin", FIXTURES));
const blob = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);

/** @param {string} name */
function array(name) {
  const entry = doc.arrays.find((a) => a.name === name);
  assert.ok(entry, `case.json lacks ${name}`);
  return { values: new Float32Array(blob, entry.offset * 4, entry.length), shape: entry.shape };
}
const row = (a, i) => {
  const width = a.shape.slice(1).reduce((x, y) => x * y, 1);
  return Float64Array.from(a.values.subarray(i * width, (i + 1) * width));
};

const positions = array("positions");
const rotations = array("rotations");
const probabilities = array("probabilities");
const ankles = array("ankles");
const drop = array("drop");
const locked = array("locked");
const frames = positions.shape[0];

function worst(actual, expected) {
  let most = 0;
  for (let i = 0; i < expected.length; i += 1) most = Math.max(most, Math.abs(actual[i] - expected[i]));
  return most;
}

test("the case exercises the lock: feet held, released and the hips lowered", () => {
  assert.ok(doc.held_frames > 100 && doc.dropped_frames > 10, JSON.stringify(doc));
  assert.ok(doc.margin > 1e-4, "a probability sits on a threshold");
});

test("every frame's ankle targets, drop and locked joints agree with numpy's", () => {
  const lock = new FootLock(doc.config, doc.fps);
  const most = { ankles: 0, drop: 0, locked: 0 };
  for (let f = 0; f < frames; f += 1) {
    const pose = row(positions, f);
    const out = lock.step(pose, row(rotations, f), row(probabilities, f));
    most.ankles = Math.max(most.ankles, worst(out.ankles, row(ankles, f)));
    most.drop = Math.max(most.drop, Math.abs(out.drop - drop.values[f]));
    applyLock(pose, doc.config, out);
    most.locked = Math.max(most.locked, worst(pose, row(locked, f)));
    assert.ok(most.ankles <= TOLERANCE && most.drop <= TOLERANCE && most.locked <= TOLERANCE, `frame ${f}: ${JSON.stringify(most)}`);
  }
  console.log(`foot lock parity over ${frames} frames, worst |JS − numpy| (m): ${JSON.stringify(most)}`);
});

test("a lock that is reset starts again from the first frame", () => {
  const lock = new FootLock(doc.config, doc.fps);
  for (let f = 0; f < 120; f += 1) lock.step(row(positions, f), row(rotations, f), row(probabilities, f));
  lock.reset();
  const out = lock.step(row(positions, 0), row(rotations, 0), row(probabilities, 0));
  assert.ok(worst(out.ankles, row(ankles, 0)) <= TOLERANCE);
});
