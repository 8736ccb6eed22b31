// @ts-check
// Drive page: steer a character live with the keyboard or a gamepad, MotorNerve running
// in the browser; record what you drive into a new clip. The wiring of the page: the
// pieces are in drive/ (input, session, HUD, upload) and motornerve/ (the network and
// the controller, ports of motioncore's runtime), the stage and skeleton in viewer/.
//
// init loads the weights (GET projects/{id}/drive/weights/ and …/blob/, ?training=<id>)
// and the rig's size (GET clips/{id}/drive/rig/); animate runs the 60 Hz frames that are
// due (a fixed-timestep accumulator; the network steps on every second one) and draws
// the pose interpolated at the display's fraction of a frame, with the camera following.
// Hooks for tests: #drive[data-ready], window.__drive (the readings).

import * as THREE from "three";
import { getJson, messageOf, parseJson } from "./api.js";
import { all } from "./dom.js";
import { restArrays } from "./drive/character.js";
import { FixedClock } from "./drive/clock.js";
import { Hud } from "./drive/hud.js";
import { Keyboard, keyOf, readPad } from "./drive/input.js";
import { DriveSession } from "./drive/session.js";
import { RecordingUpload } from "./drive/upload.js";
import { MotorNerveNetwork } from "./motornerve/network.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";

/**
 * The element matching `selector` (the template has each one; null where it has not).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @returns {T}
 */
const q = (selector) => /** @type {T} */ (document.querySelector(selector));
/** @param {string} id */
const pageJson = (id) => JSON.parse(document.getElementById(id)?.textContent ?? "null");

const root = /** @type {HTMLElement | null} */ (document.getElementById("drive"));
const ui = {
  canvas: q("#drive [data-canvas]"),
  status: q("#drive [data-drive-status]"),
  missing: q("#drive [data-weights-missing]"),
  /** @type {HTMLSelectElement} */ weights: q("[data-weights-select]"),
  /** @type {HTMLButtonElement} */ restart: q("[data-restart]"),
  /** @type {HTMLInputElement} */ body: q("#drive [data-body]"),
  /** @type {HTMLInputElement} */ bones: q("#drive [data-bones]"),
  rig: /** @type {HTMLSelectElement | null} */ (document.querySelector("[data-rig-select]")),
  /** @type {HTMLInputElement} */ name: q("[data-record-name]"),
  /** @type {HTMLInputElement} */ footLock: q("[data-foot-lock]"),
  /** @type {HTMLButtonElement} */ record: q("[data-record]"),
  reason: q("[data-record-reason]"),
  clock: q("[data-record-clock]"),
};
/** The camera's offset from the hips at the start: behind the character, a little to its left. */
const CHASE = new THREE.Vector3(1.4, 0.9, -3.8);
const FPS_WEIGHT = 0.05;
/** Ground around the character wherever it goes (the stage's labelled grid ends at ±10 m):
 * 1 m cells over this many metres, moved with the character a whole cell at a time. */
const NEAR_GROUND_M = 30;
const HIPS = 0;

const page = {
  /** @type {Stage | null} */ stage: null,
  /** @type {SkeletonView | null} */ skeleton: null,
  /** @type {DriveSession | null} */ session: null,
  /** @type {Hud | null} */ hud: null,
  /** @type {Keyboard | null} */ keys: null,
  /** @type {RecordingUpload | null} */ upload: null,
  /** @type {FixedClock | null} */ clock: null,
  /** @type {{clip_id: number, name: string, scale: number} | null} */ rig: null,
  rigError: "",
  training: /** @type {number | null} */ (null),
  loading: 0,
  last: 0,
  frameMs: 16.7,
  canEdit: root?.dataset.canEdit === "true",
  character: pageJson("drive-character"),
  controls: pageJson("drive-controls"),
  hips: new THREE.Vector3(),
  /** @type {THREE.GridHelper | null} */ ground: null,
  forward: /** @type {[number, number]} */ ([0, 1]),
};
/** The readings tests and curious users read (the HUD shows the same). */
const readings = {
  ready: false,
  weights: "",
  rootSpeed: 0,
  action: "idle",
  queued: false,
  intent: /** @type {number[]} */ ([]),
  frames: 0,
  steps: 0,
  stepMs: 0,
  frameMs: 0,
  fps: 0,
  latencyFrames: /** @type {number | null} */ (null),
  skateLastCm: /** @type {number | null} */ (null),
  skateMedianCm: /** @type {number | null} */ (null),
  footLock: true,
  scale: 1,
  recording: false,
  /** The last recording: its frames, keys and the canonical root of every step. */
  recorded: /** @type {{frames: number, keys: number, trail: number[], scale: number} | null} */ (null),
  error: "",
};
Object.defineProperty(window, "__drive", { value: readings, configurable: true });

