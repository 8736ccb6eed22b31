// @ts-check
// Score page: a Labanotation score's animation in the 3-D player (viewer/player.js), its
// footprints on the ground, and the score drawn as a staff beside it with a cursor at
// the current time; a metronome. The wiring of the three; the pieces live in score/
// and viewer/.
//
// The page gives three JSON downloads (data-*-url on #score-player): the normalised
// score (kinetograph-score/1, docs/score-format.md), the animation's viewer arrays
// (60 fps, frame 0 = beat 0) and the footprints with the measures. Hooks for tests:
// #score-player[data-ready][data-frame], #staff[data-symbols][data-beat],
// [data-metronome][aria-pressed]. For editors the page has the editor (score/editor-panel.js),
// whose previews replace the animation shown.

import { getJson } from "./api.js";
import { termRows } from "./dom.js";
import { describe, travellingRoot } from "./viewer/arrays.js";
import { Player } from "./viewer/player.js";
import { SkeletonView } from "./viewer/skeleton-view.js";
import { FootprintView } from "./score/footprint-view.js";
import { beatReadout, measureRows, secondsPerBeat, stepCount } from "./score/format.js";
import { beatOfTime, beatPosition, frameOfBeat } from "./score/layout.js";
import { Metronome, isAccent, tickDue } from "./score/metronome.js";
import { legendSample } from "./score/staff-glyphs.js";
import { StaffView } from "./score/staff-view.js";
import { startEditor } from "./score/editor-panel.js";

/** @typedef {import("./score/format.js").Footprints} Footprints */
/** @typedef {import("./score/format.js").Score} Score */
/** @typedef {import("./viewer/playback.js").Playback} Playback */

const root = document.getElementById("score-player");
/**
 * The element matching `selector` in the player (the template has each one).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @returns {T}
 */
const q = (selector) => /** @type {T} */ (root?.querySelector(selector) ?? null);
const ui = {
  canvas: q("[data-canvas]"),
  status: q("[data-viewer-status]"),
  controls: q(".viewer__controls"),
  staff: /** @type {HTMLElement} */ (document.getElementById("staff")),
  readout: q("[data-beat-readout]"),
  light: q("[data-beat-light]"),
  metronome: q("[data-metronome]"),
  legend: /** @type {HTMLElement | null} */ (q("[data-staff-legend]")),
  measures: /** @type {HTMLElement | null} */ (document.querySelector("[data-measures]")),
  editor: /** @type {HTMLElement | null} */ (document.querySelector("[data-editor]")),
};
const state = {
  /** @type {Player | null} */ player: null,
  /** @type {SkeletonView | null} */ skeleton: null,
  /** @type {StaffView | null} */ staff: null,
  /** @type {FootprintView | null} */ prints: null,
  metronome: new Metronome(),
  hips: 0,
  spb: 0.5,
  meter: 1,
  beats: 1,
  /** @type {number | null} the beat of the last frame shown while playing */
  previousBeat: null,
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  flash: undefined,
};

// --- time in beats ------------------------------------------------------------------------

/**
 * The beat shown now (the clock's time over the seconds per beat).
 * @param {Playback} playback
 */
function currentBeat(playback) {
  return beatOfTime(playback.time, state.spb);
}

/**
 * Go to `beat` (clamped; pauses, as every seek does).
 * @param {Playback} p
 * @param {number} beat
 */
function seekBeat(p, beat) {
  p.seek(frameOfBeat(Math.min(state.beats, Math.max(0, beat)), state.spb, p.fps, p.frames));
}

/**
 * ↑/↓ one beat, Page Up/Down one bar, from the whole beat or bar the cursor is on.
 * @param {Playback} p
 * @param {number} count
 */
function stepBeats(p, count) {
  const beat = currentBeat(p);
  const whole = count > 0 ? Math.floor(beat + 1e-6) : Math.ceil(beat - 1e-6);
  seekBeat(p, whole + count);
}

/**
 * @param {Playback} p
 * @param {number} count
 */
