// @ts-check
// Proposal page: the proposed transition clip in the player (viewer/player.js), the
// thread's pins on its timeline and as rings on the skeleton's joints, and the thread
// itself (comments posted, replied to and resolved through the REST API, redrawn
// without a reload). The pieces live in viewer/ and review/.
//
// Data (json_script): #proposal-source {label, url, layout} (null when the run's viewer
// arrays are gone: the thread still works, its pins cannot seek) and #review-config
// (webapp/reviews/presenters.py review_config).

import { getJson, sendJson } from "./api.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { partAt } from "./viewer/compare-timeline.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { CommentForm } from "./review/comment-form.js";
import { JointMarkers } from "./review/joint-markers.js";
import { markRead } from "./review/mark-read.js";
import { PinTimeline } from "./review/pin-timeline.js";
import { activeJointPins, timelinePins, toPlayerFrame } from "./review/pins.js";
import { ThreadView } from "./review/thread.js";

/** @typedef {import("./review/pins.js").Comment} Comment */
/** @typedef {import("./review/pins.js").Pin} Pin */
/** @typedef {import("./review/pins.js").PinLayout} PinLayout */
/**
 * The review's configuration (webapp/reviews/presenters.py review_config); the keys read here.
 * @typedef {import("./review/thread.js").ThreadConfig & {
 *   comments: Comment[], commentsUrl: string, resolveUrl: string, transitionFrames?: number,
 *   clips: {a: {fps: number}, b: {fps: number}}, parameters: Record<string, unknown>,
 *   unread?: import("./review/mark-read.js").Unread}} ReviewConfig
 */

/** @param {string} id */
const readJson = (id) => JSON.parse(document.getElementById(id)?.textContent ?? "null");
/** @type {ReviewConfig | null} */
const config = readJson("review-config");
/** @type {{label: string, url: string, layout: PinLayout | null} | null} */
const source = readJson("proposal-source");
const root = document.getElementById("proposal-player");
/**
 * The element matching `selector` in the player (the template has each one).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @returns {T}
 */
const q = (selector) => /** @type {T} */ (root?.querySelector(selector));
const ui = {
  canvas: q("[data-canvas]"),
  status: q("[data-viewer-status]"),
  timeline: q("[data-pin-timeline]"),
  markers: q("[data-marker-caption]"),
  thread: /** @type {HTMLElement | null} */ (document.querySelector("[data-thread]")),
  form: /** @type {HTMLFormElement | null} */ (document.querySelector("[data-comment-form]")),
};
const state = {
  /** @type {Player | null} */ player: null,
  /** @type {SkeletonView | null} */ view: null,
  /** @type {ThreadView | null} */ thread: null,
  /** @type {PinTimeline | null} */ timeline: null,
  /** @type {JointMarkers | null} */ markers: null,
  /** @type {import("./viewer/arrays.js").ViewerArrays | null} */ arrays: null,
  hips: 0,
  /** @type {Pin[]} */ pins: [],
  /** @type {Comment[]} */ comments: config?.comments ?? [],
};

/**
 * The player's frames and rates, for placing pins (before the arrays load: the report's).
 * @param {ReviewConfig} config
 * @returns {import("./review/pins.js").PinContext}
 */
function context(config) {
  const layout = source?.layout ?? null;
  const frames = state.arrays?.frames ?? config.transitionFrames ?? layout?.frames ?? 1;
  const fps = state.arrays?.fps ?? config.clips.a.fps;
  return { frames, fps, layout: layout ?? {}, clips: config.clips };
}

/**
 * @param {ReviewConfig} config
 * @param {Comment[]} comments
 */
function showComments(config, comments) {
  state.comments = comments;
  state.pins = timelinePins(comments, context(config));
  state.thread?.render(comments);
  state.timeline?.setPins(state.pins);
  if (state.player?.playback) showFrame(state.player.playback);
}

/** @param {ReviewConfig} config */
async function reload(config) {
  showComments(config, await getJson(config.commentsUrl));
}

/**
 * @param {ReviewConfig} config
 * @param {Comment} comment
 */
