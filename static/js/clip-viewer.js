// @ts-check
// Clip page: the 3-D player (viewer/player.js) with the raw motion as a ghost, and the
// curves under it (α, θ_max and the measure re-score the cut points in the browser).
//
// The viewer arrays come from the clip's `viewer.json` download (the URL is in
// `data-viewer-url` on #viewer); the browser does no kinematics. A long clip's are a
// preview of every `stride`-th frame: the clock still counts every frame (the curves'
// frames), and the skeletons draw the full-rate window around the playhead once it is
// fetched from `viewer.f32` / `viewer-raw.f32` (viewer/full-rate.js).

import { rescore } from "./analysis/rescore.js";
import { csrfToken, errorMessage, parseJson } from "./api.js";
import { panelData, summary } from "./viewer/analysis-data.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { CharacterPick } from "./viewer/character-pick.js";
import { CurvesPanel } from "./viewer/curves-panel.js";
import { LeveledSkeleton } from "./viewer/full-rate.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";

/** @typedef {import("./viewer/analysis-data.js").AnalysisBody} AnalysisBody */
/** @typedef {{alpha: number, thetaMaxDeg: number, measure: import("./analysis/rescore.js").Measure}} Parameters */

const root = document.getElementById("viewer");
const ui = {
  canvas: /** @type {HTMLElement} */ (root?.querySelector("[data-canvas]")),
  status: /** @type {HTMLElement} */ (root?.querySelector("[data-viewer-status]")),
  curves: /** @type {HTMLElement | null} */ (root?.querySelector("[data-curves]") ?? null),
  ghost: /** @type {HTMLInputElement | null} */ (root?.querySelector("[data-ghost]") ?? null),
};
const state = {
  /** @type {Player | null} */ player: null,
  /** @type {SkeletonView | null} */ skeleton: null,
  /** @type {LeveledSkeleton | null} the skeleton at the clock's frame */ motion: null,
  /** @type {{view: SkeletonView, motion: LeveledSkeleton, startS: number} | null} */ ghost: null,
  /** @type {CurvesPanel | null} */ panel: null,
  hips: 0,
  /** @type {{view: SkeletonView, motion: LeveledSkeleton, hips: number, status: string} | null} the clip's own skeleton */ own: null,
  /** @type {{view: SkeletonView, motion: LeveledSkeleton, status: string} | null} the clip on a character */ character: null,
};

/**
 * Draw the clip on a character (its retargeted arrays and body), or on its own
 * skeleton again (`picked` null).
 * @param {HTMLElement} root
 * @param {import("./viewer/character-pick.js").Picked} picked
 */
async function showOn(root, picked) {
  const { player, own } = state;
  if (!player || !own) return;
  if (state.character) {
    player.stage.scene.remove(state.character.view.group);
    state.character.view.dispose();
    state.character = null;
  }
  own.view.group.visible = !picked;
  let shown = own;
  if (picked) {
    const view = player.dress(new SkeletonView(picked.arrays, {}, { bodyUrl: picked.bodyUrl }));
    const motion = new LeveledSkeleton(view, picked.arrays, "");
    shown = { view, motion, hips: travellingRoot(picked.arrays), status: `on ${picked.name}: ${describe(picked.arrays)}` };
    state.character = shown;
    player.stage.scene.add(view.group);
    await view.showBody(player.bodyShown);
  }
  Object.assign(state, { skeleton: shown.view, motion: shown.motion, hips: shown.hips });
  ui.status.textContent = shown.status;
  player.stage.frame(shown.view.height);
  player.aim("follow", shown.motion, shown.hips, 0);
  root.dataset.characterShown = picked ? String(picked.id) : "";
  if (player.playback) showFrame(player.playback);
}

/** @param {import("./viewer/playback.js").Playback} playback */
function showFrame(playback) {
  const { player, motion } = state;
  if (!player || !motion || !root) return;
  motion.update(playback.frame);
  const ghost = state.ghost?.motion;
  if (ghost && state.ghost) {
    ghost.update(Math.round((playback.time + state.ghost.startS) * ghost.level.fps));
    root.dataset.ghostFrame = String(ghost.frame);
  }
  player.track(motion, state.hips, playback.frame);
  player.controls?.show();
  state.panel?.update(playback.frame);
}

