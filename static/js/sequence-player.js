// @ts-check
// The sequence page's player: the sequence clip (viewer arrays) in the 3-D player, with
// a bar showing each clip in turn and the joins' blends, and the readout naming the
// clip (or the join) at the frame shown. Each join has a handle on the bar: dragging it
// (or ←/→ on it, Shift: ten frames) moves that join's cut, shows the frame it would cut
// at and fills the "Set joins by hand" form (the cut moved, the entry left to the
// search); "Render with these joins" makes the new sequence. Hooks for tests:
// #sequence-player[data-ready][data-frame][data-part] ("clip 2" or "join 1"),
// [data-join-handle=k][aria-valuenow].

import { getJson } from "./api.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PART_COLOURS } from "./viewer/compare-timeline.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";

/**
 * @typedef {object} Source
 * @property {string} url the viewer arrays
 * @property {Array<{start: number, stop: number, at: number, cut: number}>} joins each
 *   join's blend and cut (`at`) in output frames, and its cut in the leaving clip's frames
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

/**
 * The handle of join `index` on the bar: dragged or stepped, it moves the join's cut
 * between the end of the previous join's blend and the end of the bar, seeks the player
 * there and writes the cut (in the leaving clip's frames) into the adjust form.
 * @param {HTMLElement} strip the bar
 * @param {number} index
 * @param {number} frames the sequence's length
 * @param {(frame: number) => void} seek
 */
function joinHandle(strip, index, frames, seek) {
  const join = source.joins[index];
  const lowest = index > 0 ? source.joins[index - 1].stop : 1;
  const handle = document.createElement("span");
  handle.className = "sequence-bar__handle";
  handle.dataset.joinHandle = String(index + 1);
  handle.tabIndex = 0;
  handle.setAttribute("role", "slider");
  handle.setAttribute("aria-label", `Join ${index + 1} cut (output frame)`);
  handle.setAttribute("aria-valuemin", String(lowest));
  handle.setAttribute("aria-valuemax", String(frames - 1));
  const cutInput = /** @type {HTMLInputElement | null} */ (document.querySelector(`input[name="cut-${index + 1}"]`));
  const entryInput = /** @type {HTMLInputElement | null} */ (document.querySelector(`input[name="entry-${index + 1}"]`));
  /** @param {number} frame output frame */
  const place = (frame) => {
    const at = Math.min(Math.max(Math.round(frame), lowest), frames - 1);
    handle.style.left = `${(100 * at) / frames}%`;
    handle.setAttribute("aria-valuenow", String(at));
    handle.title = `Join ${index + 1}: cut at output frame ${at} (drag, or ←/→)`;
    return at;
  };
  /** @param {number} frame */
  const move = (frame) => {
    const at = place(frame);
    if (cutInput) cutInput.value = String(join.cut + at - join.at);
    if (entryInput && at !== join.at) entryInput.value = ""; // searched for the new cut
    seek(at);
  };
  place(join.at);
  /** @param {PointerEvent} event */
  const frameOf = (event) => {
    const box = strip.getBoundingClientRect();
    return ((event.clientX - box.left) / box.width) * frames;
  };
  handle.addEventListener("pointerdown", (event) => {
    handle.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  handle.addEventListener("pointermove", (event) => {
    if (handle.hasPointerCapture(event.pointerId)) move(frameOf(event));
  });
  handle.addEventListener("keydown", (event) => {
    const step = event.shiftKey ? 10 : 1;
    const now = Number(handle.getAttribute("aria-valuenow"));
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      move(now + (event.key === "ArrowLeft" ? -step : step));
      event.preventDefault();
      event.stopPropagation(); // not the player's frame keys
    }
  });
  return handle;
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
    onBones: (visible) => view?.showBones(visible),
  });
  player.aimAtOrigin("follow");
  player.start();
  const arrays = await getJson(source.url);
  view = new SkeletonView(arrays);
  player.dress(view);
  player.stage.scene.add(view.group);
  hips = travellingRoot(arrays);
  const playback = player.setClock(arrays.frames, arrays.fps);
  player.aim("follow", view, hips);
  drawBar(arrays.frames);
  if (bar && document.querySelector("[data-adjust-joins]")) {
    const seek = (/** @type {number} */ frame) => playback.seek(frame);
    source.joins.forEach((_, k) => bar.append(joinHandle(bar, k, arrays.frames, seek)));
    bar.removeAttribute("aria-hidden");
  }
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
