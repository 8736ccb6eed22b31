// @ts-check
// The Drive page's live measures, computed here from what is shown (60 Hz frames of the
// posed character), with thresholds of their own: they share nothing with the runtime
// they grade (its contact head, its gate) nor with motioncore.measures.
//
// * ReactionMeter: 60 Hz frames from a change of the input until the root's ground
//   velocity has moved REACTED_MPS towards the newly asked one (the component of its
//   change along the asked change). A change that asks for less than that is not timed;
//   one not reached within GIVE_UP_FRAMES counts as not reached.
// * FootSkate: a foot is planted while its lowest sole point (heel, toe or tip) is within
//   PLANTED_HEIGHT_M of the floor (height 0) and slower than PLANTED_SPEED_MPS on the
//   ground; a step is a run of at least MIN_PLANTED_FRAMES planted frames, and its skate
//   is how far the point slid on the ground during it (the sum of its moves).
//
// Pure logic, no DOM: node's tests load it.

export const REACTED_MPS = 0.05;
export const GIVE_UP_FRAMES = 60;
export const PLANTED_HEIGHT_M = 0.04;
export const PLANTED_SPEED_MPS = 0.6;
export const MIN_PLANTED_FRAMES = 3;
/** Steps the median is over. */
export const STEPS_KEPT = 20;

export class ReactionMeter {
  constructor() {
    /** @type {{frame: number, vx: number, vz: number, ux: number, uz: number} | null} */
    this.pending = null;
    /** Frames of the last timed reaction; null before any, Infinity when not reached. */
    this.last = /** @type {number | null} */ (null);
  }

  /**
   * The input changed at `frame` to ask for the world velocity (wx, wz) while the root
   * moved at (vx, vz), m/s.
   * @param {number} frame
   * @param {number} wx
   * @param {number} wz
   * @param {number} vx
   * @param {number} vz
   */
  change(frame, wx, wz, vx, vz) {
    const dx = wx - vx, dz = wz - vz;
    const size = Math.hypot(dx, dz);
    this.pending = size < REACTED_MPS ? null : { frame, vx, vz, ux: dx / size, uz: dz / size };
  }

  /**
   * The root moves at (vx, vz) m/s at `frame`.
   * @param {number} frame
   * @param {number} vx
   * @param {number} vz
   */
  sample(frame, vx, vz) {
    const p = this.pending;
    if (!p) return;
    const moved = (vx - p.vx) * p.ux + (vz - p.vz) * p.uz;
    if (moved >= REACTED_MPS) {
      this.last = frame - p.frame;
      this.pending = null;
    } else if (frame - p.frame > GIVE_UP_FRAMES) {
      this.last = Infinity;
      this.pending = null;
    }
  }
}

/** One foot's steps. */
class Foot {
  constructor() {
    this.x = NaN;
    this.z = NaN;
    this.planted = 0;
    this.slid = 0;
  }
}

export class FootSkate {
  /** @param {number} fps frames per second of the samples */
  constructor(fps) {
    this.fps = fps;
    /** @type {Record<string, Foot>} */
    this.feet = {};
    /** Skate of each finished step, metres (the last STEPS_KEPT). @type {number[]} */
    this.steps = [];
  }

  /**
   * `side`'s foot's lowest point is at (x, y, z), metres, this frame.
   * @param {string} side
   * @param {number} x
   * @param {number} y
   * @param {number} z
   */
  sample(side, x, y, z) {
    const foot = (this.feet[side] ??= new Foot());
    const move = Number.isNaN(foot.x) ? Infinity : Math.hypot(x - foot.x, z - foot.z);
    foot.x = x;
    foot.z = z;
    const planted = y < PLANTED_HEIGHT_M && move * this.fps < PLANTED_SPEED_MPS;
    if (planted) {
      if (foot.planted > 0) foot.slid += move;
      foot.planted += 1;
      return;
    }
    this.lift(foot);
  }

  /** @param {Foot} foot */
  lift(foot) {
    if (foot.planted >= MIN_PLANTED_FRAMES) {
      this.steps.push(foot.slid);
      if (this.steps.length > STEPS_KEPT) this.steps.shift();
    }
    foot.planted = 0;
    foot.slid = 0;
  }

  /** The last finished step's skate, metres (null before any). */
  get last() {
    return this.steps.length ? this.steps[this.steps.length - 1] : null;
  }

  /** The median skate of the steps kept, metres (null before any). */
  get median() {
    if (!this.steps.length) return null;
    const sorted = [...this.steps].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  }

  /** Forget everything (the character restarted). */
  reset() {
    this.feet = {};
    this.steps = [];
  }
}
