// @ts-check
// The sequence page's player: the sequence clip (viewer arrays) in the 3-D player, with
// a bar showing each clip in turn and the joins' blends, and the readout naming the
// clip (or the join) at the frame shown. Hooks for tests: #sequence-player[data-ready]
// [data-frame][data-part] ("clip 2" or "join 1").

import { getJson } from "./api.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PART_COLOURS } from "./viewer/compare-timeline.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";

/**
 * @typedef {object} Source
 * @property {string} url the viewer arrays
 * @property {Array<{start: number, stop: number}>} joins each join's blend, output frames
 * @property {Array<{start: number, name: string}>} segments where each clip starts
 */

const root = document.getElementById("sequence-player");
/** @type {Source} */
const source = JSON.parse(document.getElementById("sequence-source")?.textContent ?? "{}");
const status = /** @type {HTMLElement | null} */ (root?.querySelector("[data-viewer-status]") ?? null);
const bar = /** @type {HTMLElement | null} */ (root?.querySelector("[data-sequence-bar]") ?? null);
const CLIP_COLOURS = [PART_COLOURS.A, PART_COLOURS.C, PART_COLOURS.B];

/**
 * Which part plays at output frame `frame`: "join k" inside a blend, else "clip k".
 * @param {number} frame
 */
export function partAt(frame) {
  const join = source.joins.findIndex((j) => frame >= j.start && frame < j.stop);
  if (join >= 0) return `join ${join + 1}`;
  let clip = 0;
  source.segments.forEach((s, i) => {
    if (frame >= s.start) clip = i;
  });
  return `clip ${clip + 1}`;
}

/**
 * The bar: the clips in turn (alternating colours) and the blends over them.
 * @param {number} frames
 */
function drawBar(frames) {
  if (!bar) return;
  bar.replaceChildren();
  const at = (/** @type {number} */ f) => `${(100 * f) / frames}%`;
  source.segments.forEach((segment, i) => {
    const end = i + 1 < source.segments.length ? source.segments[i + 1].start : frames;
    const piece = document.createElement("span");
    piece.style.left = at(segment.start);
    piece.style.width = at(end - segment.start);
    piece.style.background = CLIP_COLOURS[i % CLIP_COLOURS.length];
    piece.title = `${i + 1}. ${segment.name}`;
    bar.append(piece);
  });
  for (const join of source.joins) {
    const piece = document.createElement("span");
    piece.style.left = at(join.start);
    piece.style.width = at(Math.max(join.stop - join.start, 1));
    piece.style.background = PART_COLOURS.blend;
    bar.append(piece);
  }
}

/** @param {HTMLElement} element */
async function init(element) {
  /** @type {SkeletonView | null} */
  let view = null;
  let hips = 0;
  const player = new Player(element, {
    canvases: [/** @type {HTMLElement} */ (element.querySelector("[data-canvas]"))],
    onFrame: (playback) => {
      if (!view) return;
      view.update(playback.frame);
      player.track(view, hips, playback.frame);
      const part = partAt(playback.frame);
      element.dataset.part = part;
      player.controls?.show(` · ${part}`);
    },
    onBody: (visible) => view?.showBody(visible),
  });
  player.aimAtOrigin("follow");
  player.start();
  const arrays = await getJson(source.url);
  view = new SkeletonView(arrays);
  view.showBody(player.bodyShown);
  player.stage.scene.add(view.group);
  hips = travellingRoot(arrays);
  const playback = player.setClock(arrays.frames, arrays.fps);
  player.aim("follow", view, hips);
  drawBar(arrays.frames);
  if (status) status.textContent = `${source.segments.length} clips, ${source.joins.length} joins · ${describe(arrays)}`;
  player.options.onFrame(playback);
  element.dataset.ready = "true";
}

if (root && source.url) {
  init(root).catch((/** @type {Error} */ error) => {
    if (status) status.textContent = `The player failed: ${error.message}`;
    root.dataset.error = error.message;
  });
}
