// Unit tests of the full-rate window of a long clip (static/js/viewer/full-rate.js)
// against a fake server that answers byte ranges of a float32 file. Issue 16 finding 2
// (viewer arrays). node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { FullRateWindow, LeveledSkeleton } from "../../static/js/viewer/full-rate.js";
import { levelOf } from "../../static/js/viewer/levels.js";

const JOINTS = 2;
const FRAMES = 1000;
const FPS = 100;
const STRIDE = 10;
const BYTES_PER_FRAME = JOINTS * 12;

/** Position value of clip frame f, joint j, axis a (distinct everywhere, exact in float32). */
const value = (f, j, a) => f + j / 4 + a / 16;

/** The full-rate file: [FRAMES × JOINTS × 3] little-endian float32. */
function fullFile() {
  const view = new DataView(new ArrayBuffer(FRAMES * BYTES_PER_FRAME));
  for (let f = 0; f < FRAMES; f += 1) {
    for (let j = 0; j < JOINTS; j += 1) {
      for (let a = 0; a < 3; a += 1) view.setFloat32(((f * JOINTS + j) * 3 + a) * 4, value(f, j, a), true);
    }
  }
  return view.buffer;
}

/** The preview: every STRIDE-th frame (as motioncore writes it). */
function preview() {
  const frames = FRAMES / STRIDE;
  const positions = Array.from({ length: frames * JOINTS * 3 }, (_, i) => {
    const a = i % 3;
    const j = Math.floor(i / 3) % JOINTS;
    return value(Math.floor(i / (3 * JOINTS)) * STRIDE, j, a);
  });
  return {
    frames, joints: JOINTS, fps: FPS / STRIDE, stride: STRIDE, parents: [-1, 0], positions,
    full: { name: "viewer.f32", dtype: "<f4", shape: [FRAMES, JOINTS, 3], bytes_per_frame: BYTES_PER_FRAME, frames: FRAMES, fps: FPS },
  };
}

/** A server for `file`: 206 for `bytes=a-b` (or 200 with everything when `ignoreRanges`). */
function server(file, { ignoreRanges = false } = {}) {
  /** @type {{url: string, range: string, aborted: () => boolean}[]} */
  const requests = [];
  /** @type {typeof fetch} */
  const fetchImpl = async (url, init) => {
    const range = /** @type {Record<string, string>} */ (init?.headers ?? {}).Range;
    const signal = init?.signal;
    requests.push({ url: String(url), range, aborted: () => Boolean(signal?.aborted) });
    const [first, last] = range.slice("bytes=".length).split("-").map(Number);
    if (ignoreRanges) return new Response(file, { status: 200 });
    const headers = { "Content-Range": `bytes ${first}-${last}/${file.byteLength}` };
    return new Response(file.slice(first, last + 1), { status: 206, headers });
  };
  return { fetchImpl, requests };
}

/** A window over the fake file, resolving `landed()` each time one arrives. */
function makeWindow(options = {}) {
  const { fetchImpl, requests } = server(fullFile(), options);
  const level = levelOf(preview());
  let resolve = () => {};
  const landed = () => new Promise((r) => { resolve = r; });
  const windowed = new FullRateWindow("http://t/viewer.f32/", /** @type {any} */ (level), JOINTS, {
    fetch: fetchImpl, spanS: 2, behind: 0.25, marginS: 0.5, maxBytes: 1000 * BYTES_PER_FRAME - 1,
    onLoad: () => resolve(),
    ...options,
  });
  return { windowed, requests, landed };
}

test("the window around the playhead comes by range and holds exactly those frames", async () => {
  const { windowed, requests, landed } = makeWindow();
  const arrived = landed();
  windowed.want(500);
  assert.equal(windowed.baseOf(500), -1); // not yet
  await arrived;
  assert.deepEqual(windowed.window, { start: 450, end: 650 }); // 2 s, a quarter behind
  assert.equal(requests[0].range, `bytes=${450 * BYTES_PER_FRAME}-${650 * BYTES_PER_FRAME - 1}`);
  const base = windowed.baseOf(523);
  assert.equal(base, (523 - 450) * JOINTS * 3);
  assert.equal(windowed.positions?.[base + 3 + 2], value(523, 1, 2));
  assert.equal(windowed.baseOf(650), -1);
  assert.ok((windowed.positions?.byteLength ?? 0) < 1000 * BYTES_PER_FRAME); // the cap
});

