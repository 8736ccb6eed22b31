// Unit tests of the player's clock (static/js/viewer/playback.js): node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { Playback, SPEEDS } from "../../static/js/viewer/playback.js";

test("frames and time: 121 frames at 60 fps last 2 s", () => {
  const p = new Playback(121, 60);
  assert.equal(p.duration, 2);
  p.seek(60);
  assert.equal(p.frame, 60);
  assert.equal(p.time, 1);
  p.seek(500);
  assert.equal(p.frame, 120);
  p.seek(-3);
  assert.equal(p.frame, 0);
});

test("playing advances by wall time × speed and loops", () => {
  const p = new Playback(121, 60);
  p.play();
  p.update(0.5);
  assert.equal(p.frame, 30);
  p.setSpeed(2);
  p.update(0.5);
  assert.equal(p.frame, 90);
  p.update(0.5); // 1.5 + 1.0 = 2.5 s: loops to 0.5 s
  assert.equal(p.frame, 30);
  assert.equal(p.playing, true);
});

test("without loop, playback stops on the last frame and restarts from 0", () => {
  const p = new Playback(31, 30);
  p.loop = false;
  p.play();
  p.update(5);
  assert.equal(p.frame, 30);
  assert.equal(p.playing, false);
  p.play();
  assert.equal(p.frame, 0);
});

test("speed is clamped to 0.25×–2× and shifts along the steps", () => {
  const p = new Playback(10, 30);
  p.setSpeed(9);
  assert.equal(p.speed, 2);
  p.setSpeed(0.01);
  assert.equal(p.speed, 0.25);
  p.setSpeed(1);
  p.shiftSpeed(1);
  assert.equal(p.speed, SPEEDS[SPEEDS.indexOf(1) + 1]);
  p.shiftSpeed(-1);
  p.shiftSpeed(-1);
  assert.equal(p.speed, 0.5);
});

test("stepping pauses and moves whole frames; listeners hear every change", () => {
  const p = new Playback(100, 120);
  const seen = [];
  const stop = p.onChange((playback) => seen.push(playback.frame));
  p.play();
  p.step(5);
  assert.equal(p.playing, false);
  assert.equal(p.frame, 5);
  p.step(-10);
  assert.equal(p.frame, 0);
  stop();
  p.step(1);
  assert.deepEqual(seen, [0, 5, 0]);
});

test("a one-frame clip plays without dividing by zero", () => {
  const p = new Playback(1, 30);
  p.play();
  assert.equal(p.update(0.1), true);
  assert.equal(p.frame, 0);
  assert.throws(() => new Playback(0, 30));
});

test("setLength keeps the time where it fits and clamps it where it does not", () => {
  const p = new Playback(100, 10);
  p.seek(40);
  p.setLength(200);
  assert.equal(p.frame, 40);
  p.setLength(21);
  assert.equal(p.frame, 20);
  assert.throws(() => p.setLength(0));
});