function seekComment(config, comment) {
  const playback = state.player?.playback;
  if (!playback || !root) return;
  const frame = toPlayerFrame(comment.frame_clip, comment.frame_start, context(config));
  playback.seek(Number(frame)); // a comment with a seek button has frames
  root.focus({ preventScroll: true });
  root.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

/**
 * @param {ReviewConfig} config
 * @param {HTMLElement} list
 */
function bindThread(config, list) {
  state.thread = new ThreadView(list, {
    config,
    ctx: () => context(config),
    canSeek: () => Boolean(state.player?.playback),
    onSeek: (comment) => seekComment(config, comment),
    onReply: async (parent, body) => {
      await sendJson(config.commentsUrl, { body: { body, reply_to: parent } });
      await reload(config);
    },
    onResolve: async (id, resolved) => {
      const url = config.resolveUrl.replace(/\/0\/resolve\/$/, `/${id}/resolve/`);
      await sendJson(url, { method: resolved ? "POST" : "DELETE" });
      await reload(config);
    },
  });
  if (ui.form) {
    new CommentForm(ui.form, {
      parameters: config.parameters,
      currentFrame: () => state.player?.playback?.frame ?? null,
      submit: async (payload) => {
        await sendJson(config.commentsUrl, { body: payload });
        await reload(config);
      },
    });
  }
  showComments(config, state.comments);
}

/**
 * "A 39", "blend 3", "B 19" at the player's frame.
 * @param {number} frame
 */
function partText(frame) {
  const layout = source?.layout;
  if (layout?.blend_start_frame == null) return "";
  const { part, frame: at } = partAt(/** @type {import("./viewer/compare-timeline.js").Layout} */ (layout), frame);
  return ` · ${part} ${at}`;
}

/** @param {import("./viewer/playback.js").Playback} playback */
function showFrame(playback) {
  const { player, view, markers } = state;
  if (!player || !view || !markers || !root) return;
  const frame = playback.frame;
  view.update(frame);
  player.track(view, state.hips, frame);
  const active = activeJointPins(state.pins, frame);
  const marked = markers.update(frame, active.map((pin) => pin.joint));
  root.dataset.jointMarkers = marked.join(",");
  ui.markers.textContent = marked.length
    ? `Pinned here: ${active.filter((p) => marked.includes(p.joint)).map((p) => `${p.joint} (${p.author}, comment ${p.id})`).join(" · ")}`
    : "";
  player.controls?.show(partText(frame));
  state.timeline?.setFrame(frame);
}

/**
 * @param {ReviewConfig} config
 * @param {NonNullable<typeof source>} source
 * @param {HTMLElement} root
 */
async function initPlayer(config, source, root) {
  ui.status.textContent = "Loading the transition…";
  /** @type {import("./viewer/arrays.js").ViewerArrays} */
  const arrays = await getJson(source.url);
  state.arrays = arrays;
  const player = new Player(root, {
    canvases: [ui.canvas],
    onFrame: showFrame,
    onBody: (visible) => view.showBody(visible),
    onBones: (visible) => view.showBones(visible),
  });
  const view = player.dress(new SkeletonView(arrays));
  player.stage.scene.add(view.group);
  const markers = new JointMarkers(view, arrays.names ?? []);
  player.stage.scene.add(markers.group);
  Object.assign(state, { player, view, markers, hips: travellingRoot(arrays) });
  const playback = player.setClock(arrays.frames, arrays.fps);
  state.timeline = new PinTimeline(ui.timeline, {
    frames: arrays.frames, layout: source.layout, onSeek: (frame) => playback.seek(frame),
  });
  showComments(config, state.comments); // the pins again, now at the player's own frame rate
  player.aim("follow", view, state.hips);
  ui.status.textContent = `${source.label} · ${describe(arrays)}`;
  root.dataset.ready = "true";
  player.start();
}

/** @param {Error} error */
function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

if (config && ui.thread) bindThread(config, ui.thread);
if (config) markRead(config.unread).catch(() => {}); // a failure leaves them unread
if (config && source && root) initPlayer(config, source, root).catch(fail);