/**
 * The element matching `selector` in the curves panel (the template has each one).
 * @template {Element} [T=HTMLElement]
 * @param {HTMLElement} curves
 * @param {string} selector
 * @returns {T}
 */
function part(curves, selector) {
  return /** @type {T} */ (curves.querySelector(selector));
}

/**
 * The controls' α, θ and measure.
 * @param {HTMLElement} curves
 * @returns {Parameters}
 */
function parameters(curves) {
  /** @type {HTMLInputElement} */
  const alphaInput = part(curves, "[data-alpha]");
  /** @type {HTMLInputElement} */
  const thetaInput = part(curves, "[data-theta]");
  /** @type {HTMLSelectElement} */
  const measureSelect = part(curves, "[data-measure]");
  const alpha = Number(alphaInput.value);
  const theta = Number(thetaInput.value);
  part(curves, "[data-alpha-value]").textContent = alpha.toFixed(2);
  part(curves, "[data-theta-value]").textContent = `${theta}°`;
  // The select's options are the server's measures.
  const measure = /** @type {Parameters["measure"]} */ (measureSelect.value);
  const chosen = { alpha, thetaMaxDeg: theta, measure };
  syncTransitionForm(chosen);
  return chosen;
}

/**
 * The "Transition into…" form starts its run with the parameters set here.
 * @param {Parameters} chosen
 */
function syncTransitionForm({ alpha, thetaMaxDeg, measure }) {
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-transition-form]"));
  if (!form) return;
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
  field("alpha").value = String(alpha);
  field("theta_max_deg").value = String(thetaMaxDeg);
  field("measure").value = measure;
  part(form, "[data-transition-params]").textContent = `α ${alpha.toFixed(2)}, θ_max ${thetaMaxDeg}°, ${measure}`;
}

/**
 * Show an analysis body (the server's, or the browser's re-scoring in the same keys).
 * @param {HTMLElement} curves
 * @param {AnalysisBody} body
 */
function show(curves, body) {
  state.panel?.setData(panelData(body));
  part(curves, "[data-summary]").textContent = summary(body);
  curves.dataset.candidates = String(body.candidates.length);
  curves.dataset.best = String(body.best ? body.best.frame : -1);
}

/**
 * Re-score in the browser (static/js/analysis, the same algorithm as motioncore).
 * @param {HTMLElement} curves
 * @param {AnalysisBody} server
 */
function rescoreHere(curves, server) {
  const started = performance.now();
  const result = rescore({
    curves: server.curves,
    fps: server.fps,
    ...parameters(curves),
    nextLocalVelocity: server.parameters.next_velocity_local_m_per_s,
    periodic: Boolean(server.gait?.periodic),
  });
  show(curves, {
    ...server,
    parameters: result.parameters,
    phases: { runs: result.labels.asDict().runs },
    candidates: result.candidates,
    best: result.best,
    reason: result.reason,
    recommendation: result.recommendation,
    cuts: result.cuts,
  });
  curves.dataset.rescoreMs = (performance.now() - started).toFixed(2);
}

/**
 * The server's analysis at the initial parameters; then every change is re-scored here.
 * @param {HTMLElement} curves
 * @param {import("./viewer/playback.js").Playback} playback
 */
async function initCurves(curves, playback) {
  state.panel = new CurvesPanel(part(curves, "[data-plot]"), {
    onSeek: (frame) => playback.seek(frame),
  });
  const { alpha, thetaMaxDeg, measure } = parameters(curves);
  const query = new URLSearchParams({ alpha: String(alpha), theta_max_deg: String(thetaMaxDeg), measure });
  const response = await fetch(`${curves.dataset.analysisUrl}?${query}`, { credentials: "same-origin" });
  const server = await response.json();
  if (!response.ok) {
    part(curves, "[data-summary]").textContent = server?.error?.message ?? `The server answered ${response.status}.`;
    return;
  }
  show(curves, server);
  for (const input of curves.querySelectorAll("[data-alpha], [data-theta], [data-measure]")) {
    input.addEventListener("input", () => rescoreHere(curves, server));
  }
  curves.querySelector("[data-save]")?.addEventListener("click", () => save(curves));
}

/**
 * Store the controls' parameters as the clip's analysis parameters (editors).
 * @param {HTMLElement} curves
 */
