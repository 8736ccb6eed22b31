// Score page: a Labanotation score's animation in the 3-D player, its footprints on
// the ground, and the score drawn as a staff beside it with a cursor at the current
// time; a metronome. init / animate / resize and the wiring; the pieces live in
// score/ and viewer/.
//
// The page gives three JSON downloads (data-*-url on #score-player): the normalised
// score (kinetograph-score/1, docs/score-format.md), the animation's viewer arrays
// (60 fps, frame 0 = beat 0) and the footprints with the measures. Hooks for tests:
// #score-player[data-ready][data-frame], #staff[data-symbols][data-beat],
// [data-metronome][aria-pressed].

import * as THREE from "three";
import { getJson } from "./api.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { PlaybackControls } from "./viewer/controls.js";
import { Playback } from "./viewer/playback.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { Stage } from "./viewer/stage.js";
import { FootprintView } from "./score/footprint-view.js";
import { beatReadout, measureRows, secondsPerBeat, stepCount } from "./score/format.js";
import { beatOfTime, beatPosition, frameOfBeat } from "./score/layout.js";
import { Metronome, isAccent, tickDue } from "./score/metronome.js";
import { StaffView, legendSample } from "./score/staff-view.js";

const root = document.getElementById("score-player");
const q = (selector, within = root) => within?.querySelector(selector) ?? null;
const ui = {
  canvas: q("[data-canvas]"),
  status: q("[data-viewer-status]"),
  controls: q(".viewer__controls"),
  presets: root ? [...root.querySelectorAll("[data-preset]")] : [],
  body: q("[data-body]"),
  staff: document.getElementById("staff"),
  readout: q("[data-beat-readout]"),
  light: q("[data-beat-light]"),
  metronome: q("[data-metronome]"),
  legend: q("[data-staff-legend]"),
  measures: document.querySelector("[data-measures]"),
};
const state = {
  stage: null, skeleton: null, playback: null, controls: null, staff: null, prints: null,
  metronome: new Metronome(), hips: 0, spb: 0.5, meter: 1, beats: 1,
  previousBeat: null, flash: 0, last: 0,
};
const scratch = new THREE.Vector3();

// --- time in beats ------------------------------------------------------------------------

/** The beat shown now (the clock's time over the seconds per beat). */
function currentBeat() {
  return beatOfTime(state.playback.time, state.spb);
}

/** Go to `beat` (clamped; pauses, as every seek does). */
function seekBeat(beat) {
  const p = state.playback;
  p.seek(frameOfBeat(Math.min(state.beats, Math.max(0, beat)), state.spb, p.fps, p.frames));
}

/** ↑/↓ one beat, Page Up/Down one bar, from the whole beat or bar the cursor is on. */
function stepBeats(count) {
  const beat = currentBeat();
  const whole = count > 0 ? Math.floor(beat + 1e-6) : Math.ceil(beat - 1e-6);
  seekBeat(whole + count);
}

function stepBars(count) {
  const bar = beatPosition(currentBeat(), state.meter, state.beats).bar - 1;
  const onBar = Math.abs(currentBeat() - bar * state.meter) < 1e-3;
  seekBeat((count > 0 || onBar ? bar + count : bar) * state.meter);
}

// --- the metronome ------------------------------------------------------------------------

function toggleMetronome() {
  const on = ui.metronome.getAttribute("aria-pressed") !== "true";
  state.metronome.setEnabled(on);
  ui.metronome.setAttribute("aria-pressed", String(on));
  ui.metronome.textContent = on ? "Metronome on" : "Metronome";
  ui.metronome.title = on && state.metronome.silent
    ? "No sound here (Web Audio is not available): the light still flashes on the beat"
    : "A click on every beat while playing, accented on the first beat of a bar (key M)";
  state.previousBeat = null;
}

/** While playing, click (and flash) on every whole beat the clock reaches. */
function metronomeStep(beat) {
  if (!state.playback.playing) {
    state.previousBeat = null;
    return;
  }
  const due = tickDue(state.previousBeat, beat, state.beats);
  state.previousBeat = beat;
  if (due == null || ui.metronome.getAttribute("aria-pressed") !== "true") return;
  const accent = isAccent(due, state.meter);
  state.metronome.tick(accent);
  ui.light.dataset.on = accent ? "accent" : "beat";
  clearTimeout(state.flash);
  state.flash = setTimeout(() => delete ui.light.dataset.on, 110);
}

// --- the player ---------------------------------------------------------------------------

function showFrame() {
  const { playback, skeleton, stage, staff } = state;
  skeleton.update(playback.frame);
  stage.track(skeleton.jointPosition(playback.frame, state.hips, scratch));
  const beat = currentBeat();
  state.prints?.setTime(playback.time);
  staff.setBeat(beat, { follow: true });
  staff.setDraggable(!playback.playing);
  ui.readout.textContent = beatReadout(beat, state.meter, state.beats);
  state.controls.show(` · beat ${beat.toFixed(2)}`);
  metronomeStep(beat);
}

