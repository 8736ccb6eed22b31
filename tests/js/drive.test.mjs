// The Drive page's pure pieces (static/js/drive/): keys to world commands as
// timeline.command_of computes them, the recorder's timeline (a key only where the
// command changes, frame f at f / 60 s, a duration that replays as many frames), the
// fixed-timestep clock, the input's camera-relative directions, and the live measures
// catching what they measure (a late reaction, a skating foot).
// node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { FixedClock } from "../../static/js/drive/clock.js";
import { commandOf, IDLE, sameKey, scaled, wantedVelocity } from "../../static/js/drive/commands.js";
import { keyOf } from "../../static/js/drive/input.js";
import { FootSkate, GIVE_UP_FRAMES, ReactionMeter } from "../../static/js/drive/measures.js";
import { Recorder } from "../../static/js/drive/recorder.js";

const manifest = JSON.parse(readFileSync(new URL("../fixtures/motornerve/network.json", import.meta.url), "utf8"));
const layout = manifest.runtime.intent;
const SPEEDS = { walk_mps: 1.3, run_mps: 3.0, run_from_mps: 2.0 };
const walk = (direction) => ({ action: "walk", speed_mps: 1.3, direction_deg: direction, facing_deg: null, strength: 0 });
/** A Keyboard stand-in holding `names` (input.js's KEYS names). */
const held = (...names) => ({ has: (name) => names.includes(name) });