function stepBars(p, count) {
  const bar = beatPosition(currentBeat(p), state.meter, state.beats).bar - 1;
  const onBar = Math.abs(currentBeat(p) - bar * state.meter) < 1e-3;
  seekBeat(p, (count > 0 || onBar ? bar + count : bar) * state.meter);
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

/**
 * While playing, click (and flash) on every whole beat the clock reaches.
 * @param {Playback} playback
 * @param {number} beat
 */
function metronomeStep(playback, beat) {
  if (!playback.playing) {
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

/** @param {Playback} playback */
function showFrame(playback) {
  const { player, skeleton, staff } = state;
  if (!player || !skeleton || !staff) return;
  skeleton.update(playback.frame);
  player.track(skeleton, state.hips, playback.frame);
  const beat = currentBeat(playback);
  state.prints?.setTime(playback.time);
  staff.setBeat(beat, { follow: true });
  staff.setDraggable(!playback.playing);
  ui.readout.textContent = beatReadout(beat, state.meter, state.beats);
  player.controls?.show(` · beat ${beat.toFixed(2)}`);
  metronomeStep(playback, beat);
}

function showLegend() {
  if (!ui.legend) return;
  /** @type {Array<[import("./score/staff-glyphs.js").Sign, string]>} */
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

/**
 * Show an animation in the player (the first, or an edit's in place of the one shown):
 * its skeleton, its footprints, the clock at the beat shown before.
 * @param {Player} player
 * @param {import("./viewer/arrays.js").ViewerArrays} arrays
 * @param {Footprints | null} footprints
 */
function showAnimation(player, arrays, footprints) {
  const beat = player.playback ? currentBeat(player.playback) : 0;
  for (const old of [state.skeleton, state.prints]) {
    if (!old) continue;
    player.stage.scene.remove(old.group);
    old.dispose();
  }
  state.prints = null;
  const skeleton = new SkeletonView(arrays);
  state.skeleton = skeleton;
  player.dress(skeleton);
  player.stage.scene.add(skeleton.group);
  state.hips = travellingRoot(arrays);
  if (footprints) {
    state.prints = new FootprintView(footprints);
    player.stage.scene.add(state.prints.group);
  }
  const playback = player.setClock(arrays.frames, arrays.fps);
  if (beat > 0) seekBeat(playback, beat);
  return playback;
}

/**
 * Build the player's clock, the prints and the staff from the three downloads; the
 * editor where the page has one.
 * @param {Player} player
 * @param {Score} score
 * @param {import("./viewer/arrays.js").ViewerArrays} arrays
 * @param {Footprints | null} footprints
 */
function play(player, score, arrays, footprints) {
  state.spb = secondsPerBeat(footprints, score);
  state.meter = Math.max(1, Number(score.meter) || 1);
  state.beats = state.meter * Math.max(1, Number(score.measures) || 1);
  const playback = showAnimation(player, arrays, footprints);
  const staff = new StaffView(ui.staff, score, {
    onSeek: (beat) => seekBeat(playback, beat),
    canDrag: () => !playback.playing,
  });
  state.staff = staff;
  player.aim("follow", /** @type {SkeletonView} */ (state.skeleton), state.hips);
  ui.controls.hidden = false;
  if (ui.measures) termRows(ui.measures, measureRows(footprints, score));
  showFrame(playback);
  ui.status.textContent = summary(score, arrays, footprints);
  if (ui.editor) {
    startEditor({
      panel: ui.editor,
      keys: player.root,
      staff,
      score,
      currentBeat: () => currentBeat(playback),
      onAnimation: (preview, edited) => {
        state.spb = secondsPerBeat(preview.animation, edited);
        state.meter = Math.max(1, Number(edited.meter) || 1);
        state.beats = state.meter * Math.max(1, Number(edited.measures) || 1);
        showAnimation(player, preview.viewer, preview.animation);
        showFrame(playback);
        if (ui.measures) termRows(ui.measures, measureRows(preview.animation, edited));
        ui.status.textContent = `Edited: ${summary(edited, preview.viewer, preview.animation)}`;
      },
    });
  }
  player.root.dataset.ready = "true";
}

/**
 * "120 bpm, 5 bars of 2 beats · … · 8 steps"
 * @param {Score} score
 * @param {import("./viewer/arrays.js").ViewerArrays} arrays
 * @param {Footprints | null} footprints
 */
function summary(score, arrays, footprints) {
  const steps = footprints ? ` · ${stepCount(footprints)} steps` : " · no footprints";
  return `${score.tempo_bpm} bpm, ${barsText(score.measures, state.meter)} · ${describe(arrays)}${steps}`;
}

/**
 * "1 bar of 4 beats", "8 bars of 3 beats".
 * @param {number} bars
 * @param {number} beats per bar
 */
function barsText(bars, beats) {
  return `${bars} ${bars === 1 ? "bar" : "bars"} of ${beats} ${beats === 1 ? "beat" : "beats"}`;
}

/** @param {Player} player */
async function load(player) {
  player.root.dataset.ready = "false";
  ui.status.textContent = "Loading the score and its animation…";
  const { scoreUrl, animationUrl, footprintsUrl } = player.root.dataset;
  const [score, arrays, footprints] = await Promise.all([
    getJson(scoreUrl ?? ""),
    getJson(animationUrl ?? ""),
    footprintsUrl ? getJson(footprintsUrl).catch(() => null) : Promise.resolve(null),
  ]);
  play(player, score, arrays, footprints);
}

/** @param {Error} error */
function fail(error) {
  if (ui.status) ui.status.textContent = `The player failed: ${error.message}`;
  if (root) root.dataset.error = error.message;
}

// --- init ---------------------------------------------------------------------------------

/**
 * An action on the player's clock (the keys work once there is one).
 * @param {(p: Playback) => void} action
 */
const onClock = (action) => () => {
  const playback = state.player?.playback;
  if (playback) action(playback);
};

/** The score's keys, besides the player's. */
const SCORE_KEYS = {
  ArrowUp: onClock((p) => stepBeats(p, 1)),
  ArrowDown: onClock((p) => stepBeats(p, -1)),
  PageUp: onClock((p) => stepBars(p, 1)),
  PageDown: onClock((p) => stepBars(p, -1)),
  m: toggleMetronome,
};

/** @param {HTMLElement} root */
function init(root) {
  const player = new Player(root, {
    canvases: [ui.canvas],
    onFrame: showFrame,
    extraKeys: SCORE_KEYS,
    onBody: (visible) => state.skeleton?.showBody(visible),
    onBones: (visible) => state.skeleton?.showBones(visible),
    onResize: () => state.staff?.render(),
  });
  state.player = player;
  player.aimAtOrigin("follow");
  ui.controls.hidden = true;
  ui.metronome?.addEventListener("click", toggleMetronome);
  showLegend();
  if ("ResizeObserver" in window) new ResizeObserver(() => state.staff?.render()).observe(ui.staff);
  window.addEventListener("pagehide", () => state.metronome.dispose());
  player.start();
  load(player).catch(fail);
}

try {
  if (root) init(root);
} catch (error) {
  fail(/** @type {Error} */ (error));
}
