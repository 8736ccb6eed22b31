// @ts-check
// Transition page: two cut choices played on one clock, side by side (two stages),
// overlaid (one stage) or A/B toggled (one stage, one skeleton at a time). The player
// (viewer/player.js) has the clock, the loop and the cameras; this is the choice of
// clips, the modes and the timeline of their parts.
//
// Sources (json_script #compare-sources): method → {label, url, layout}, where `url` is
// that cut's transition clip as viewer arrays and `layout` says where A, the blend and
// B lie in its frames. The browser does no kinematics.

import { all } from "./dom.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PART_COLOURS, bands, clipFrame, partAt, sharedClock } from "./viewer/compare-timeline.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";

/** @typedef {import("./viewer/arrays.js").ViewerArrays} ViewerArrays */
/** @typedef {import("./viewer/compare-timeline.js").Layout} Layout */
/** @typedef {{label: string, url: string, layout: Layout | null}} Source */
/** @typedef {{method: string, arrays: ViewerArrays, view: SkeletonView, hips: number, layout: Layout | null}} Side */

const COLORS = [0x2f6fde, 0xe0861a];
const SIDE_NAMES = ["left", "right"];
const root = document.getElementById("compare");
/** @type {Record<string, Source>} */
const sources = JSON.parse(document.getElementById("compare-sources")?.textContent ?? "{}");
/**
 * The element matching `selector` in the player (the template has each one).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @returns {T}
 */
const q = (selector) => /** @type {T} */ (root?.querySelector(selector));
const ui = {
  status: q("[data-viewer-status]"),
  /** @type {HTMLSelectElement[]} */ selects: all(root, "[data-side]"),
  canvases: all(root, "[data-canvas]"),
  captions: all(root, "[data-caption]"),
  rightPane: q("[data-pane='1']"),
  /** @type {HTMLInputElement[]} */ modes: all(root, "[data-mode-choice]"),
  toggle: q("[data-toggle]"),
  /** @type {HTMLInputElement} */ alignCut: q("[data-align-cut]"),
  timeline: q("[data-timeline]"),
};
const state = {
  /** @type {Player | null} */ player: null,
  /** @type {[Side | null, Side | null]} per side */
  sides: [null, null],
  clock: { offsets: [0, 0], frames: 1 },
  mode: "side",
  shown: 0,
  /** @type {Map<string, Promise<ViewerArrays>>} */
  loads: new Map(),
};

/**
 * Both sides, once both are chosen.
 * @returns {Side[] | null}
 */
function bothSides() {
  const { sides } = state;
  return sides[0] && sides[1] ? /** @type {Side[]} */ (sides) : null; // neither is null
}

/**
 * The viewer arrays of a method's transition clip (fetched once).
 * @param {string} method
 * @returns {Promise<ViewerArrays>}
 */
function load(method) {
  let request = state.loads.get(method);
  if (!request) {
    request = fetch(sources[method].url, { credentials: "same-origin" }).then((response) => {
      if (!response.ok) throw new Error(`the server answered ${response.status} for ${method}`);
      return response.json();
    });
    state.loads.set(method, request);
  }
  return request;
}

/**
 * Put `method`'s transition on side `index` (replacing what was there).
 * @param {Player} player
 * @param {number} index 0 (left) or 1 (right)
 * @param {string} method
 */
async function choose(player, index, method) {
  const arrays = await load(method);
  const old = state.sides[index];
  if (old) {
    old.view.group.removeFromParent();
    old.view.dispose();
  }
  const view = new SkeletonView(arrays, { color: COLORS[index] });
  player.dress(view);
  state.sides[index] = {
    method, arrays, view, hips: travellingRoot(arrays), layout: sources[method].layout,
  };
  player.root.dataset[`side${index}`] = method;
  const sides = bothSides();
  if (sides) {
    arrange(player, sides);
    retime(player, sides);
  }
}

/**
 * Which stage draws which skeleton, and which are visible, for the current mode.
 * @param {Player} player
 * @param {Side[]} sides
 */
function arrange(player, sides) {
  const side = state.mode === "side";
  ui.rightPane.hidden = !side;
  sides.forEach((s, i) => {
    player.stages[side ? i : 0].scene.add(s.view.group);
    s.view.group.visible = state.mode !== "toggle" || state.shown === i;
  });
  // Side by side each pane names its clip; overlaid or toggled, the one pane names both.
  const names = sides.map((s, i) => `${SIDE_NAMES[i]}: ${sources[s.method].label}`);
  ui.captions[0].textContent = side ? `${names[0]} · ${describe(sides[0].arrays)}` : names.join(" · ");
  ui.captions[1].textContent = `${names[1]} · ${describe(sides[1].arrays)}`;
  ui.toggle.hidden = state.mode !== "toggle";
  ui.toggle.textContent = `Showing ${SIDE_NAMES[state.shown]} · T switches`;
  player.root.dataset.mode = state.mode;
  player.root.dataset.shown = SIDE_NAMES[state.shown];
  for (const stage of player.stages) stage.resize();
  if (player.playback) showFrame(player.playback);
}

