// Walk page: draw a path, have the PFNN walk it on the clip's rig, play the result.
// init / animate / resize and the wiring; the pieces live in walk/ and viewer/.
//
// POST /api/v1/pfnn/generate/ starts a generation (its run is polled, runs.js), then
// GET /api/v1/pfnn/generations/{id}/ gives its measures and downloads; the walk is
// played from downloads["viewer.json"] (the clip page's viewer arrays; the browser does
// no kinematics). Hooks for tests: #walk[data-ready][data-frame][data-generation],
// #path-editor[data-points].

import * as THREE from "three";
import { csrfToken, errorMessage, getJson, parseJson } from "./api.js";
import { RunStatusView } from "./runs.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PlaybackControls } from "./viewer/controls.js";
import { Playback } from "./viewer/playback.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";
import { downloadRows, measureRows, pathSummary } from "./walk/format.js";
import { GenerationList } from "./walk/generations.js";
import { PathEditor } from "./walk/path-editor.js";
import { groundTrack, pathProblem, presetPoints } from "./walk/path.js";
import { PathView } from "./walk/path-view.js";

const root = document.getElementById("walk");
const form = document.querySelector("[data-walk-form]");
const q = (selector, within = root) => within?.querySelector(selector) ?? null;
const ui = {
  canvas: q("[data-canvas]"),
  status: q("[data-viewer-status]"),
  controls: q(".viewer__controls"),
  presets: root ? [...root.querySelectorAll("[data-preset]")] : [],
  body: q("[data-body]"),
  measures: q("[data-measures]"),
  downloads: q("[data-downloads]"),
  editor: document.getElementById("path-editor"),
  speed: q("[data-speed-input]", form),
  speedValue: q("[data-speed-value]", form),
  durations: form ? [...form.querySelectorAll("[data-duration]")] : [],
  seconds: q("[data-seconds]", form),
  mode: q("[data-mode]", form),
  footLock: q("[data-foot-lock]", form),
  summary: q("[data-path-summary]", form),
  walk: q("[data-walk-button]", form),
  reason: q("[data-walk-reason]", form),
  run: q("[data-walk-run]", form),
  message: q("[data-walk-message]", form),
  error: q("[data-walk-error]", form),
};
const state = {
  stage: null, pathView: null, editor: null, list: null,
  skeleton: null, playback: null, controls: null, hips: 0, generation: null,
  busy: false, loading: 0, last: 0,
};

// --- the form ---------------------------------------------------------------------------

/** The form's settings (speed m/s, seconds or null, mode, foot lock). */
function settings() {
  const fixed = ui.durations.find((radio) => radio.checked)?.value === "seconds";
  return {
    speed: Number(ui.speed.value),
    seconds: fixed ? Number(ui.seconds.value) : null,
    mode: ui.mode.value,
    footLock: ui.footLock.checked,
  };
}

/** Why Walk cannot be pressed now ("" when it can). */
function walkProblem({ seconds }) {
  if (state.busy) return "A walk is being generated: wait for it to finish.";
  const problem = pathProblem(state.editor.points);
  if (problem) return problem;
  const min = Number(ui.seconds.min);
  const max = Number(ui.seconds.max);
  if (seconds != null && !(seconds >= min && seconds <= max)) {
    return `Give a duration between ${min} and ${max} s, or walk to the path's end.`;
  }
  return "";
}

/** Bring the readouts and the Walk button up to the form and the path. */
function refreshForm() {
  const chosen = settings();
  ui.speedValue.textContent = `${chosen.speed.toFixed(2)} m/s`;
  ui.seconds.disabled = chosen.seconds == null;
  ui.summary.textContent = pathSummary(state.editor.points, chosen.speed, chosen.seconds);
  const problem = walkProblem(chosen);
  ui.walk.disabled = Boolean(problem);
  ui.reason.textContent = problem;
  ui.reason.hidden = !problem;
  if (!state.generation) state.pathView.setPoints(state.editor.points);
}

