// Transition page: two cut choices played on one clock, side by side (two stages),
// overlaid (one stage) or A/B toggled (one stage, one skeleton at a time).
// init / animate / resize only; the clock and the widgets live in viewer/.
//
// Sources (json_script #compare-sources): method → {label, url, layout}, where `url` is
// that cut's transition clip as viewer arrays and `layout` says where A, the blend and
// B lie in its frames. The browser does no kinematics.

import * as THREE from "three";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { bands, clipFrame, partAt, sharedClock } from "./viewer/compare-timeline.js";
import { PlaybackControls } from "./viewer/controls.js";
import { Playback } from "./viewer/playback.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";

const COLORS = [0x2f6fde, 0xe0861a];
const SIDE_NAMES = ["left", "right"];

const root = document.getElementById("compare");
const sources = JSON.parse(document.getElementById("compare-sources")?.textContent ?? "{}");
const q = (selector) => root?.querySelector(selector);
const ui = {
  status: q("[data-viewer-status]"),
  selects: root ? [...root.querySelectorAll("[data-side]")] : [],
  canvases: root ? [...root.querySelectorAll("[data-canvas]")] : [],
  captions: root ? [...root.querySelectorAll("[data-caption]")] : [],
  rightPane: q("[data-pane='1']"),
  modes: root ? [...root.querySelectorAll("[data-mode-choice]")] : [],
  toggle: q("[data-toggle]"),
  alignCut: q("[data-align-cut]"),
  body: q("[data-body]"),
  timeline: q("[data-timeline]"),
  presets: root ? [...root.querySelectorAll("[data-preset]")] : [],
};
const state = {
  stages: [],
  /** Per side: {method, arrays, view, hips, layout}. */
  sides: [null, null],
  clock: { offsets: [0, 0], frames: 1 },
  playback: null,
  controls: null,
  mode: "side",
  shown: 0,
  last: 0,
  loads: new Map(),
};

/** The viewer arrays of a method's transition clip (fetched once). */
function load(method) {
  if (!state.loads.has(method)) {
    const request = fetch(sources[method].url, { credentials: "same-origin" }).then((response) => {
      if (!response.ok) throw new Error(`the server answered ${response.status} for ${method}`);
      return response.json();
    });
    state.loads.set(method, request);
  }
  return state.loads.get(method);
}

/** Put `method`'s transition on side `index` (replacing what was there). */
async function choose(index, method) {
  const arrays = await load(method);
  const old = state.sides[index];
  if (old) {
    old.view.group.removeFromParent();
    old.view.dispose();
  }
  const view = new SkeletonView(arrays, { color: COLORS[index] });
  view.showBody(ui.body.checked);
  state.sides[index] = {
    method, arrays, view, hips: travellingRoot(arrays), layout: sources[method].layout,
  };
  root.dataset[`side${index}`] = method;
  if (state.sides.every(Boolean)) {
    arrange();
    retime();
  }
}

/** Which stage draws which skeleton, and which are visible, for the current mode. */
function arrange() {
  const side = state.mode === "side";
  ui.rightPane.hidden = !side;
  state.sides.forEach((s, i) => {
    state.stages[side ? i : 0].scene.add(s.view.group);
    s.view.group.visible = state.mode !== "toggle" || state.shown === i;
  });
  // Side by side each pane names its clip; overlaid or toggled, the one pane names both.
  const names = state.sides.map((s, i) => `${SIDE_NAMES[i]}: ${sources[s.method].label}`);
  ui.captions[0].textContent = side ? `${names[0]} · ${describe(state.sides[0].arrays)}` : names.join(" · ");
  ui.captions[1].textContent = `${names[1]} · ${describe(state.sides[1].arrays)}`;
  ui.toggle.hidden = state.mode !== "toggle";
  ui.toggle.textContent = `Showing ${SIDE_NAMES[state.shown]} · T switches`;
  root.dataset.mode = state.mode;
  root.dataset.shown = SIDE_NAMES[state.shown];
  for (const stage of state.stages) stage.resize();
  showFrame();
}

/** The shared clock for the two clips (lined up at the start or at the cut). */
function retime() {
  const layouts = state.sides.map((s) => s.layout ?? { frames: s.arrays.frames, blend_start_frame: 0 });
  state.clock = sharedClock(layouts, ui.alignCut.checked ? "cut" : "start");
  state.playback.setLength(state.clock.frames);
  drawTimeline();
}