/**
 * The shared clock for the two clips (lined up at the start or at the cut).
 * @param {Player} player
 * @param {Side[]} sides
 */
function retime(player, sides) {
  const layouts = sides.map((s) => s.layout ?? { frames: s.arrays.frames, blend_start_frame: 0 });
  state.clock = sharedClock(layouts, ui.alignCut.checked ? "cut" : "start");
  player.playback?.setLength(state.clock.frames);
  drawTimeline(sides);
}

/**
 * One bar per side: A, blend and B along the shared clock, and a cursor.
 * @param {Side[]} sides
 */
function drawTimeline(sides) {
  const { offsets, frames } = state.clock;
  ui.timeline.replaceChildren(...sides.map((s, i) => {
    const bar = document.createElement("div");
    bar.className = `compare__bar compare__bar--${SIDE_NAMES[i]}`;
    bar.title = `${SIDE_NAMES[i]}: ${sources[s.method].label}`;
    if (!s.layout) return bar;
    for (const band of bands(s.layout, offsets[i], frames)) {
      const piece = document.createElement("span");
      piece.style.left = `${100 * band.from}%`;
      piece.style.width = `${100 * (band.to - band.from)}%`;
      piece.style.background = PART_COLOURS[band.part];
      bar.append(piece);
    }
    return bar;
  }));
  const cursor = document.createElement("div");
  cursor.className = "compare__cursor";
  ui.timeline.append(cursor);
  if (state.player?.playback) placeCursor(state.player.playback.frame);
}

/** @param {number} frame the shared clock's */
function placeCursor(frame) {
  const cursor = /** @type {HTMLElement | null} */ (ui.timeline.querySelector(".compare__cursor"));
  if (cursor) cursor.style.left = `${(100 * frame) / Math.max(1, state.clock.frames - 1)}%`;
}

/**
 * "A 39", "blend 3", "B 19" for a side at the shared frame.
 * @param {Side} side
 * @param {number} frame
 */
function partText(side, frame) {
  if (!side.layout) return `frame ${frame}`;
  const { part, frame: at } = partAt(side.layout, frame);
  return `${part} ${at}`;
}

/** @param {import("./viewer/playback.js").Playback} playback */
function showFrame(playback) {
  const { player } = state;
  const sides = bothSides();
  if (!player || !sides) return;
  const detail = sides.map((side, i) => {
    const frame = clipFrame(playback.frame, state.clock.offsets[i], side.arrays.frames);
    side.view.update(frame);
    if (state.mode === "side" || state.shown === i) {
      player.track(side.view, side.hips, frame, state.mode === "side" ? i : 0);
    }
    return `${SIDE_NAMES[i]} ${partText(side, frame)}`;
  });
  player.controls?.show(` · ${detail.join(" · ")}`);
  placeCursor(playback.frame);
}

/** @param {string} mode "side", "overlay" or "toggle" */
function setMode(mode) {
  state.mode = mode;
  const sides = bothSides();
  if (state.player && sides) arrange(state.player, sides);
}

function switchSides() {
  const sides = bothSides();
  if (state.mode !== "toggle" || !state.player || !sides) return;
  state.shown = 1 - state.shown;
  arrange(state.player, sides);
}

/** @param {Player} player */
function bind(player) {
  ui.selects.forEach((select, i) => {
    select.addEventListener("change", () => choose(player, i, select.value).catch(fail));
  });
  for (const radio of ui.modes) radio.addEventListener("change", () => setMode(radio.value));
  ui.toggle.addEventListener("click", switchSides);
  ui.alignCut.addEventListener("change", () => {
    const sides = bothSides();
    if (sides) retime(player, sides);
  });
}

/** @param {Error} error */
function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

/** @param {HTMLElement} root */
async function init(root) {
  ui.status.textContent = "Loading both transitions…";
  const player = new Player(root, {
    canvases: ui.canvases,
    onFrame: showFrame,
    extraKeys: { t: switchSides },
    onBody: (visible) => {
      for (const side of state.sides) side?.view.showBody(visible);
    },
    onBones: (visible) => {
      for (const side of state.sides) side?.view.showBones(visible);
    },
    isShown: (i) => i === 0 || state.mode === "side",
  });
  state.player = player;
  const first = await Promise.all(ui.selects.map((select) => load(select.value)));
  player.setClock(Math.max(...first.map((a) => a.frames)), first[0].fps);
  bind(player);
  await Promise.all(ui.selects.map((select, i) => choose(player, i, select.value)));
  state.sides.forEach((side, i) => {
    if (side) player.aim("follow", side.view, side.hips, i);
  });
  ui.status.textContent = `${first[0].fps.toFixed(2)} fps · both clips start with the same A; the bars show where each cut's blend lies`;
  root.dataset.ready = "true";
  player.start();
}

if (root && ui.selects.length === 2) init(root).catch(fail);