function showMeasures(footprints, score) {
  ui.measures?.replaceChildren(...measureRows(footprints, score).map(([label, value, note]) => {
    const row = document.createElement("div");
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = label;
    dd.textContent = value;
    if (note) dt.title = note;
    row.append(dt, dd);
    return row;
  }));
}

function showLegend() {
  if (!ui.legend) return;
  const signs = [
    [{ kind: "direction", direction: "place" }, "place (a rectangle)"],
    [{ kind: "direction", direction: "forward" }, "forward: the tab up, on the limb's side"],
    [{ kind: "direction", direction: "backward" }, "backward: the tab down"],
    [{ kind: "direction", direction: "right" }, "side (right): a wedge pointing that way"],
    [{ kind: "direction", direction: "right_forward" }, "diagonal (right forward): the point that way"],
    [{ kind: "direction", direction: "place", level: "low" }, "low level: filled"],
    [{ kind: "direction", direction: "place", level: "middle" }, "middle level: a dot"],
    [{ kind: "direction", direction: "place", level: "high" }, "high level: hatched"],
    [{ kind: "turn", turn: "right" }, "turn (right); its amount inside"],
    [{ kind: "hold" }, "hold"],
    [{ kind: "path" }, "path (outside the staff, right)"],
    [{ kind: "step_size" }, "step size (−3 … +3)"],
  ];
  ui.legend.replaceChildren(...signs.map(([sign, words]) => {
    const item = document.createElement("li");
    item.append(legendSample(sign), ` ${words}`);
    return item;
  }));
}

/** Build the player, the prints and the staff from the three downloads. */
function play(score, arrays, footprints) {
  state.spb = secondsPerBeat(footprints, score);
  state.meter = Math.max(1, Number(score.meter) || 1);
  state.beats = state.meter * Math.max(1, Number(score.measures) || 1);
  state.skeleton = new SkeletonView(arrays);
  state.skeleton.showBody(Boolean(ui.body?.checked));
  state.stage.scene.add(state.skeleton.group);
  state.hips = travellingRoot(arrays);
  if (footprints) {
    state.prints = new FootprintView(footprints);
    state.stage.scene.add(state.prints.group);
  }
  state.playback = new Playback(arrays.frames, arrays.fps);
  state.controls = new PlaybackControls(root, state.playback, {
    extraKeys: {
      ArrowUp: () => stepBeats(1),
      ArrowDown: () => stepBeats(-1),
      PageUp: () => stepBars(1),
      PageDown: () => stepBars(-1),
      m: toggleMetronome,
    },
  });
  state.staff = new StaffView(ui.staff, score, {
    onSeek: seekBeat,
    canDrag: () => !state.playback.playing,
  });
  state.playback.onChange(showFrame);
  state.stage.preset("follow", state.skeleton.jointPosition(0, state.hips, new THREE.Vector3()));
  ui.controls.hidden = false;
  showMeasures(footprints, score);
  showFrame();
  const steps = footprints ? ` · ${stepCount(footprints)} steps` : " · no footprints";
  ui.status.textContent = `${score.tempo_bpm} bpm, ${score.measures} bars of ${state.meter} · ${describe(arrays)}${steps}`;
  root.dataset.ready = "true";
}

async function load() {
  root.dataset.ready = "false";
  ui.status.textContent = "Loading the score and its animation…";
  const { scoreUrl, animationUrl, footprintsUrl } = root.dataset;
  const [score, arrays, footprints] = await Promise.all([
    getJson(scoreUrl),
    getJson(animationUrl),
    footprintsUrl ? getJson(footprintsUrl).catch(() => null) : Promise.resolve(null),
  ]);
  play(score, arrays, footprints);
}

function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
  if (root) root.dataset.error = error.message;
}

function bindPlayer() {
  for (const button of ui.presets) {
    button.addEventListener("click", () => state.stage.preset(button.dataset.preset, state.stage.target));
  }
  ui.body?.addEventListener("change", () => state.skeleton?.showBody(ui.body.checked));
  ui.metronome?.addEventListener("click", toggleMetronome);
}

// --- init / animate / resize --------------------------------------------------------------

function animate(now) {
  const dt = state.last ? (now - state.last) / 1000 : 0;
  state.last = now;
  state.playback?.update(dt);
  state.stage.render();
  requestAnimationFrame(animate);
}

function resize() {
  state.stage.resize();
  state.staff?.render();
}

function init() {
  if (!root) return;
  state.stage = new Stage(ui.canvas);
  state.stage.preset("follow", new THREE.Vector3(0, 1, 0));
  ui.controls.hidden = true;
  bindPlayer();
  showLegend();
  window.addEventListener("resize", resize);
  if ("ResizeObserver" in window) new ResizeObserver(() => state.staff?.render()).observe(ui.staff);
  window.addEventListener("pagehide", () => state.metronome.dispose());
  requestAnimationFrame(animate);
  load().catch(fail);
}

try {
  init();
} catch (error) {
  fail(error);
}
