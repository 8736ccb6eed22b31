// The proposal page's pins (static/js/review/pins.js): where a comment's frames fall in
// the player, which joints are marked at a frame, the timeline's lanes, the words of a
// pin, @mentions, and the API body the comment form builds.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  activeJointPins, commentPayload, frameText, lanes, mentionSegments, parameterText,
  timelinePins, toPlayerFrame,
} from "../../static/js/review/pins.js";

// A 100 fps A cut at 40 into a 50 fps B entered at its frame 12 at A's rate (B's frame 6).
const ctx = {
  frames: 150, fps: 100,
  layout: { frames: 150, cut_frame: 40, entry_frame: 12, blend_start_frame: 40, blend_stop_frame: 52 },
  clips: { a: { fps: 100 }, b: { fps: 50 } },
};

const comment = (id, fields = {}) => ({
  id, author: "ana", body: "", frame_clip: "transition", frame_start: null, frame_end: null,
  joint: "", mentions: [], resolved_at: null, replies: [], ...fields,
});

test("transition frames are the player's, A's and B's are placed through the layout", () => {
  assert.equal(toPlayerFrame("transition", 17, ctx), 17);
  assert.equal(toPlayerFrame("a", 17, ctx), 17);
  // B's frame 6 at 50 fps is its frame 12 at A's rate, the entry: it plays at the cut.
  assert.equal(toPlayerFrame("b", 6, ctx), 40);
  assert.equal(toPlayerFrame("b", 16, ctx), 60);
  assert.equal(toPlayerFrame("transition", null, ctx), null);
});

test("pins: comments and replies with a frame or a joint, replies resolved with their comment", () => {
  const thread = [
    comment(1, { frame_start: 10, joint: "lAnkle", resolved_at: "2026-01-01T00:00:00Z",
      replies: [comment(2, { frame_start: 12, frame_end: 20 }), comment(3)] }),
    comment(4),
    comment(5, { joint: "rAnkle" }),
    comment(6, { frame_clip: "b", frame_start: 500 }),
  ];
  const pins = timelinePins(thread, ctx);
  assert.deepEqual(pins.map((p) => [p.id, p.start, p.end, p.resolved, p.reply, p.inside]), [
    [1, 10, 10, true, false, true],
    [2, 12, 20, true, true, true],
    [5, null, null, false, false, true],
    [6, 1028, 1028, false, false, false],
  ]);
});

test("a joint ring shows inside its frames, throughout without frames, never once resolved", () => {
  const pins = timelinePins([
    comment(1, { frame_start: 30, frame_end: 35, joint: "lAnkle" }),
    comment(2, { joint: "rAnkle" }),
    comment(3, { frame_start: 31, joint: "torso_head", resolved_at: "2026-01-01T00:00:00Z" }),
    comment(4, { frame_start: 31 }),
  ], ctx);
  const at = (frame) => activeJointPins(pins, frame).map((p) => p.joint);
  assert.deepEqual(at(29), ["rAnkle"]);
  assert.deepEqual(at(30), ["lAnkle", "rAnkle"]);
  assert.deepEqual(at(35), ["lAnkle", "rAnkle"]);
  assert.deepEqual(at(36), ["rAnkle"]);
  assert.deepEqual(at(31), ["lAnkle", "rAnkle"]);
});

test("lanes keep overlapping pins apart and reuse a lane once it is free", () => {
  const pin = (id, start, end) => ({ id, start, end, inside: true });
  const { lane, count } = lanes([pin(1, 0, 10), pin(2, 5, 5), pin(3, 11, 20), pin(4, 8, 30), pin(5, 40, 40)]);
  assert.deepEqual([1, 2, 3, 4, 5].map((id) => lane.get(id)), [0, 1, 0, 1, 0]);
  assert.equal(count, 2);
  assert.equal(lanes([{ id: 9, start: null, end: null, inside: true }]).count, 0);
});

test("frames in words with the time at their clip's rate", () => {
  assert.equal(frameText(comment(1, { frame_start: 12 }), ctx), "frame 12 · 0.12 s");
  assert.equal(frameText(comment(1, { frame_start: 12, frame_end: 20 }), ctx), "frames 12–20 · 0.12–0.20 s");
  assert.equal(frameText(comment(1, { frame_clip: "b", frame_start: 5 }), ctx), "B frame 5 · 0.10 s");
  assert.equal(frameText(comment(1), ctx), "");
  assert.equal(parameterText({ alpha: 0.6, theta_max_deg: 75, measure: "speed", method: "mtp" }),
    "α 0.6, θ_max 75°, speed, mtp");
  assert.equal(parameterText(null), "");
});

test("only the mentions the server resolved are marked, as the server reads them", () => {
  const parts = (body, names) => mentionSegments(body, names).map((p) => (p.mention ? `[${p.text}]` : p.text)).join("");
  assert.equal(parts("Look @ana. And @bob", ["ana"]), "Look [@ana]. And @bob");
  assert.equal(parts("mail ana@studio.test, @ana.b-c here", ["ana", "ana.b-c"]), "mail ana@studio.test, [@ana.b-c] here");
  assert.equal(parts("@ana@ana", ["ana"]), "[@ana]@ana");
  assert.equal(parts("no mentions", []), "no mentions");
});

test("the form's values become the API's comment body", () => {
  const parameters = { alpha: 0.6, theta_max_deg: 75, measure: "speed", method: "mtp", blend: null };
  assert.deepEqual(commentPayload({ body: "  hi  ", frameStart: "", frameEnd: "", joint: "" }, parameters), { body: "hi" });
  assert.deepEqual(
    commentPayload({ body: "foot", frameStart: "30", frameEnd: "40", joint: "lAnkle", pinParameters: true }, parameters),
    {
      body: "foot", frame_clip: "transition", frame_start: 30, frame_end: 40, joint: "lAnkle",
      parameter_set: { alpha: 0.6, theta_max_deg: 75, measure: "speed", method: "mtp" },
    },
  );
  // A range end without a start goes to the server, which says why not.
  assert.deepEqual(commentPayload({ body: "x", frameStart: "", frameEnd: "4" }, parameters), { body: "x", frame_end: 4 });
  assert.deepEqual(commentPayload({ body: "re", frameStart: "", frameEnd: "", replyTo: 7 }, parameters), { body: "re", reply_to: 7 });
});