test("a key's world command is timeline.command_of's", () => {
  const out = new Float64Array(12);
  commandOf(layout, walk(-90), out);
  const a = -90 * (Math.PI / 180);
  assert.deepEqual([...out], [Math.sin(a), Math.cos(a), 1.3, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
  commandOf(layout, { action: "run", speed_mps: 3, direction_deg: 30, facing_deg: 90, strength: 0.5 }, out);
  assert.equal(out[2], 3);
  assert.deepEqual([out[3], out[4]], [1, Math.cos(Math.PI / 2)]);
  assert.deepEqual([...out.subarray(5, 10)], [0, 0, 1, 0, 0]); // strength only for interact
  commandOf(layout, { action: "interact", speed_mps: 2, direction_deg: 45, facing_deg: null, strength: 1.5 }, out);
  assert.deepEqual([...out], [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]); // standing, strength clipped
  commandOf(layout, IDLE, out);
  assert.deepEqual([...out], [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  assert.equal(scaled(layout, commandOf(layout, walk(0), out), 1.25)[2], 1.3 / 1.25);
  assert.deepEqual(wantedVelocity(walk(90)), [1.3, 1.3 * Math.cos(Math.PI / 2)]);
  assert.deepEqual(wantedVelocity(IDLE), [0, 0]);
});

test("the recorder keeps a key where the command changes, at frame / 60 s", () => {
  const recorder = new Recorder(60, { maxDurationS: 600, maxKeys: 10_000 });
  recorder.start();
  const frames = [...Array(10).fill(IDLE), ...Array(7).fill(walk(0)), ...Array(5).fill(walk(12)), IDLE, IDLE];
  for (const key of frames) assert.equal(recorder.add(key), true);
  const timeline = recorder.stop();
  assert.deepEqual(timeline.keys.map((k) => [k.t, k.action, k.direction_deg]), [
    [0, "idle", 0], [10 / 60, "walk", 0], [17 / 60, "walk", 12], [22 / 60, "idle", 0],
  ]);
  // timeline.commands plays round(duration_s * 60) + 1 frames: the 24 recorded
  assert.equal(Math.round(timeline.duration_s * 60) + 1, frames.length);
  assert.equal(recorder.active, false);
  // a change on the last frame: the duration must still end after it
  recorder.start();
  recorder.add(IDLE);
  recorder.add(walk(0));
  const short = recorder.stop();
  assert.ok(short.duration_s > short.keys[1].t);
  assert.equal(new Recorder(60, { maxDurationS: 1, maxKeys: 10 }).stop(), null);
});

test("the recorder stops keeping frames at a timeline's limits", () => {
  const byTime = new Recorder(60, { maxDurationS: 0.1, maxKeys: 100 });
  byTime.start();
  for (let f = 0; f < 6; f += 1) assert.equal(byTime.add(IDLE), true);
  assert.equal(byTime.add(IDLE), false);
  assert.ok(byTime.stop().duration_s <= 0.1);
  const byKeys = new Recorder(60, { maxDurationS: 10, maxKeys: 2 });
  byKeys.start();
  assert.equal(byKeys.add(walk(0)), true);
  assert.equal(byKeys.add(walk(1)), true);
  assert.equal(byKeys.add(walk(1)), true); // the same command: no new key
  assert.equal(byKeys.add(walk(2)), false);
});

test("the fixed clock runs the ticks due and keeps the remainder", () => {
  const clock = new FixedClock(1 / 60);
  assert.equal(clock.advance(0.5 / 60), 0);
  assert.ok(Math.abs(clock.alpha - 0.5) < 1e-9);
  assert.equal(clock.advance(2 / 60), 2);
  assert.ok(Math.abs(clock.alpha - 0.5) < 1e-6);
  assert.equal(clock.advance(10), 15); // a long pause is not caught up: 0.25 s at most
  assert.equal(clock.ticks, 17);
});

test("keys move relative to the camera; stop beats interact beats moving", () => {
  const forward = [0, -1]; // the camera looks along -Z
  assert.equal(keyOf(held("forward"), null, forward, SPEEDS).direction_deg, 180);
  assert.equal(keyOf(held("right"), null, forward, SPEEDS).direction_deg, 90); // camera-right is +X
  assert.equal(keyOf(held("left"), null, forward, SPEEDS).direction_deg, -90);
  assert.equal(keyOf(held("forward", "left"), null, [0, 1], SPEEDS).direction_deg, 45);
  const run = keyOf(held("forward", "run"), null, forward, SPEEDS);
  assert.deepEqual([run.action, run.speed_mps], ["run", 3.0]);
  assert.ok(sameKey(keyOf(held("forward", "stop"), null, forward, SPEEDS), IDLE));
  assert.equal(keyOf(held("forward", "interact"), null, forward, SPEEDS).action, "interact");
  assert.ok(sameKey(keyOf(held(), null, forward, SPEEDS), IDLE));
});

test("the gamepad's stick sets direction and speed, A interacts, B stops", () => {
  const pad = (x, y, interact = false, stop = false) => ({ x, y, interact, stop });
  assert.ok(sameKey(keyOf(held(), pad(0.1, -0.1), [0, 1], SPEEDS), IDLE)); // the dead zone
  const full = keyOf(held(), pad(0, -1), [0, 1], SPEEDS);
  assert.deepEqual([full.action, full.speed_mps, full.direction_deg], ["run", 3.0, 0]);
  const half = keyOf(held(), pad(0.6, 0), [0, 1], SPEEDS);
  // looking along +Z, the screen's right is -X (the character's right: its left is +X)
  assert.deepEqual([half.action, half.speed_mps, half.direction_deg], ["walk", 1.5, -90]);
  assert.equal(keyOf(held(), pad(0, -1, true), [0, 1], SPEEDS).action, "interact");
  assert.ok(sameKey(keyOf(held(), pad(0, -1, true, true), [0, 1], SPEEDS), IDLE));
  assert.equal(keyOf(held("back"), pad(0, -1), [0, 1], SPEEDS).direction_deg, 180); // keys win
});

test("the reaction meter counts the frames until the velocity has moved 5 cm/s", () => {
  const meter = new ReactionMeter();
  meter.change(100, 0, 1.3, 0, 0);
  meter.sample(101, 0, 0.01);
  meter.sample(102, 0, 0.04);
  assert.equal(meter.last, null);
  meter.sample(103, 0.5, 0.06); // sideways speed does not count, 6 cm/s forward does
  assert.equal(meter.last, 3);
  meter.change(200, 0, 0, 1.3, 0); // asked to stop: slowing down is moving towards it
  meter.sample(201, 1.2, 0);
  assert.equal(meter.last, 1);
  meter.change(300, 1.0, 0, 0, 0);
  for (let f = 301; f <= 302 + GIVE_UP_FRAMES; f += 1) meter.sample(f, -0.2, 0); // the wrong way
  assert.equal(meter.last, Infinity);
  meter.change(400, 0.01, 0, 0, 0); // nothing worth timing
  assert.equal(meter.pending, null);
});

test("the foot skate measure catches a sliding planted foot and not a still one", () => {
  const skate = new FootSkate(60);
  const plant = (side, frames, slide) => {
    for (let f = 0; f < frames; f += 1) skate.sample(side, f * slide, 0.01, 0);
    skate.sample(side, 5, 0.3, 0); // lifted
  };
  plant("left", 20, 0);
  assert.equal(skate.last, 0);
  // 0.3 m/s: planted, sliding 5 mm a frame; the first sample of a foot has no speed, so
  // 20 planted frames, 19 moves between them
  plant("right", 21, 0.005);
  assert.ok(Math.abs(skate.last - 0.095) < 1e-9, skate.last);
  plant("left", 2, 0); // too short to be a step
  assert.equal(skate.steps.length, 2);
  assert.ok(Math.abs(skate.median - 0.0475) < 1e-9);
  for (let f = 0; f < 30; f += 1) skate.sample("left", f * 0.02, 0.01, 0); // 1.2 m/s: a swing
  skate.sample("left", 0, 0.3, 0);
  assert.equal(skate.steps.length, 2);
});
