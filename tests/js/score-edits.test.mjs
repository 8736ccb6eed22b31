// Unit tests of the score editor's model (static/js/score/edits.js): node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ScoreEdits, SIGNS, allowedIn, makeSymbol, problemsBySymbol, signKey, snapBeat,
} from "../../static/js/score/edits.js";

const score = () => ({
  format: "kinetograph-score/1",
  tempo_bpm: 120,
  meter: 2,
  measures: 2,
  symbols: [
    { column: "support_right", kind: "direction", beat: 0, duration: 1, direction: "forward", level: "middle" },
    { column: "support_left", kind: "direction", beat: 1, duration: 1, direction: "forward", level: "middle" },
  ],
});

test("a move, a stretch, an add and a removal are each one step of undo and redo", () => {
  const original = score();
  const edits = new ScoreEdits(original);
  edits.move(1, 2);
  edits.stretch(1, 2);
  const added = edits.add(makeSymbol("direction:left", { column: "arm_left", beat: 0, duration: 1 }));
  edits.remove(0);
  assert.equal(added, 2);
  assert.deepEqual(edits.symbols.map((s) => [s.column, s.beat, s.duration]), [
    ["support_left", 2, 2], ["arm_left", 0, 1],
  ]);
  assert.equal(edits.revision, 4);
  for (let i = 0; i < 4; i += 1) assert.ok(edits.undo());
  assert.equal(edits.undo(), false);
  assert.deepEqual(edits.score, original);
  assert.ok(edits.redo() && edits.redo());
  assert.deepEqual(edits.symbols[1], { ...original.symbols[1], beat: 2, duration: 2 });
  edits.move(0, 1); // a new change drops what could be redone
  assert.equal(edits.canRedo, false);
  assert.deepEqual(original, score(), "the score given is not changed");
});

test("a drag is one step however many drafts it makes; a drag back to the start is none", () => {
  const edits = new ScoreEdits(score());
  edits.begin();
  for (const beat of [1.5, 2, 2.5, 3]) edits.draft((s) => { s.symbols[0].beat = beat; });
  assert.ok(edits.end());
  assert.equal(edits.symbols[0].beat, 3);
  assert.equal(edits.undoStack.length, 1);
  edits.begin();
  edits.draft((s) => { s.symbols[0].beat = 1; });
  edits.draft((s) => { s.symbols[0].beat = 3; });
  assert.equal(edits.end(), false);
  assert.ok(edits.undo());
  assert.equal(edits.symbols[0].beat, 0);
});

test("a symbol moves only into a column its kind may stand in", () => {
  const edits = new ScoreEdits(score());
  edits.move(0, 0, "arm_right");
  assert.equal(edits.symbols[0].column, "arm_right");
  edits.move(0, 0, "path");
  assert.equal(edits.symbols[0].column, "arm_right", "a direction is not a path");
  const path = makeSymbol("path:curved", { column: "path", beat: 0, duration: 4 });
  assert.equal(allowedIn(path, "support_left"), false);
  assert.equal(allowedIn(path, "path"), true);
});

test("every palette sign makes a symbol the format knows, with its fields", () => {
  for (const sign of SIGNS) {
    const symbol = makeSymbol(sign.key, { column: sign.columns[0], beat: 1, duration: 1, level: "high" });
    assert.equal(signKey(symbol), sign.key);
    assert.equal(symbol.kind, sign.kind);
  }
  assert.deepEqual(makeSymbol("turn:right", { column: "support_left", beat: 2, duration: 1 }), {
    column: "support_left", kind: "turn", beat: 2, duration: 1, turn: "right", amount: 0.25,
  });
  assert.equal(makeSymbol("path:curved", { column: "path", beat: 0, duration: 2, amount: -45 }).amount_deg, -45);
  assert.equal(makeSymbol("path:straight", { column: "path", beat: 0, duration: 2 }).amount_deg, undefined);
  assert.equal(makeSymbol("step_size", { column: "support_left", beat: 0, duration: 1, amount: -2 }).duration, 0);
  assert.equal(makeSymbol("direction:left_forward", { column: "arm_left", beat: 0, duration: 1, level: "low" }).level, "low");
});

test("beats snap to the grid chosen, never below zero", () => {
  assert.equal(snapBeat(2.4, 1), 2);
  assert.equal(snapBeat(2.6, 1), 3);
  assert.equal(snapBeat(2.3, 0.5), 2.5);
  assert.equal(snapBeat(-0.7, 0.25), 0);
});

test("the server's problems go to the symbol each names", () => {
  const byIndex = problemsBySymbol([
    "symbol 3 (direction in support_left at beat 2): starts before the direction before it ends (3)",
    "symbol 12 (turn in support_left at beat 1): 'amount' must be …",
    "'tempo_bpm' must be a number from 20 to 400",
    "symbol 3 (direction in support_left at beat 2): ends on beat 9, after the score's 8",
  ]);
  assert.deepEqual([...byIndex.keys()].sort((a, b) => a - b), [-1, 3, 12]);
  assert.equal(byIndex.get(3)?.length, 2);
});