// --- loading ----------------------------------------------------------------------------

/**
 * The network of the weights chosen (null, saying why, when the server has none).
 * @param {HTMLElement} root
 * @param {number | null} training
 */
async function loadNetwork(root, training) {
  const query = training === null ? "" : `?training=${training}`;
  const manifest = await fetch(`${root.dataset.weightsUrl}${query}`, { credentials: "same-origin" });
  const body = manifest.ok ? null : parseJson(await manifest.text());
  if (!manifest.ok) {
    const code = body?.error?.code;
    ui.missing.hidden = code !== "no_shipped_weights";
    throw new Error(body?.error?.message ?? `the weights' manifest: HTTP ${manifest.status}`);
  }
  ui.missing.hidden = true;
  const parsed = await manifest.json();
  const blob = await fetch(`${root.dataset.weightsBlobUrl}${query}`, { credentials: "same-origin" });
  if (!blob.ok) throw new Error(`the weights' blob: HTTP ${blob.status}`);
  return new MotorNerveNetwork(parsed, await blob.arrayBuffer());
}

/**
 * Load the weights `training` (null: the shipped ones) and start driving with them.
 * @param {HTMLElement} root
 * @param {number | null} training
 */
async function useWeights(root, training) {
  const ticket = ++page.loading;
  root.dataset.ready = "false";
  readings.ready = false;
  ui.status.textContent = "Loading the network…";
  try {
    const network = await loadNetwork(root, training);
    if (ticket !== page.loading) return;
    page.training = training;
    page.session = new DriveSession(network, page.character, page.controls, page.rig?.scale ?? 1);
    page.session.lockFeet = ui.footLock.checked;
    page.hud = new Hud(root, network.runtime.intent);
    page.clock = new FixedClock(1 / network.runtime.FPS);
    readings.weights = training === null ? "shipped" : `training ${training}`;
    readings.error = "";
    showStatus(network);
    aimCamera();
    root.dataset.ready = "true";
    readings.ready = true;
  } catch (error) {
    if (ticket !== page.loading) return;
    page.session = null;
    readings.error = messageOf(error);
    ui.status.textContent = `No character: ${messageOf(error)}`;
  }
  refreshRecord();
}

/** @param {MotorNerveNetwork} network */
function showStatus(network) {
  const millions = (network.parameterCount / 1e6).toFixed(2);
  const weights = page.training === null ? "Shipped weights" : `Training ${page.training}'s weights`;
  const size = page.rig ? ` · sized to ${page.rig.name}'s rig (×${page.rig.scale.toFixed(3)})` : " · the canonical character";
  ui.status.textContent = `${weights} · ${millions} M parameters${size}`;
}

/**
 * Size the character to clip `clipId`'s rig (none: the canonical size); restarts it.
 * @param {HTMLElement} root
 * @param {string} clipId
 */
