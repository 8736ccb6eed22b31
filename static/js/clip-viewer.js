// Clip page: the 3-D player. init / animate / resize only; the pieces live in viewer/.
//
// The viewer arrays come from the clip's `viewer.json` download (the URL is in
// `data-viewer-url` on #viewer); the browser does no kinematics.

import * as THREE from "three";
import { rescore } from "./analysis/rescore.js";
import { csrfToken, errorMessage, parseJson } from "./api.js";
import { panelData, summary } from "./viewer/analysis-data.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PlaybackControls } from "./viewer/controls.js";
import { CurvesPanel } from "./viewer/curves-panel.js";
import { Playback } from "./viewer/playback.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";

const root = document.getElementById("viewer");
const ui = {
  canvas: root?.querySelector("[data-canvas]"),
  status: root?.querySelector("[data-viewer-status]"),
  presets: root ? [...root.querySelectorAll("[data-preset]")] : [],
  curves: root?.querySelector("[data-curves]"),
  ghost: root?.querySelector("[data-ghost]"),
  body: root?.querySelector("[data-body]"),
};
const state = {
  stage: null, skeleton: null, ghost: null, playback: null, controls: null, panel: null,
  last: 0, hips: 0,
};

function showFrame() {
  const { playback, skeleton, stage } = state;
  skeleton.update(playback.frame);
  if (state.ghost) {
    state.ghost.view.update(Math.round((playback.time + state.ghost.startS) * state.ghost.fps));
    root.dataset.ghostFrame = String(state.ghost.view.frame);
  }
  stage.track(skeleton.jointPosition(playback.frame, state.hips, new THREE.Vector3()));
  state.controls.show();
  state.panel?.update(playback.frame);
}

function bindControls(playback, stage) {
  state.controls = new PlaybackControls(root, playback);
  for (const button of ui.presets) {
    button.addEventListener("click", () => stage.preset(button.dataset.preset, stage.target));
  }
  playback.onChange(showFrame);
}

/** The controls' α, θ and measure. */
function parameters(curves) {
  const q = (selector) => curves.querySelector(selector);
  const alpha = Number(q("[data-alpha]").value);
  const theta = Number(q("[data-theta]").value);
  q("[data-alpha-value]").textContent = alpha.toFixed(2);
  q("[data-theta-value]").textContent = `${theta}°`;
  const chosen = { alpha, thetaMaxDeg: theta, method: q("[data-method]").value };
  syncTransitionForm(chosen);
  return chosen;
}

/** The "Transition into…" form starts its run with the parameters set here. */
function syncTransitionForm({ alpha, thetaMaxDeg, method }) {
  const form = document.querySelector("[data-transition-form]");
  if (!form) return;
  form.elements.alpha.value = String(alpha);
  form.elements.theta_max_deg.value = String(thetaMaxDeg);
  form.elements.method.value = method;
  form.querySelector("[data-transition-params]").textContent =
    `α ${alpha.toFixed(2)}, θ_max ${thetaMaxDeg}°, ${method}`;
}

/** Show an analysis body (the server's, or the browser's re-scoring in the same keys). */
function show(curves, body) {
  state.panel.setData(panelData(body));
  curves.querySelector("[data-summary]").textContent = summary(body);
  curves.dataset.candidates = String(body.candidates.length);
  curves.dataset.best = String(body.best ? body.best.frame : -1);
}

/** Re-score in the browser (static/js/analysis, the same algorithm as motioncore). */
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

/** The server's analysis at the initial parameters; then every change is re-scored here. */
async function initCurves(curves, playback) {
  state.panel = new CurvesPanel(curves.querySelector("[data-plot]"), {
    onSeek: (frame) => playback.seek(frame),
  });
  window.addEventListener("resize", () => state.panel.resize());
  const { alpha, thetaMaxDeg, method } = parameters(curves);
  const query = new URLSearchParams({ alpha, theta: thetaMaxDeg, method });
  const response = await fetch(`${curves.dataset.analysisUrl}?${query}`, { credentials: "same-origin" });
  const server = await response.json();
  if (!response.ok) {
    curves.querySelector("[data-summary]").textContent =
      server?.error?.message ?? `The server answered ${response.status}.`;
    return;
  }
  show(curves, server);
  for (const input of curves.querySelectorAll("[data-alpha], [data-theta], [data-method]")) {
    input.addEventListener("input", () => rescoreHere(curves, server));
  }
  curves.querySelector("[data-save]")?.addEventListener("click", () => save(curves));
}

/** Store the controls' parameters as the clip's analysis parameters (editors). */
async function save(curves) {
  const { alpha, thetaMaxDeg, method } = parameters(curves);
  const button = curves.querySelector("[data-save]");
  button.disabled = true;
  const response = await fetch(curves.dataset.analysisUrl, {
    method: "PUT",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ alpha, theta: thetaMaxDeg, method }),
  });
  const body = parseJson(await response.text());
  button.disabled = false;
  button.textContent = response.ok
    ? `Saved (α ${alpha.toFixed(2)}, θ ${thetaMaxDeg}°, ${method})`
    : errorMessage(body, response.status);
  curves.dataset.saved = String(response.ok);
}

/** The raw (uncleaned) motion as a translucent grey skeleton, loaded on first use. */
async function toggleGhost(show) {
  if (show && !state.ghost) {
    const response = await fetch(root.dataset.rawUrl, { credentials: "same-origin" });
    if (!response.ok) {
      ui.status.textContent = `Could not load the raw motion (the server answered ${response.status}).`;
      return;
    }
    const arrays = await response.json();
    const view = new SkeletonView(arrays, { color: 0x8a94a6, opacity: 0.45 });
    // start_s: where the cleaned clip starts in the raw one (dropped bind-pose frames).
    state.ghost = { view, fps: arrays.fps, startS: Number(arrays.start_s ?? 0) };
    state.stage.scene.add(view.group);
  }
  if (state.ghost) state.ghost.view.group.visible = show;
  root.dataset.ghostShown = String(show);
  showFrame();
}

function animate(now) {
  const dt = state.last ? (now - state.last) / 1000 : 0;
  state.last = now;
  state.playback.update(dt);
  state.stage.render();
  requestAnimationFrame(animate);
}

async function init() {
  if (!root || !root.dataset.viewerUrl) return;
  ui.status.textContent = "Loading the motion…";
  const response = await fetch(root.dataset.viewerUrl, { credentials: "same-origin" });
  if (!response.ok) {
    ui.status.textContent = `Could not load the motion (the server answered ${response.status}).`;
    return;
  }
  const arrays = await response.json();
  state.stage = new Stage(ui.canvas);
  state.skeleton = new SkeletonView(arrays);
  state.stage.scene.add(state.skeleton.group);
  state.hips = travellingRoot(arrays);
  state.playback = new Playback(arrays.frames, arrays.fps);
  bindControls(state.playback, state.stage);
  showFrame();
  state.stage.preset("front", state.skeleton.jointPosition(0, state.hips, new THREE.Vector3()));
  ui.status.textContent = describe(arrays);
  root.dataset.ready = "true";
  window.addEventListener("resize", () => state.stage.resize());
  ui.ghost?.addEventListener("change", () => toggleGhost(ui.ghost.checked));
  ui.body?.addEventListener("change", () => {
    state.skeleton.showBody(ui.body.checked);
    root.dataset.bodyShown = String(ui.body.checked);
  });
  if (ui.curves) initCurves(ui.curves, state.playback).then(() => state.panel.update(state.playback.frame));
  requestAnimationFrame(animate);
}

init().catch((error) => {
  if (ui.status) ui.status.textContent = `The viewer failed: ${error.message}`;
});
