// @ts-check
// The score page's metronome: when a tick is due (pure, tested with node in
// tests/js/score-metronome.test.mjs) and a short Web Audio click, accented on the first
// beat of a bar. The audio context is made on the first enable (a click, so browsers
// let it sound); without Web Audio the metronome still flashes but stays silent.

/**
 * The whole beat to tick for, or null: the clock moved from `previous` to `beat`
 * (beats) while playing. A tick is due when a whole beat was reached or crossed, or when
 * the clock looped back (the score's first beat again); `previous` null means playing
 * has just started, which ticks only when it starts on a whole beat (within `near`).
 * The score's end (`beats`) is not a beat of its own.
 * @param {number | null} previous
 * @param {number} beat
 * @param {number} [beats]
 * @param {number} [near]
 * @returns {number | null}
 */
export function tickDue(previous, beat, beats = Infinity, near = 0.02) {
  if (!(beat >= 0)) return null;
  const whole = Math.floor(beat + 1e-9);
  let due = null;
  if (previous == null) {
    const nearest = Math.round(beat);
    due = Math.abs(beat - nearest) <= near ? nearest : null;
  } else if (beat < previous - 1e-9) {
    due = whole; // looped
  } else if (whole > Math.floor(previous + 1e-9)) {
    due = whole;
  }
  return due != null && due < beats - 1e-9 ? due : null;
}

/**
 * Whether whole beat `index` (0-based) starts a bar of `meter` beats.
 * @param {number} index
 * @param {number} meter
 */
export function isAccent(index, meter) {
  return index % meter === 0;
}

/** @type {{AudioContext?: typeof AudioContext, webkitAudioContext?: typeof AudioContext}} */
const audioGlobals = globalThis;

export class Metronome {
  /** @param {{audio?: typeof AudioContext | null}} [options] the Web Audio constructor */
  constructor({ audio = audioGlobals.AudioContext ?? audioGlobals.webkitAudioContext ?? null } = {}) {
    this.Audio = audio;
    /** @type {AudioContext | null} made on the first enable */
    this.context = null;
    this.enabled = false;
    this.silent = !audio;
  }

  /**
   * Turn the clicks on (makes or resumes the audio context) or off.
   * @param {boolean} enabled
   */
  setEnabled(enabled) {
    this.enabled = Boolean(enabled);
    const Audio = this.Audio;
    if (!this.enabled || this.silent || !Audio) {
      this.context?.suspend?.().catch(() => {});
      return;
    }
    try {
      this.context ??= new Audio();
      this.context.resume?.().catch(() => {});
    } catch {
      this.silent = true; // no audio device (headless): flash only
    }
  }

  /**
   * One click now: 1.6 kHz for an accent, 1 kHz otherwise, 40 ms long.
   * @param {boolean} accent
   */
  tick(accent) {
    if (!this.enabled || this.silent || !this.context) return;
    try {
      const c = this.context;
      const start = c.currentTime + 0.005;
      const oscillator = c.createOscillator();
      const gain = c.createGain();
      oscillator.type = "square";
      oscillator.frequency.value = accent ? 1600 : 1000;
      gain.gain.setValueAtTime(accent ? 0.25 : 0.15, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + 0.04);
      oscillator.connect(gain).connect(c.destination);
      oscillator.start(start);
      oscillator.stop(start + 0.05);
    } catch {
      this.silent = true;
    }
  }

  dispose() {
    this.context?.close?.().catch(() => {});
    this.context = null;
  }
}