/** One bar per side: A, blend and B along the shared clock, and a cursor. */
function drawTimeline() {
  const { offsets, frames } = state.clock;
  const colours = { A: "#2f6fde", blend: "#e0861a", B: "#1f9d74" };
  ui.timeline.replaceChildren(...state.sides.map((s, i) => {
    const bar = document.createElement("div");
    bar.className = `compare__bar compare__bar--${SIDE_NAMES[i]}`;
    bar.title = `${SIDE_NAMES[i]}: ${sources[s.method].label}`;
    if (!s.layout) return bar;
    for (const band of bands(s.layout, offsets[i], frames)) {
      const piece = document.createElement("span");
      piece.style.left = `${100 * band.from}%`;
      piece.style.width = `${100 * (band.to - band.from)}%`;
      piece.style.background = colours[band.part];
      bar.append(piece);
    }
    return bar;
  }));
  const cursor = document.createElement("div");
  cursor.className = "compare__cursor";
  ui.timeline.append(cursor);
  placeCursor();
}

function placeCursor() {
  const cursor = ui.timeline.querySelector(".compare__cursor");
  if (cursor) cursor.style.left = `${(100 * state.playback.frame) / Math.max(1, state.clock.frames - 1)}%`;
}

/** "A 39", "blend 3", "B 19" for a side at the shared frame. */
function partText(side, frame) {
  if (!side.layout) return `frame ${frame}`;
  const { part, frame: at } = partAt(side.layout, frame);
  return `${part} ${at}`;
}

function showFrame() {
  const { playback } = state;
  if (!playback || !state.sides.every(Boolean)) return;
  const detail = state.sides.map((side, i) => {
    const frame = clipFrame(playback.frame, state.clock.offsets[i], side.arrays.frames);
    side.view.update(frame);
    const stage = state.stages[state.mode === "side" ? i : 0];
    if (state.mode === "side" || state.shown === i) {
      stage.track(side.view.jointPosition(frame, side.hips, new THREE.Vector3()));
    }
    return `${SIDE_NAMES[i]} ${partText(side, frame)}`;
  });
  state.controls.show(` · ${detail.join(" · ")}`);
  placeCursor();
}

function setMode(mode) {
  state.mode = mode;
  arrange();
}

function switchSides() {
  if (state.mode !== "toggle") return;
  state.shown = 1 - state.shown;
  arrange();
}

function animate(now) {
  const dt = state.last ? (now - state.last) / 1000 : 0;
  state.last = now;
  state.playback.update(dt);
  state.stages.forEach((stage, i) => {
    if (i === 0 || state.mode === "side") stage.render();
  });
  requestAnimationFrame(animate);
}

function bind() {
  state.controls = new PlaybackControls(root, state.playback, { extraKeys: { t: switchSides } });
  state.playback.onChange(showFrame);
  ui.selects.forEach((select, i) => {
    select.addEventListener("change", () => choose(i, select.value).catch(fail));
  });
  for (const radio of ui.modes) radio.addEventListener("change", () => setMode(radio.value));
  ui.toggle.addEventListener("click", switchSides);
  ui.alignCut.addEventListener("change", retime);
  ui.body.addEventListener("change", () => {
    for (const side of state.sides) side?.view.showBody(ui.body.checked);
    root.dataset.bodyShown = String(ui.body.checked);
  });
  for (const button of ui.presets) {
    button.addEventListener("click", () => {
      state.stages.forEach((stage) => stage.preset(button.dataset.preset, stage.target));
    });
  }
  window.addEventListener("resize", () => state.stages.forEach((stage) => stage.resize()));
}

function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

async function init() {
  if (!root || ui.selects.length !== 2) return;
  ui.status.textContent = "Loading both transitions…";
  state.stages = ui.canvases.map((canvas) => new Stage(canvas));
  const first = await Promise.all(ui.selects.map((select) => load(select.value)));
  state.playback = new Playback(Math.max(...first.map((a) => a.frames)), first[0].fps);
  bind();
  await Promise.all(ui.selects.map((select, i) => choose(i, select.value)));
  state.stages.forEach((stage, i) => {
    const side = state.sides[i];
    stage.preset("follow", side.view.jointPosition(0, side.hips, new THREE.Vector3()));
  });
  ui.status.textContent = `${first[0].fps.toFixed(2)} fps · both clips start with the same A; the bars show where each cut's blend lies`;
  root.dataset.ready = "true";
  requestAnimationFrame(animate);
}

init().catch(fail);