async function save(curves) {
  const { alpha, thetaMaxDeg, measure } = parameters(curves);
  /** @type {HTMLButtonElement} */
  const button = part(curves, "[data-save]");
  button.disabled = true;
  const response = await fetch(curves.dataset.analysisUrl ?? "", {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ alpha, theta_max_deg: thetaMaxDeg, measure }),
  });
  const body = parseJson(await response.text());
  button.disabled = false;
  button.textContent = response.ok
    ? `Saved (α ${alpha.toFixed(2)}, θ ${thetaMaxDeg}°, ${measure})`
    : errorMessage(body, response.status);
  curves.dataset.saved = String(response.ok);
}

/**
 * The raw (uncleaned) motion as a translucent grey skeleton, loaded on first use.
 * @param {HTMLElement} root
 * @param {boolean} shown
 */
async function toggleGhost(root, shown) {
  if (shown && !state.ghost) {
    const response = await fetch(root.dataset.rawUrl ?? "", { credentials: "same-origin" });
    if (!response.ok) {
      ui.status.textContent = `Could not load the raw motion (the server answered ${response.status}).`;
      return;
    }
    /** @type {import("./viewer/arrays.js").ViewerArrays} */
    const arrays = await response.json();
    const view = new SkeletonView(arrays, { color: 0x8a94a6, opacity: 0.45 });
    state.player?.dress(view);
    const motion = new LeveledSkeleton(view, arrays, root.dataset.rawUrl ?? "");
    // start_s: where the cleaned clip starts in the raw one (dropped bind-pose frames).
    state.ghost = { view, motion, startS: Number(arrays.start_s ?? 0) };
    state.player?.stage.scene.add(view.group);
  }
  if (state.ghost) state.ghost.view.group.visible = shown;
  root.dataset.ghostShown = String(shown);
  if (state.player?.playback) showFrame(state.player.playback);
}

/**
 * A full-rate window arrived: draw the frame again (the camera too); say which frames.
 * @param {HTMLElement} root
 */
function fullRateLanded(root) {
  const held = state.motion?.full?.window;
  if (held) root.dataset.fullRate = `${held.start}-${held.end}`;
  if (state.player?.playback) showFrame(state.player.playback);
}

/** @param {HTMLElement} root */
async function init(root) {
  ui.status.textContent = "Loading the motion…";
  const response = await fetch(root.dataset.viewerUrl ?? "", { credentials: "same-origin" });
  if (!response.ok) {
    ui.status.textContent = `Could not load the motion (the server answered ${response.status}).`;
    return;
  }
  /** @type {import("./viewer/arrays.js").ViewerArrays} */
  const arrays = await response.json();
  const player = new Player(root, {
    canvases: [ui.canvas],
    onFrame: showFrame,
    onBody: (visible) => {
      state.skeleton?.showBody(visible);
      state.ghost?.view.showBody(visible);
    },
    onBones: (visible) => {
      state.skeleton?.showBones(visible);
      state.ghost?.view.showBones(visible);
    },
    onResize: () => state.panel?.resize(),
  });
  const skeleton = player.dress(new SkeletonView(arrays));
  const motion = new LeveledSkeleton(skeleton, arrays, root.dataset.viewerUrl ?? "", {
    onLoad: () => fullRateLanded(root),
  });
  state.player = player;
  state.skeleton = skeleton;
  state.motion = motion;
  state.hips = travellingRoot(arrays);
  state.own = { view: skeleton, motion, hips: state.hips, status: describe(arrays) };
  player.stage.scene.add(skeleton.group);
  const playback = player.setClock(motion.level.frames, motion.level.fps);
  showFrame(playback);
  player.stage.frame(skeleton.height);
  player.aim("follow", motion, state.hips);
  ui.status.textContent = describe(arrays);
  root.dataset.ready = "true";
  const ghost = ui.ghost;
  ghost?.addEventListener("change", () => toggleGhost(root, ghost.checked));
  if (ui.curves) initCurves(ui.curves, playback).then(() => state.panel?.update(playback.frame));
  const characters = new CharacterPick(root, (picked) => showOn(root, picked));
  characters.load().catch((error) => console.warn(`no characters: ${error.message}`));
  player.start();
}

if (root?.dataset.viewerUrl) {
  init(root).catch((error) => {
    if (ui.status) ui.status.textContent = `The viewer failed: ${error.message}`;
  });
}
