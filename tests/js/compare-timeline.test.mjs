// The transition page's shared clock (static/js/viewer/compare-timeline.js) and the
// viewer-array helpers (static/js/viewer/arrays.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { describe, travellingRoot } from "../../static/js/viewer/arrays.js";
import { keyAction } from "../../static/js/viewer/controls.js";
import { Playback } from "../../static/js/viewer/playback.js";
import { bands, clipFrame, partAt, sharedClock } from "../../static/js/viewer/compare-timeline.js";

// An MTP cut at frame 40 (blend 40–47, B from its frame 12) and an end cut at 120.
const mtp = { frames: 150, cut_frame: 40, entry_frame: 12, blend_start_frame: 40, blend_stop_frame: 47 };
const end = { frames: 190, cut_frame: 120, entry_frame: 5, blend_start_frame: 120, blend_stop_frame: 127 };

test("aligned at the start both clips begin together and the clock is the longer one", () => {
  assert.deepEqual(sharedClock([mtp, end], "start"), { offsets: [0, 0], frames: 190 });
});

test("aligned at the cut both blends start on the same shared frame", () => {
  const { offsets, frames } = sharedClock([mtp, end], "cut");
  assert.deepEqual(offsets, [80, 0]);
  assert.equal(offsets[0] + mtp.blend_start_frame, offsets[1] + end.blend_start_frame);
  assert.equal(frames, Math.max(80 + 150, 190));
  assert.equal(clipFrame(0, offsets[0], mtp.frames), 0); // held at its first frame
  assert.equal(clipFrame(120, offsets[0], mtp.frames), 40);
  assert.equal(clipFrame(500, offsets[0], mtp.frames), 149); // held at its last frame
});

test("each frame of a transition clip is A, the blend or B's own frame", () => {
  assert.deepEqual(partAt(mtp, 39), { part: "A", frame: 39 });
  assert.deepEqual(partAt(mtp, 40), { part: "blend", frame: 0 });
  assert.deepEqual(partAt(mtp, 46), { part: "blend", frame: 6 });
  assert.deepEqual(partAt(mtp, 47), { part: "B", frame: 19 }); // entry 12 + 47 − 40
});

test("the bands tile the clip's span of the shared clock", () => {
  const parts = bands(mtp, 80, 230);
  assert.deepEqual(parts.map((b) => b.part), ["A", "blend", "B"]);
  assert.equal(parts[0].from, 80 / 230);
  assert.equal(parts[2].to, 1);
  for (let i = 1; i < parts.length; i += 1) assert.equal(parts[i].from, parts[i - 1].to);
  const noBlend = { ...mtp, blend_stop_frame: 40 };
  assert.deepEqual(bands(noBlend, 0, 150).map((b) => b.part), ["A", "B"]);
});

// A bridge: A until 40 (blend 40–47 into C from its frame 12), C until 100 (blend 100–110
// into B from its frame 3), B to the end.
const bridged = {
  ...mtp,
  frames: 200,
  bridge: { cut_frame: 100, entry_frame: 3, blend_start_frame: 100, blend_stop_frame: 110 },
};

test("a bridge clip plays A, a blend, C, a blend and B, each at its own frame", () => {
  assert.deepEqual(partAt(bridged, 39), { part: "A", frame: 39 });
  assert.deepEqual(partAt(bridged, 47), { part: "C", frame: 19 }); // C's entry 12 + 47 − 40
  assert.deepEqual(partAt(bridged, 99), { part: "C", frame: 71 });
  assert.deepEqual(partAt(bridged, 105), { part: "blend", frame: 5 });
  assert.deepEqual(partAt(bridged, 110), { part: "B", frame: 13 }); // B's entry 3 + 110 − 100
  const parts = bands(bridged, 0, 200);
  assert.deepEqual(parts.map((b) => b.part), ["A", "blend", "C", "blend", "B"]);
  for (let i = 1; i < parts.length; i += 1) assert.equal(parts[i].from, parts[i - 1].to);
  assert.equal(parts[4].to, 1);
});

test("the follow camera tracks the root child that travels, not a static carrier root", () => {
  // joint 0: carrier root at the origin; joint 1 (hips) walks 2 m along z; joint 2 a foot.
  const frames = 2;
  const positions = [0, 0, 0, 0, 1, 0, 0, 0.1, 0, 0, 0, 0, 0, 1, 2, 0, 0.1, 2];
  const arrays = { parents: [-1, 0, 1], positions, frames, joints: 3, end_site: [false, false, true], fps: 30 };
  assert.equal(travellingRoot(arrays), 1);
  assert.equal(describe(arrays), "2 joints (+ 1 end sites) · 2 frames at 30.00 fps");
});

test("keys map to the clock's actions, extra keys included", () => {
  const p = new Playback(100, 10);
  let toggled = 0;
  const key = (k, shiftKey = false) => keyAction({ key: k, shiftKey }, p, { t: () => { toggled += 1; } });
  key("ArrowRight", true)();
  assert.equal(p.frame, 10);
  key("End")();
  assert.equal(p.frame, 99);
  key("T")();
  assert.equal(toggled, 1);
  assert.equal(key("x"), undefined);
});
