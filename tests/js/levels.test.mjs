// Unit tests of a long clip's two levels (static/js/viewer/levels.js): the preview's
// timing at a stride, the full-rate window and its byte range, parsing the float32
// bytes. Issue 16 finding 2 (viewer arrays). node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { describe } from "../../static/js/viewer/arrays.js";
import {
  byteRange, levelOf, needsWindow, parseContentRange, parsePositions, previewFrame, siblingUrl, windowAround,
} from "../../static/js/viewer/levels.js";
import { Playback } from "../../static/js/viewer/playback.js";

/** The preview of 1 h at 120 Hz, 25 joints (motioncore: stride 108, 4,000 frames). */
const HOUR = Object.freeze({
  frames: 4000, joints: 25, fps: 120 / 108, stride: 108, parents: [], positions: [],
  full: { name: "viewer.f32", dtype: "<f4", shape: [432000, 25, 3], bytes_per_frame: 300, frames: 432000, fps: 120 },
});
const WINDOW = Object.freeze({ maxBytes: 4 * 1024 * 1024, spanS: 20, behind: 0.25 });

test("a plain clip is its own level: stride 1, its frames and rate", () => {
  const level = levelOf({ frames: 182, joints: 25, fps: 60, parents: [], positions: [] });
  assert.deepEqual(level, { frames: 182, fps: 60, stride: 1, previewFrames: 182, full: null });
  assert.equal(previewFrame(57, level), 57);
});

test("a preview's clock counts every frame at the clip's rate", () => {
  const level = levelOf(HOUR);
  assert.equal(level.frames, 432000);
  assert.equal(level.fps, 120);
  assert.equal(level.stride, 108);
  assert.equal(previewFrame(0, level), 0);
  assert.equal(previewFrame(107, level), 0);
  assert.equal(previewFrame(108, level), 1);
  assert.equal(previewFrame(431999, level), 3999);
  assert.equal(previewFrame(10 ** 9, level), 3999);
});

test("playing a preview: 1 s of wall time moves 120 frames, 120/108 preview frames", () => {
  const level = levelOf(HOUR);
  const clock = new Playback(level.frames, level.fps);
  clock.play();
  clock.update(1);
  assert.equal(clock.frame, 120);
  assert.equal(previewFrame(clock.frame, level), 1);
  // preview frame k is at the clip time of clip frame k × stride: k / the preview's fps
  clock.seek(250 * 108);
  assert.ok(Math.abs(clock.time - 250 / HOUR.fps) < 1e-9);
  clock.setSpeed(0.25);
  clock.play();
  clock.update(2); // half a second of clip time
  assert.equal(clock.frame, 250 * 108 + 60);
});

test("the window: 20 s around the playhead, a quarter of it behind, inside the clip", () => {
  const level = levelOf(HOUR);
  assert.deepEqual(windowAround(10000, level, WINDOW), { start: 9400, end: 11800 });
  assert.deepEqual(windowAround(100, level, WINDOW), { start: 0, end: 2400 });
  assert.deepEqual(windowAround(431999, level, WINDOW), { start: 429600, end: 432000 });
  const capped = windowAround(10000, level, { ...WINDOW, maxBytes: 300 * 1000 });
  assert.deepEqual(capped, { start: 9750, end: 10750 }); // the memory cap wins
});

test("a file within the cap is fetched whole", () => {
  const small = levelOf({ ...HOUR, full: { ...HOUR.full, frames: 5745, bytes_per_frame: 456 } });
  assert.deepEqual(windowAround(3000, small, WINDOW), { start: 0, end: 5745 });
});

test("another window is needed outside the one held and near its end", () => {
  const held = { start: 9400, end: 11800 };
  assert.equal(needsWindow(5, null, 432000, 600), true);
  assert.equal(needsWindow(9000, held, 432000, 600), true);
  assert.equal(needsWindow(10000, held, 432000, 600), false);
  assert.equal(needsWindow(11200, held, 432000, 600), true); // 5 s before its end
  assert.equal(needsWindow(11900, held, 432000, 600), true);
  assert.equal(needsWindow(431900, { start: 429600, end: 432000 }, 432000, 600), false);
});

test("the byte range of frames [start, end): frame f starts at f × bytes per frame", () => {
  assert.deepEqual(byteRange({ start: 9400, end: 11800 }, 300), {
    first: 2820000, last: 3539999, header: "bytes=2820000-3539999",
  });
  assert.deepEqual(parseContentRange("bytes 2820000-3539999/129600000"), {
    first: 2820000, last: 3539999, size: 129600000,
  });
  assert.equal(parseContentRange("bytes */100"), null);
  assert.equal(parseContentRange(null), null);
});

test("parsing: little-endian float32, frames × joints × 3, or an error", () => {
  const values = [0.5, -1.25, 3, 1e-7, 2.5, -0.0, 7, 8, 9];
  const bytes = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((v, i) => bytes.setFloat32(4 * i, v, true));
  const parsed = parsePositions(bytes.buffer, 3, 1);
  assert.equal(parsed.length, 9);
  assert.deepEqual(Array.from(parsed), Array.from(Float32Array.from(values)));
  assert.throws(() => parsePositions(bytes.buffer, 3, 2), /expected 2 frames × 3 joints/);
});

test("the full-rate file is the download next to the JSON", () => {
  const base = "http://example.test/clips/7/";
  assert.equal(
    siblingUrl("/api/v1/clips/7/download/viewer.json/", "viewer.f32", base),
    "http://example.test/api/v1/clips/7/download/viewer.f32/",
  );
  assert.equal(
    siblingUrl("/api/v1/clips/7/download/viewer-raw.json/", "viewer-raw.f32", base),
    "http://example.test/api/v1/clips/7/download/viewer-raw.f32/",
  );
});

test("the status line: a short clip's as before, a preview's says its stride", () => {
  const shortClip = { frames: 182, joints: 25, fps: 60, parents: [], positions: [], end_site: [true, true, true, true, true] };
  assert.equal(describe(shortClip), "20 joints (+ 5 end sites) · 182 frames at 60.00 fps");
  assert.equal(describe(HOUR), "25 joints (+ 0 end sites) · 432000 frames at 120.00 fps (preview: every 108th frame)");
  assert.match(describe({ ...HOUR, stride: 2 }), /every 2nd frame/);
});
