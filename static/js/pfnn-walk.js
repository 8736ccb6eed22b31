// @ts-check
// Walk page: draw a path, have the PFNN walk it on the clip's rig, play the result.
// The wiring of the form, the path and the list; the player is viewer/player.js, the
// pieces live in walk/ and viewer/.
//
// POST /api/v1/pfnn/generate/ starts a generation (its run is polled, runs.js), then
// GET /api/v1/pfnn/generations/{id}/ gives its measures and downloads; the walk is
// played from downloads["viewer.json"] (the clip page's viewer arrays; the browser does
// no kinematics). Hooks for tests: #walk[data-ready][data-frame][data-generation],
// #path-editor[data-points].

import { csrfToken, errorMessage, getJson, parseJson } from "./api.js";
import { all, cloneTemplate, termRows } from "./dom.js";
import { RunStatusView } from "./runs.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { downloadRows, measureRows, pathSummary } from "./walk/format.js";
import { GenerationList } from "./walk/generations.js";
import { PathEditor } from "./walk/path-editor.js";
import { groundTrack, pathProblem, presetPoints } from "./walk/path.js";
import { PathView } from "./walk/path-view.js";

/** @typedef {import("./walk/format.js").Generation} Generation */
/** @typedef {import("./walk/format.js").WalkParameters} WalkParameters */

const root = document.getElementById("walk");
/** @type {HTMLFormElement | null} */
const form = document.querySelector("[data-walk-form]");
/**
 * The element matching `selector` in `within` (the template has each one), null without it.
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {ParentNode | null} [within]
 * @returns {T}
 */
const q = (selector, within = root) => /** @type {T} */ (within?.querySelector(selector) ?? null);
const ui = {
  canvas: q("[data-canvas]"),
  status: q("[data-viewer-status]"),
  controls: q(".viewer__controls"),
  measures: q("[data-measures]"),
  downloads: q("[data-downloads]"),
  editor: /** @type {HTMLElement} */ (document.getElementById("path-editor")),
  /** @type {HTMLInputElement} */ speed: q("[data-speed-input]", form),
  speedValue: q("[data-speed-value]", form),
  /** @type {HTMLInputElement[]} */ durations: all(form, "[data-duration]"),
  /** @type {HTMLInputElement} */ seconds: q("[data-seconds]", form),
  /** @type {HTMLSelectElement} */ mode: q("[data-mode]", form),
  /** @type {HTMLInputElement} */ footLock: q("[data-foot-lock]", form),
  summary: q("[data-path-summary]", form),
  /** @type {HTMLButtonElement} */ walk: q("[data-walk-button]", form),
  reason: q("[data-walk-reason]", form),
  run: q("[data-walk-run]", form),
  message: q("[data-walk-message]", form),
  error: q("[data-walk-error]", form),
};
const state = {
  /** @type {Player | null} */ player: null,
  /** @type {PathView | null} */ pathView: null,
  /** @type {PathEditor | null} */ editor: null,
  /** @type {GenerationList | null} */ list: null,
  /** @type {SkeletonView | null} */ skeleton: null,
  hips: 0,
  /** @type {Generation | null} the walk in the player */ generation: null,
  busy: false,
  loading: 0,
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

/**
 * Why Walk cannot be pressed now ("" when it can).
 * @param {PathEditor} editor
 * @param {{seconds: number | null}} chosen
 */
function walkProblem(editor, { seconds }) {
  if (state.busy) return "A walk is being generated: wait for it to finish.";
  const problem = pathProblem(editor.points);
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
  const { editor, pathView } = state;
  if (!editor) return;
  const chosen = settings();
  ui.speedValue.textContent = `${chosen.speed.toFixed(2)} m/s`;
  ui.seconds.disabled = chosen.seconds == null;
  ui.summary.textContent = pathSummary(editor.points, chosen.speed, chosen.seconds);
  const problem = walkProblem(editor, chosen);
  ui.walk.disabled = Boolean(problem);
  ui.reason.textContent = problem;
  ui.reason.hidden = !problem;
  if (!state.generation) pathView?.setPoints(editor.points);
}

/**
 * Fill the form with a past generation's parameters ("Use these settings").
 * @param {WalkParameters} parameters
 */
function reuse(parameters) {
  state.editor?.setPoints(parameters.path ?? []);
  ui.speed.value = String(parameters.speed_mps ?? ui.speed.value);
  const fixed = parameters.seconds != null;
  for (const radio of ui.durations) radio.checked = (radio.value === "seconds") === fixed;
  if (fixed) ui.seconds.value = String(parameters.seconds);
  if (parameters.mode) ui.mode.value = parameters.mode;
  ui.footLock.checked = parameters.foot_lock !== false;
  refreshForm();
  ui.editor.scrollIntoView({ block: "nearest" });
}

function say(message = "", error = "") {
  ui.message.textContent = message;
  ui.error.textContent = error;
  ui.error.hidden = !error;
}

/**
 * POST the walk, follow its run, then play it.
 * @param {HTMLFormElement} form
 * @param {SubmitEvent} event
 */
async function submit(form, event) {
  event.preventDefault();
  const { editor, list } = state;
  const chosen = settings();
  if (!editor || !list || walkProblem(editor, chosen)) return;
  state.busy = true;
  refreshForm();
  say("Sending the path…");
  const response = await fetch(form.dataset.generateUrl ?? "", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({
      clip: Number(form.dataset.clip),
      path: editor.points,
      speed_mps: chosen.speed,
      seconds: chosen.seconds,
      mode: chosen.mode,
      foot_lock: chosen.footLock,
    }),
  }).catch(() => null);
  /** @type {Generation | null} */
  const body = response ? parseJson(await response.text()) : null;
  if (!response?.ok || !body?.run) {
    finish(response ? errorMessage(body, response.status) : "The server could not be reached.");
    return;
  }
  form.dataset.generation = String(body.id);
  follow(list, body, body.run);
}