/** Fill the form with a past generation's parameters ("Use these settings"). */
function reuse(parameters) {
  state.editor.setPoints(parameters.path ?? []);
  ui.speed.value = String(parameters.speed_mps ?? ui.speed.value);
  const fixed = parameters.seconds != null;
  for (const radio of ui.durations) radio.checked = (radio.value === "seconds") === fixed;
  if (fixed) ui.seconds.value = String(parameters.seconds);
  if (parameters.mode) ui.mode.value = parameters.mode;
  ui.footLock.checked = parameters.foot_lock !== false;
  refreshForm();
  ui.editor.scrollIntoView({ block: "nearest" });
}

function say(message, error = "") {
  ui.message.textContent = message;
  ui.error.textContent = error;
  ui.error.hidden = !error;
}

/** POST the walk, follow its run, then play it. */
async function submit(event) {
  event.preventDefault();
  const chosen = settings();
  if (walkProblem(chosen)) return;
  state.busy = true;
  refreshForm();
  say("Sending the path…");
  const response = await fetch(form.dataset.generateUrl, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({
      clip: Number(form.dataset.clip),
      path: state.editor.points,
      speed_mps: chosen.speed,
      seconds: chosen.seconds,
      mode: chosen.mode,
      foot_lock: chosen.footLock,
    }),
  }).catch(() => null);
  const body = response ? parseJson(await response.text()) : null;
  if (!response?.ok || !body?.run) {
    finish(response ? errorMessage(body, response.status) : "The server could not be reached.");
    return;
  }
  form.dataset.generation = String(body.id);
  state.list.add(body);
  const template = document.getElementById("run-status-template");
  const element = template.content.firstElementChild.cloneNode(true);
  ui.run.replaceChildren(element);
  ui.run.hidden = false;
  say(`Walk ${body.id}: generating on the clip's rig…`);
  state.list.follow(String(body.id), body.run, {
    views: [new RunStatusView(element)],
    onDone: (generation) => {
      finish("");
      if (generation?.run?.status === "succeeded") {
        say(`Walk ${generation.id} is ready.`);
        show(generation).catch(fail);
      } else if (generation) {
        say(`Walk ${body.id} could not be generated (the reason is above).`);
      } // else: the list has said why its result could not be read
    },
  });
}

/** The run has finished (or never started): Walk can be pressed again. */
function finish(error) {
  state.busy = false;
  if (error) say("", error);
  refreshForm();
}

function bindForm() {
  state.editor = new PathEditor(ui.editor, { onChange: refreshForm });
  for (const button of form.querySelectorAll("[data-path-preset]")) {
    button.addEventListener("click", () => state.editor.setPoints(presetPoints(button.dataset.pathPreset)));
  }
  q("[data-remove-last]", form).addEventListener("click", () => state.editor.removeLast());
  q("[data-clear]", form).addEventListener("click", () => state.editor.clear());
  for (const input of [ui.speed, ui.seconds, ui.mode, ui.footLock, ...ui.durations]) {
    input.addEventListener("input", refreshForm);
    input.addEventListener("change", refreshForm);
  }
  form.addEventListener("submit", submit);
  refreshForm();
}

// --- the player -------------------------------------------------------------------------

function showFrame() {
  const { playback, skeleton, stage } = state;
  skeleton.update(playback.frame);
  const hips = skeleton.jointPosition(playback.frame, state.hips, new THREE.Vector3());
  stage.track(hips);
  state.controls.show();
  state.editor?.setMarker([hips.x, hips.z]);
}

/** The measures (with units) and the download links of a generation. */
function showResult(generation) {
  ui.measures.replaceChildren(...measureRows(generation.result, generation.parameters).map(([label, value, note]) => {
    const row = document.createElement("div");
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = label;
    dd.textContent = value;
    if (note) dt.title = note;
    row.append(dt, dd);
    return row;
  }));
  ui.downloads.replaceChildren(...downloadRows(generation.downloads).map(([name, label, url]) => {
    const item = document.createElement("li");
    const link = document.createElement(url ? "a" : "span");
    link.textContent = label;
    if (url) {
      link.href = url;
      link.setAttribute("download", name);
    } else link.className = "muted";
    item.append(link, ` `, Object.assign(document.createElement("code"), { textContent: name, className: "small" }));
    return item;
  }));
}

