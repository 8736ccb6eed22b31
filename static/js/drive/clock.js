// @ts-check
// A fixed-timestep clock (the "fix your timestep" accumulator): the display calls
// `advance(dt)` once per animation frame with the wall-clock seconds since the last one
// and runs as many fixed ticks as are due; `alpha` is how far the display is into the
// next tick (0-1), to interpolate by. A long pause (a hidden tab) is not caught up: at
// most `maxFrameS` of time is taken from one animation frame.
//
// Pure logic (no DOM): node's tests load it.

export class FixedClock {
  /**
   * @param {number} tickS seconds per tick (1/60 for the Drive page's 60 Hz frames)
   * @param {number} [maxFrameS] the most one animation frame may advance the clock
   */
  constructor(tickS, maxFrameS = 0.25) {
    if (!(tickS > 0)) throw new Error(`bad tick: ${tickS} s`);
    this.tickS = tickS;
    this.maxFrameS = maxFrameS;
    this.accumulator = 0;
    this.ticks = 0;
  }

  /**
   * Take `dt` seconds of wall-clock time; returns how many ticks are now due.
   * @param {number} dt
   */
  advance(dt) {
    this.accumulator += Math.min(Math.max(dt, 0), this.maxFrameS);
    const due = Math.floor(this.accumulator / this.tickS + 1e-9);
    this.accumulator = Math.max(0, this.accumulator - due * this.tickS);
    this.ticks += due;
    return due;
  }

  /** How far into the next tick the display is, 0 ≤ alpha < 1. */
  get alpha() {
    return Math.min(this.accumulator / this.tickS, 1 - 1e-9);
  }

  /** Back to tick 0. */
  reset() {
    this.accumulator = 0;
    this.ticks = 0;
  }
}