/**
 * Show the new generation's run under the form and in the list; play it when it succeeds.
 * @param {GenerationList} list
 * @param {Generation} body the API's answer to the POST
 * @param {import("./runs.js").Run} run its run
 */
function follow(list, body, run) {
  list.add(body);
  const element = cloneTemplate("run-status-template");
  ui.run.replaceChildren(element);
  ui.run.hidden = false;
  say(`Walk ${body.id}: generating on the clip's rig…`);
  list.follow(String(body.id), run, {
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

/**
 * The run has finished (or never started): Walk can be pressed again.
 * @param {string} error
 */
function finish(error) {
  state.busy = false;
  if (error) say("", error);
  refreshForm();
}

/** @param {HTMLFormElement} form */
function bindForm(form) {
  const editor = new PathEditor(ui.editor, { onChange: refreshForm });
  state.editor = editor;
  for (const button of all(form, "[data-path-preset]")) {
    button.addEventListener("click", () => editor.setPoints(presetPoints(button.dataset.pathPreset ?? "")));
  }
  q("[data-remove-last]", form).addEventListener("click", () => editor.removeLast());
  q("[data-clear]", form).addEventListener("click", () => editor.clear());
  for (const input of [ui.speed, ui.seconds, ui.mode, ui.footLock, ...ui.durations]) {
    input.addEventListener("input", refreshForm);
    input.addEventListener("change", refreshForm);
  }
  form.addEventListener("submit", (event) => submit(form, event));
  refreshForm();
}

// --- the player -------------------------------------------------------------------------

/** @param {import("./viewer/playback.js").Playback} playback */
function showFrame(playback) {
  const { player, skeleton } = state;
  if (!player || !skeleton) return;
  skeleton.update(playback.frame);
  const hips = player.track(skeleton, state.hips, playback.frame);
  player.controls?.show();
  state.editor?.setMarker([hips.x, hips.z]);
}

/**
 * The measures (with units) and the download links of a generation.
 * @param {Generation} generation
 */
function showResult(generation) {
  termRows(ui.measures, measureRows(generation.result, generation.parameters));
  ui.downloads.replaceChildren(...downloadRows(generation.downloads).map(([name, label, url]) => {
    const item = document.createElement("li");
    const link = url ? document.createElement("a") : document.createElement("span");
    link.textContent = label;
    if (link instanceof HTMLAnchorElement) {
      link.href = String(url);
      link.setAttribute("download", name);
    } else link.className = "muted";
    item.append(link, ` `, Object.assign(document.createElement("code"), { textContent: name, className: "small" }));
    return item;
  }));
}

/**
 * Put a generation's walk (its viewer arrays) in the player and play it.
 * @param {Player} player
 * @param {Generation} generation
 * @param {import("./viewer/arrays.js").ViewerArrays} arrays
 */
function play(player, generation, arrays) {
  if (state.skeleton) {
    state.skeleton.group.removeFromParent();
    state.skeleton.dispose();
  }
  const skeleton = new SkeletonView(arrays);
  state.skeleton = skeleton;
  player.dress(skeleton);
  player.stage.scene.add(skeleton.group);
  state.hips = travellingRoot(arrays);
  const playback = player.setClock(arrays.frames, arrays.fps); // walks of one clip share the rate
  state.generation = generation;
  state.pathView?.setPoints(generation.parameters?.path ?? []);
  state.editor?.setTrack(groundTrack(arrays, state.hips));
  player.aim("follow", skeleton, state.hips);
  ui.controls.hidden = false;
  showResult(generation);
  showFrame(playback);
  playback.play();
  ui.status.textContent = `Walk ${generation.id} · ${describe(arrays)}`;
  state.list?.markPlaying(generation.id);
  player.root.dataset.generation = String(generation.id);
  player.root.dataset.ready = "true";
}

/**
 * Load generation (an id, or the API's JSON) and play it; the last request wins.
 * @param {string | Generation} generation
 */
async function show(generation) {
  const { player, list } = state;
  if (!player || !list) return;
  const ticket = ++state.loading;
  player.root.dataset.ready = "false";
  ui.status.textContent = "Loading the walk…";
  /** @type {Generation} */
  const body = typeof generation === "object" ? generation : await getJson(list.url(generation));
  const url = body.downloads?.["viewer.json"] || list.item(body.id)?.dataset.viewerUrl;
  if (!url) throw new Error(`walk ${body.id} has no viewer arrays (run ${body.run?.status ?? "unknown"})`);
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`the server answered ${response.status} for the walk's arrays`);
  const arrays = await response.json();
  if (ticket !== state.loading) return;
  play(player, body, arrays);
  player.root.scrollIntoView({ block: "nearest" });
}

/** @param {Error} error */
function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

// --- init -------------------------------------------------------------------------------

/** @param {HTMLElement} root */
function init(root) {
  const player = new Player(root, {
    canvases: [ui.canvas],
    onFrame: showFrame,
    onBody: (visible) => state.skeleton?.showBody(visible),
    onBones: (visible) => state.skeleton?.showBones(visible),
    onResize: () => state.editor?.resize(),
  });
  state.player = player;
  state.pathView = new PathView();
  player.stage.scene.add(state.pathView.group);
  player.aimAtOrigin("follow");
  ui.controls.hidden = true;
  const list = new GenerationList(/** @type {HTMLElement} */ (document.getElementById("generations")), {
    onPlay: (id) => show(id).catch(fail),
    onReuse: form ? reuse : undefined,
    onError: (message) => (form ? say("", message) : fail(new Error(message))),
  });
  state.list = list;
  if (form) bindForm(form);
  ui.status.textContent = form
    ? "Draw a path and press Walk, or play a walk from the list below."
    : "Play a walk from the list below.";
  root.dataset.ready = "false";
  window.addEventListener("pagehide", () => list.dispose());
  player.start();
}

try {
  if (root) init(root);
} catch (error) {
  fail(/** @type {Error} */ (error));
}
