// Parity of MotorNerve in the browser (static/js/motornerve/) with motioncore's numpy
// runtime, on the fixtures of tests/fixtures/make_motornerve_fixtures.py: the Stepper's
// predictions after varied pushes and intents, and the Controller's per-step shown
// state, contacts, given intent, queued flag, ground and facing over a command stream.
// node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Controller, Gate, localise, sharpChange } from "../../static/js/motornerve/controller.js";
import { MotorNerveNetwork, Stepper, parameterShapes } from "../../static/js/motornerve/network.js";
import {
  orthonormal6d, quatFrom6d, renormalise, rootPosition, sixdFromQuat, slerp, toQuaternions,
} from "../../static/js/motornerve/state.js";

const FIXTURES = new URL("../fixtures/motornerve/", import.meta.url);
/** The brief's parity bound: max |JS − numpy| on every compared number. */
const TOLERANCE = 1e-4;

const bytes = (name) => {
  const b = readFileSync(new URL(name, FIXTURES));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
const json = (name) => JSON.parse(readFileSync(new URL(name, FIXTURES), "utf8"));

const manifest = json("network.json");
const data = bytes("network.bin");
const streams = json("streams.json");
const blob = bytes("streams.bin");
const network = new MotorNerveNetwork(manifest, data);
const runtime = manifest.runtime;
const S = manifest.shape.state;

/** A recorded array of streams.bin: {values (typed, flat), shape}. */
function array(name) {
  const entry = streams.arrays.find((a) => a.name === name);
  assert.ok(entry, `streams.json lacks ${name}`);
  const Type = entry.dtype === "<f8" ? Float64Array : Float32Array;
  const values = new Type(blob, entry.offset * Type.BYTES_PER_ELEMENT, entry.length);
  return { values, shape: entry.shape };
}
const row = (a, i) => {
  const width = a.shape.slice(1).reduce((x, y) => x * y, 1);
  return a.values.subarray(i * width, (i + 1) * width);
};

/** The largest difference seen per quantity (printed at the end, for the report). */
const worst = {};
function close(actual, expected, what, tol = TOLERANCE) {
  let most = 0;
  let where = -1;
  for (let i = 0; i < expected.length; i += 1) {
    const d = Math.abs(actual[i] - expected[i]);
    if (!(d <= most)) {
      most = d;
      where = i;
    }
  }
  const key = what.replace(/ \d+.*$/, "");
  if (/^(stepper|controller) /.test(what)) worst[key] = Math.max(worst[key] ?? 0, most);
  assert.ok(most <= tol, `${what}: |${actual[where]} - ${expected[where]}| = ${most} at ${where}`);
}

test("the network holds the blob in its kernel's memory and has the manifest's parameters", () => {
  const shapes = parameterShapes(manifest.shape);
  assert.deepEqual([...network.params.keys()], [...shapes.keys()]);
  const blob = new Float32Array(data);
  for (const [name, tensor] of network.params) {
    assert.equal(tensor.buffer, network.kernel.weights.buffer, `${name} is not in the kernel's memory`);
    assert.equal(tensor.byteOffset % 16, 0, `${name} is not 16-byte aligned`);
    const at = tensor.byteOffset / 4;
    assert.deepEqual(tensor, blob.subarray(at, at + tensor.length), `${name} is not the blob's`);
  }
  assert.equal(network.parameterCount, 69796);
  assert.equal(network.columns, runtime.HISTORY - 2 * (manifest.shape.kernel - 1));
});

test("a wrong format, a missing tensor or a short blob is refused", () => {
  assert.throws(() => new MotorNerveNetwork({ ...manifest, format: "motornerve-f16-v1" }, data), /motornerve-f32-v1/);
  assert.throws(() => new MotorNerveNetwork({ ...manifest, tensors: manifest.tensors.slice(1) }, data), /lacks conv1.weight/);
  assert.throws(() => new MotorNerveNetwork(manifest, data.slice(0, 1024)), /past the blob/);
});

test("the stepper refuses to predict before it has a full history", () => {
  const stepper = new Stepper(network);
  for (let i = 0; i < runtime.HISTORY - 1; i += 1) stepper.push(network.startState);
  assert.equal(stepper.ready, false);
  assert.throws(() => stepper.predict(runtime.INITIAL_INTENT), /needs 15 states/);
  stepper.push(network.startState);
  assert.equal(stepper.ready, true);
});

test("the stepper predicts what network.Stepper predicts", () => {
  const pushes = array("stepper_pushes");
  const intents = array("stepper_intents");
  const states = array("stepper_states");
  const contacts = array("stepper_contacts");
  const { after_push: after, intent_index: which } = streams.stepper;
  const { output_mean: dMean, output_std: dStd } = network.norms;
  const stepper = new Stepper(network);
  let k = 0;
  const change = (next, last) => Array.from(next, (v, i) => (v - last[i] - dMean[i]) / dStd[i]);
  for (let p = 0; p < pushes.shape[0]; p += 1) {
    stepper.push(row(pushes, p));
    for (; k < after.length && after[k] === p; k += 1) {
      const out = stepper.predict(row(intents, which[k]));
      const last = row(pushes, p);
      close(out.state, row(states, k), `stepper state ${k}`);
      close(out.contacts, row(contacts, k), `stepper contacts ${k}`);
      // the motion head's own output, in output_std units (a finer check: output_std is
      // 0.004-0.012 on most dimensions)
      close(change(out.state, last), change(row(states, k), last), `stepper motion head ${k}`);
    }
  }
  assert.equal(k, after.length, "every recorded prediction was made");
});

test("weights whose motion head gives the state itself do not add the last state", () => {
  const absolute = new MotorNerveNetwork({ ...manifest, shape: { ...manifest.shape, residual: false } }, data);
  const [change, itself] = [new Stepper(network), new Stepper(absolute)];
  const pushes = array("stepper_pushes");
  for (let p = 0; p < pushes.shape[0]; p += 1) {
    change.push(row(pushes, p));
    itself.push(row(pushes, p));
  }
  const last = row(pushes, pushes.shape[0] - 1);
  const a = Array.from(change.predict(runtime.INITIAL_INTENT).state, (v, i) => v - last[i]);
  close(itself.predict(runtime.INITIAL_INTENT).state, a, "absolute state", 1e-9);
});

test("predict reuses its buffers", () => {
  const stepper = new Stepper(network);
  stepper.fill(network.startState);
  const a = stepper.predict(runtime.INITIAL_INTENT);
  const b = stepper.predict(runtime.QUEUED_INTENT);
  assert.equal(a, b);
  assert.equal(a.state, b.state);
});

/** The commands of every step, from the segments. */
function commands() {
  return streams.controller.segments.flatMap((s) => Array.from({ length: s.steps }, () => s.command));
}

test("the controller plays the command stream as runtime.Controller does", () => {
  const expected = {
    state: array("controller_states"), contacts: array("controller_contacts"), given: array("controller_given"),
    ground: array("controller_ground"), facing: array("controller_facing"),
  };
  const queued = streams.controller.queued;
  const controller = new Controller(network);
  const cmds = commands();
  assert.equal(cmds.length, queued.length);
  let flags = "";
  cmds.forEach((command, t) => {
    const step = controller.step(command);
    close(step.state, row(expected.state, t), `controller state ${t}`);
    close(step.contacts, row(expected.contacts, t), `controller contacts ${t}`);
    close(step.given, row(expected.given, t), `controller given ${t}`);
    close(step.ground, row(expected.ground, t), `controller ground ${t}`);
    close([step.facing], [expected.facing.values[t]], `controller facing ${t}`);
    flags += step.queued ? "1" : "0";
  });
  assert.equal(flags, queued, "queued flags");
  assert.match(queued, /1/, "the stream queues an interaction");
});

test("the stream exercises the gate, the blend and both limits", () => {
  const states = array("controller_states");
  const { VELOCITY, TURN } = runtime.state;
  const most = runtime.MAX_ACCELERATION_MPS2 * runtime.STEP_S;
  const mostTurn = runtime.MAX_TURN_ACCELERATION_RADPS2 * runtime.STEP_S;
  let accel = 0;
  let turn = 0;
  for (let t = 1; t < states.shape[0]; t += 1) {
    const [a, b] = [row(states, t - 1), row(states, t)];
    accel = Math.max(accel, Math.hypot(b[VELOCITY[0]] - a[VELOCITY[0]], b[VELOCITY[0] + 1] - a[VELOCITY[0] + 1]));
    turn = Math.max(turn, Math.abs(b[TURN] - a[TURN]));
  }
  assert.ok(Math.abs(accel - most) < 1e-6, `the velocity limit is reached (${accel} of ${most})`);
  assert.ok(Math.abs(turn - mostTurn) < 1e-6, `the turn limit is reached (${turn} of ${mostTurn})`);
  const given = array("controller_given");
  const interact = runtime.INTERACT + runtime.intent.ACTION[0];
  const flags = streams.controller.queued;
  const interacting = Array.from({ length: flags.length }, (_, t) => row(given, t)[interact] === 1);
  assert.ok(interacting.some(Boolean), "an interaction reaches the network");
  assert.ok(flags.includes("10"), "a queued interaction is let through");
});

test("6-D, quaternion and slerp helpers keep motioncore's conventions", () => {
  const q = new Float64Array(4);
  quatFrom6d([1, 0, 0, 0, 1, 0], 0, q);
  assert.deepEqual(Array.from(q), [1, 0, 0, 0]);
  const half = Math.SQRT1_2; // 90° about +Y: x -> -z
  const r = new Float64Array(6);
  sixdFromQuat([half, 0, half, 0], 0, r);
  close(r, [0, 0, -1, 0, 1, 0], "sixd of a yaw", 1e-15);
  quatFrom6d([0, 0, -2, 0, 3, 0.3], 0, q);
  close(q, [half, 0, half, 0], "quat of an unnormalised 6-D", 1e-15);
  const mid = new Float64Array(4);
  slerp([1, 0, 0, 0], 0, [-half, 0, -half, 0], 0, 0.25, mid); // -q is q: the short arc
  close(mid, [Math.cos(Math.PI / 16), 0, Math.sin(Math.PI / 16), 0], "slerp, not nlerp", 1e-15);
  const o = new Float64Array(6);
  orthonormal6d([2, 0, 0, 1, 1, 0], 0, o);
  assert.deepEqual(Array.from(o), [1, 0, 0, 0, 1, 0]);
});

test("toQuaternions gives three.js's (x, y, z, w), the hips turned by the facing", () => {
  const layout = runtime.state;
  const state = new Float64Array(S);
  renormalise(layout, network.startState, state);
  const local = toQuaternions(layout, state);
  assert.equal(local.length, 4 * layout.JOINTS.length);
  const q = new Float64Array(4);
  quatFrom6d(state, 6, q);
  close(local.subarray(4, 8), [q[1], q[2], q[3], q[0]], "joint 1 as x, y, z, w", 1e-7);
  state.set([1, 0, 0, 0, 1, 0], 0);
  const turned = toQuaternions(layout, state, Math.PI / 2);
  close(turned.subarray(0, 4), [0, Math.SQRT1_2, 0, Math.SQRT1_2], "hips facing +X", 1e-7);
  assert.deepEqual(Array.from(rootPosition(layout, state, [2, 3])), [2, state[layout.HEIGHT], 3]);
});

test("localise, the gate and sharp_change follow runtime.py", () => {
  const out = new Float64Array(12);
  const east = [1, 0, 1.3, 0, 0, 0, 1, 0, 0, 0, 0, 0]; // walk +X, face where you move
  localise(runtime.intent, east, 0, out);
  close(out, [1, 0, 1.3, 1, Math.cos(Math.PI / 2), 0, 1, 0, 0, 0, 0, 0], "to +X facing +Z", 1e-15);
  localise(runtime.intent, east, Math.PI / 2, out);
  close(out.subarray(0, 5), [0, 1, 1.3, 0, 1], "to +X facing +X", 1e-15);
  const gate = new Gate(runtime);
  const interact = [0, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0];
  gate.admit(interact, 0.7, out);
  assert.equal(gate.queued, true);
  assert.deepEqual(Array.from(out), runtime.QUEUED_INTENT);
  gate.admit(interact, 0.5, out);
  assert.equal(gate.queued, false);
  assert.deepEqual(Array.from(out), interact);
  gate.admit([0, 1, 9, 0, 1, 0, 0, 1, 0, 0, 0, 0], 0, out);
  assert.equal(out[2], runtime.MAX_SPEED_MPS);
  assert.equal(sharpChange(runtime, runtime.INITIAL_INTENT, interact), true);
  assert.equal(sharpChange(runtime, interact, interact), false);
});

test.after(() => {
  const text = Object.entries(worst).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(", ");
  console.log(`largest |JS - numpy|: ${text}`);
});