async function useRig(root, clipId) {
  page.rig = null;
  page.rigError = "";
  if (clipId) {
    try {
      page.rig = await getJson((root.dataset.rigUrl ?? "").replace(/\/0\//, `/${clipId}/`));
    } catch (error) {
      page.rigError = `This rig cannot be recorded onto: ${messageOf(error)}`;
    }
  }
  readings.scale = page.rig?.scale ?? 1;
  if (page.session) {
    page.session.scale = readings.scale;
    page.session.restart();
    showStatus(page.session.driver.network);
  }
  refreshRecord();
}

// --- recording --------------------------------------------------------------------------

/** Why Record cannot be pressed now ("" when it can). */
function recordProblem() {
  if (!page.canEdit) return ui.reason.textContent ?? "";
  if (page.upload?.busy) return "A recording is being turned into a clip: wait for it to finish.";
  if (!page.session) return "Recording needs weights.";
  if (page.rigError) return page.rigError;
  if (!page.rig) return ui.rig ? "Pick a rig clip to record onto." : "The clip's rig is loading…";
  return "";
}

function refreshRecord() {
  const recording = Boolean(page.session?.recorder.active);
  const problem = recording ? "" : recordProblem();
  ui.record.disabled = Boolean(problem);
  ui.record.textContent = recording ? "Stop" : "Record";
  ui.record.setAttribute("aria-pressed", String(recording));
  if (page.canEdit) ui.reason.textContent = problem || (recording
    ? "Recording: drive, then press Stop."
    : "Recording restarts the character at the origin, standing.");
  ui.weights.disabled = recording;
  if (ui.rig) ui.rig.disabled = recording || !page.canEdit;
  readings.recording = recording;
}

/** @param {HTMLElement} root */
function toggleRecording(root) {
  const session = page.session;
  if (!session) return;
  if (!session.recorder.active) session.startRecording();
  else stopRecording(root, session);
  refreshRecord();
  root.focus(); // Space and the arrows drive again, rather than pressing the button
}

/**
 * Stop recording and send the timeline.
 * @param {HTMLElement} root
 * @param {DriveSession} session
 */
function stopRecording(root, session) {
  const timeline = session.recorder.stop();
  if (!timeline || !page.rig || !page.upload) return;
  readings.recorded = {
    frames: session.recorder.frames, keys: timeline.keys.length, trail: [...session.trail], scale: session.scale,
  };
  ui.clock.textContent = `${session.recorder.seconds.toFixed(1)} s recorded · ${timeline.keys.length} keys`;
  page.upload.send({
    clip: page.rig.clip_id,
    timeline,
    training: page.training,
    record: true,
    foot_lock: ui.footLock.checked,
    name: ui.name.value.trim(),
  }).finally(refreshRecord);
  refreshRecord();
}

// --- animate ----------------------------------------------------------------------------

/** The camera's forward on the ground (x, z), unit: what W moves towards. */
function cameraForward() {
  const stage = /** @type {Stage} */ (page.stage);
  const x = stage.controls.target.x - stage.camera.position.x;
  const z = stage.controls.target.z - stage.camera.position.z;
  const size = Math.hypot(x, z);
  if (size > 1e-6) page.forward = [x / size, z / size];
  return page.forward;
}

/**
 * Play the 60 Hz frames due.
 * @param {DriveSession} session
 * @param {number} due
 */
function play(session, due) {
  const keys = /** @type {Keyboard} */ (page.keys);
  for (let i = 0; i < due; i += 1) {
    const key = keyOf(keys, readPad(navigator), cameraForward(), page.controls);
    const kept = session.tick(key);
    if (!kept && root) {
      stopRecording(root, session);
      ui.reason.textContent = "The recording reached a timeline's limit and was stopped.";
    }
  }
  if (session.recorder.active) ui.clock.textContent = `● ${session.recorder.seconds.toFixed(1)} s`;
}

/** @param {DriveSession} session */
function read(session) {
  const r = readings;
  r.rootSpeed = session.speed;
  r.action = session.action;
  r.queued = session.driver.queued;
  r.intent = Array.from(session.driver.given);
  r.frames = session.driver.frame;
  r.steps = session.driver.steps;
  r.stepMs = session.driver.stepMs;
  r.frameMs = page.frameMs;
  r.fps = 1000 / page.frameMs;
  r.latencyFrames = session.reaction.last;
  r.footLock = session.lockFeet;
  const last = session.skate.last, median = session.skate.median;
  r.skateLastCm = last === null ? null : 100 * last;
  r.skateMedianCm = median === null ? null : 100 * median;
}

/** @param {number} now */
function animate(now) {
  const dt = page.last ? (now - page.last) / 1000 : 0;
  page.last = now;
  if (dt > 0) page.frameMs += FPS_WEIGHT * (1000 * dt - page.frameMs);
  const { session, clock, stage, skeleton } = page;
  if (session && clock && stage && skeleton) {
    play(session, clock.advance(dt));
    const positions = session.display(clock.alpha);
    skeleton.draw(positions, 0);
    stage.track(page.hips.fromArray(positions, 3 * HIPS));
    page.ground?.position.set(Math.round(page.hips.x), -0.002, Math.round(page.hips.z));
    read(session);
    page.hud?.update(readings, now);
  }
  stage?.render();
  requestAnimationFrame(animate);
}

/** The follow camera, behind the character at its start. */
function aimCamera() {
  const stage = page.stage;
  const session = page.session;
  if (!stage || !session) return;
  const positions = session.display(0);
  page.hips.fromArray(positions, 3 * HIPS);
  stage.preset("follow", page.hips);
  stage.camera.position.copy(page.hips).add(CHASE);
  stage.offset.copy(CHASE);
  stage.controls.update();
}

// --- init -------------------------------------------------------------------------------

/** @param {HTMLElement} root */
function bind(root) {
  ui.weights.addEventListener("change", () => useWeights(root, ui.weights.value ? Number(ui.weights.value) : null));
  ui.restart.addEventListener("click", () => {
    page.session?.restart();
    aimCamera();
    root.focus();
  });
  ui.body.addEventListener("change", () => page.skeleton?.showBody(ui.body.checked));
  ui.bones.addEventListener("change", () => page.skeleton?.showBones(ui.bones.checked));
  ui.footLock.addEventListener("change", () => {
    if (page.session) page.session.lockFeet = ui.footLock.checked;
  });
  for (const button of all(root, "[data-preset]")) {
    button.addEventListener("click", () => {
      if (button.dataset.preset === "follow") aimCamera();
      else page.stage?.preset(button.dataset.preset ?? "", page.stage.target);
    });
  }
  ui.rig?.addEventListener("change", () => useRig(root, ui.rig?.value ?? ""));
  ui.record.addEventListener("click", () => toggleRecording(root));
  window.addEventListener("resize", () => page.stage?.resize());
}

/** @param {HTMLElement} root */
async function init(root) {
  const stage = new Stage(ui.canvas);
  page.stage = stage;
  page.ground = new THREE.GridHelper(NEAR_GROUND_M, NEAR_GROUND_M, 0xd5dae1, 0xd5dae1);
  page.ground.position.y = -0.002; // under the labelled grid
  stage.scene.add(page.ground);
  page.keys = new Keyboard(window);
  page.upload = new RecordingUpload({
    run: q("[data-record-run]"), message: q("[data-record-message]"), link: q("[data-record-link]"), error: q("[data-record-error]"),
  }, { drives: root.dataset.drivesUrl ?? "", drive: root.dataset.driveUrl ?? "", clip: root.dataset.clipUrl ?? "" });
  page.skeleton = new SkeletonView(restArrays(page.character));
  page.skeleton.showBody(ui.body.checked);
  page.skeleton.showBones(ui.bones.checked);
  stage.scene.add(page.skeleton.group);
  bind(root);
  requestAnimationFrame(animate);
  if (root.dataset.rigClip) await useRig(root, root.dataset.rigClip);
  await useWeights(root, null);
  window.addEventListener("pagehide", () => {
    page.keys?.dispose();
    page.upload?.dispose();
  });
}

if (root) {
  init(root).catch((error) => {
    readings.error = messageOf(error);
    ui.status.textContent = `The page failed: ${messageOf(error)}`;
  });
}
