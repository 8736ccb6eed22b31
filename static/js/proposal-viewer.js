// Proposal page: the proposed transition clip in the player, the thread's pins on its
// timeline and as rings on the skeleton's joints, and the thread itself (comments
// posted, replied to and resolved through the REST API, redrawn without a reload).
// init / animate / resize only; the pieces live in viewer/ and review/.
//
// Data (json_script): #proposal-source {label, url, layout} (null when the run's viewer
// arrays are gone: the thread still works, its pins cannot seek) and #review-config
// (webapp/reviews/presenters.py review_config).

import * as THREE from "three";
import { getJson, sendJson } from "./api.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { partAt } from "./viewer/compare-timeline.js";
import { PlaybackControls } from "./viewer/controls.js";
import { Playback } from "./viewer/playback.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";
import { CommentForm } from "./review/comment-form.js";
import { JointMarkers } from "./review/joint-markers.js";
import { PinTimeline } from "./review/pin-timeline.js";
import { activeJointPins, timelinePins, toPlayerFrame } from "./review/pins.js";
import { ThreadView } from "./review/thread.js";

const readJson = (id) => JSON.parse(document.getElementById(id)?.textContent ?? "null");
const config = readJson("review-config");
const source = readJson("proposal-source");
const root = document.getElementById("proposal-player");
const ui = {
  canvas: root?.querySelector("[data-canvas]"),
  status: root?.querySelector("[data-viewer-status]"),
  timeline: root?.querySelector("[data-pin-timeline]"),
  markers: root?.querySelector("[data-marker-caption]"),
  presets: root ? [...root.querySelectorAll("[data-preset]")] : [],
  body: root?.querySelector("[data-body]"),
  thread: document.querySelector("[data-thread]"),
  form: document.querySelector("[data-comment-form]"),
};
const state = {
  stage: null, view: null, playback: null, controls: null, timeline: null, markers: null,
  arrays: null, hips: 0, last: 0, pins: [], comments: config?.comments ?? [],
};

/** The player's frames and rates, for placing pins (before the arrays load: the report's). */
function context() {
  const layout = source?.layout ?? null;
  const frames = state.arrays?.frames ?? config.transitionFrames ?? layout?.frames ?? 1;
  const fps = state.arrays?.fps ?? config.clips.a.fps;
  return { frames, fps, layout: layout ?? {}, clips: config.clips };
}

function showComments(comments) {
  state.comments = comments;
  state.pins = timelinePins(comments, context());
  state.thread.render(comments);
  state.timeline?.setPins(state.pins);
  if (state.controls) showFrame();
}

async function reload() {
  showComments(await getJson(config.commentsUrl));
}

function seekComment(comment) {
  if (!state.playback) return;
  const frame = toPlayerFrame(comment.frame_clip, comment.frame_start, context());
  state.playback.seek(frame);
  root.focus({ preventScroll: true });
  root.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function bindThread() {
  state.thread = new ThreadView(ui.thread, {
    config,
    ctx: context,
    canSeek: () => Boolean(state.playback),
    onSeek: seekComment,
    onReply: async (parent, body) => {
      await sendJson(config.commentsUrl, { body: { body, reply_to: parent } });
      await reload();
    },
    onResolve: async (id, resolved) => {
      const url = config.resolveUrl.replace(/\/0\/resolve\/$/, `/${id}/resolve/`);
      await sendJson(url, { method: resolved ? "POST" : "DELETE" });
      await reload();
    },
  });
  if (ui.form) {
    new CommentForm(ui.form, {
      parameters: config.parameters,
      currentFrame: () => state.playback?.frame ?? null,
      submit: async (payload) => {
        await sendJson(config.commentsUrl, { body: payload });
        await reload();
      },
    });
  }
  showComments(state.comments);
}

/** "A 39", "blend 3", "B 19" at the player's frame. */
function partText(frame) {
  const layout = source.layout;
  if (layout?.blend_start_frame == null) return "";
  const { part, frame: at } = partAt(layout, frame);
  return ` · ${part} ${at}`;
}

function showFrame() {
  const { playback, view, stage } = state;
  const frame = playback.frame;
  view.update(frame);
  stage.track(view.jointPosition(frame, state.hips, new THREE.Vector3()));
  const active = activeJointPins(state.pins, frame);
  const marked = state.markers.update(frame, active.map((pin) => pin.joint));
  root.dataset.jointMarkers = marked.join(",");
  ui.markers.textContent = marked.length
    ? `Pinned here: ${active.filter((p) => marked.includes(p.joint)).map((p) => `${p.joint} (${p.author}, comment ${p.id})`).join(" · ")}`
    : "";
  state.controls.show(partText(frame));
  state.timeline.setFrame(frame);
}

function animate(now) {
  const dt = state.last ? (now - state.last) / 1000 : 0;
  state.last = now;
  state.playback.update(dt);
  state.stage.render();
  requestAnimationFrame(animate);
}

function bindPlayer() {
  const { playback, stage } = state;
  state.controls = new PlaybackControls(root, playback);
  playback.onChange(showFrame);
  for (const button of ui.presets) {
    button.addEventListener("click", () => stage.preset(button.dataset.preset, stage.target));
  }
  ui.body?.addEventListener("change", () => {
    state.view.showBody(ui.body.checked);
    root.dataset.bodyShown = String(ui.body.checked);
  });
  window.addEventListener("resize", () => stage.resize());
}

async function initPlayer() {
  ui.status.textContent = "Loading the transition…";
  const arrays = await getJson(source.url);
  state.arrays = arrays;
  state.stage = new Stage(ui.canvas);
  state.view = new SkeletonView(arrays, { color: 0x2f6fde });
  state.stage.scene.add(state.view.group);
  state.markers = new JointMarkers(state.view, arrays.names ?? []);
  state.stage.scene.add(state.markers.group);
  state.hips = travellingRoot(arrays);
  state.playback = new Playback(arrays.frames, arrays.fps);
  state.timeline = new PinTimeline(ui.timeline, {
    frames: arrays.frames, layout: source.layout, onSeek: (frame) => state.playback.seek(frame),
  });
  bindPlayer();
  showComments(state.comments); // the pins again, now at the player's own frame rate
  state.stage.preset("follow", state.view.jointPosition(0, state.hips, new THREE.Vector3()));
  ui.status.textContent = `${source.label} · ${describe(arrays)}`;
  root.dataset.ready = "true";
  requestAnimationFrame(animate);
}

function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
}

if (config && ui.thread) bindThread();
if (config && source && root) initPlayer().catch(fail);