/** Put a generation's walk (its viewer arrays) in the player and play it. */
function play(generation, arrays) {
  if (state.skeleton) {
    state.skeleton.group.removeFromParent();
    state.skeleton.dispose();
  }
  state.skeleton = new SkeletonView(arrays);
  state.skeleton.showBody(Boolean(ui.body?.checked));
  state.stage.scene.add(state.skeleton.group);
  state.hips = travellingRoot(arrays);
  if (state.playback) {
    state.playback.pause();
    state.playback.fps = arrays.fps; // walks of one clip share it; set before the length
    state.playback.setLength(arrays.frames);
    state.playback.seek(0);
  } else {
    state.playback = new Playback(arrays.frames, arrays.fps);
    state.controls = new PlaybackControls(root, state.playback);
    state.playback.onChange(showFrame);
  }
  state.generation = generation;
  state.pathView.setPoints(generation.parameters?.path ?? []);
  state.editor?.setTrack(groundTrack(arrays, state.hips));
  state.stage.preset("follow", state.skeleton.jointPosition(0, state.hips, new THREE.Vector3()));
  ui.controls.hidden = false;
  showResult(generation);
  showFrame();
  state.playback.play();
  ui.status.textContent = `Walk ${generation.id} · ${describe(arrays)}`;
  state.list.markPlaying(generation.id);
  root.dataset.generation = String(generation.id);
  root.dataset.ready = "true";
}

/** Load generation (an id, or the API's JSON) and play it; the last request wins. */
async function show(generation) {
  const ticket = ++state.loading;
  root.dataset.ready = "false";
  ui.status.textContent = "Loading the walk…";
  const body = typeof generation === "object" ? generation : await getJson(state.list.url(generation));
  const url = body.downloads?.["viewer.json"] || state.list.item(body.id)?.dataset.viewerUrl;
  if (!url) throw new Error(`walk ${body.id} has no viewer arrays (run ${body.run?.status ?? "unknown"})`);
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`the server answered ${response.status} for the walk's arrays`);
  const arrays = await response.json();
  if (ticket !== state.loading) return;
  play(body, arrays);
  root.scrollIntoView({ block: "nearest" });
}

function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

function bindPlayer() {
  for (const button of ui.presets) {
    button.addEventListener("click", () => state.stage.preset(button.dataset.preset, state.stage.target));
  }
  ui.body?.addEventListener("change", () => {
    state.skeleton?.showBody(ui.body.checked);
    root.dataset.bodyShown = String(ui.body.checked);
  });
}

// --- init / animate / resize -------------------------------------------------------------

function animate(now) {
  const dt = state.last ? (now - state.last) / 1000 : 0;
  state.last = now;
  state.playback?.update(dt);
  state.stage.render();
  requestAnimationFrame(animate);
}

function resize() {
  state.stage.resize();
  state.editor?.resize();
}

function init() {
  if (!root) return;
  state.stage = new Stage(ui.canvas);
  state.pathView = new PathView();
  state.stage.scene.add(state.pathView.group);
  state.stage.preset("follow", new THREE.Vector3(0, 1, 0));
  ui.controls.hidden = true;
  state.list = new GenerationList(document.getElementById("generations"), {
    onPlay: (id) => show(id).catch(fail),
    onReuse: form ? reuse : undefined,
    onError: (message) => (form ? say("", message) : fail(new Error(message))),
  });
  bindPlayer();
  if (form) bindForm();
  ui.status.textContent = form
    ? "Draw a path and press Walk, or play a walk from the list below."
    : "Play a walk from the list below.";
  root.dataset.ready = "false";
  window.addEventListener("resize", resize);
  window.addEventListener("pagehide", () => state.list.dispose());
  requestAnimationFrame(animate);
}

try {
  init();
} catch (error) {
  fail(error);
}