test("one request at a time; the newest frame wanted is fetched after it lands", async () => {
  const { windowed, requests, landed } = makeWindow();
  let arrived = landed();
  windowed.want(100);
  windowed.want(120);
  windowed.want(900); // scrubbed away while the first window loads
  assert.equal(requests.length, 1);
  await arrived;
  arrived = landed();
  await arrived;
  assert.equal(requests.length, 2);
  assert.deepEqual(windowed.window, { start: 800, end: 1000 });
  windowed.want(950); // held, and the clip ends with it: nothing more
  assert.equal(requests.length, 2);
});

test("a server that ignores the range is not downloaded whole: the preview plays on", async () => {
  const { windowed, requests, landed } = makeWindow({ ignoreRanges: true });
  const arrived = landed();
  windowed.want(500);
  await arrived;
  assert.equal(requests[0].aborted(), true);
  assert.equal(windowed.positions, null);
  assert.match(windowed.failed ?? "", /answered 200/);
  windowed.want(10);
  assert.equal(requests.length, 1);
});

test("dispose aborts the request in flight and lets the window go", async () => {
  const { windowed, requests } = makeWindow();
  windowed.want(500);
  windowed.dispose();
  assert.equal(requests[0].aborted(), true);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(windowed.positions, null);
  windowed.want(10);
  assert.equal(requests.length, 1);
});

/** A SkeletonView stand-in that records what it was asked to draw. */
function fakeView(arrays) {
  return {
    frame: -1,
    /** @type {string[]} */ drawn: [],
    update(frame) { this.frame = frame; this.drawn.push(`preview ${frame}`); },
    draw(positions, base) { this.frame = -1; this.drawn.push(`full ${positions[base]}`); },
    jointPosition(frame, joint, out) {
      const i = (frame * arrays.joints + joint) * 3;
      return out.set(arrays.positions[i], arrays.positions[i + 1], arrays.positions[i + 2]);
    },
  };
}

const vector = () => ({ x: 0, y: 0, z: 0, set(x, y, z) { Object.assign(this, { x, y, z }); return this; } });

test("a leveled skeleton draws the preview until the window lands, then every frame", async () => {
  const arrays = preview();
  const view = fakeView(arrays);
  const { fetchImpl, requests } = server(fullFile());
  let resolve = () => {};
  const arrived = new Promise((r) => { resolve = r; });
  const skeleton = new LeveledSkeleton(/** @type {any} */ (view), arrays, "/api/v1/clips/3/download/viewer.json/", {
    fetch: fetchImpl, spanS: 2, maxBytes: 1000 * BYTES_PER_FRAME - 1, onLoad: () => resolve(),
  });
  skeleton.update(537);
  assert.deepEqual(view.drawn, ["preview 53"]); // the preview frame at or before it
  assert.equal(skeleton.jointPosition(537, 1, vector()).x, value(530, 1, 0));
  await arrived;
  assert.equal(requests[0].url, "http://localhost/api/v1/clips/3/download/viewer.f32/");
  assert.equal(view.drawn.at(-1), `full ${value(537, 0, 0)}`); // drawn again on arrival
  skeleton.update(538);
  assert.equal(view.drawn.at(-1), `full ${value(538, 0, 0)}`);
  assert.equal(skeleton.jointPosition(538, 1, vector()).z, value(538, 1, 2));
  for (let f = 539; f < 600; f += 1) skeleton.update(f); // playing within the window
  assert.equal(requests.length, 1);
  assert.deepEqual(skeleton.full?.window, { start: 487, end: 687 });
  skeleton.update(620); // near its end: the next one is asked for
  assert.equal(requests.length, 2);
  skeleton.dispose();
});

test("a clip within the budget (stride 1) never fetches", () => {
  const arrays = { frames: 3, joints: 1, fps: 30, parents: [-1], positions: [0, 0, 0, 1, 1, 1, 2, 2, 2] };
  const view = fakeView(arrays);
  const skeleton = new LeveledSkeleton(/** @type {any} */ (view), arrays, "/x/viewer.json/", {
    fetch: () => { throw new Error("no fetch for a short clip"); },
  });
  skeleton.update(2);
  skeleton.update(7); // clamped
  assert.deepEqual(view.drawn, ["preview 2", "preview 2"]);
  assert.equal(skeleton.full, null);
  assert.equal(skeleton.frame, 2);
});
