// @ts-check
// The live foot lock in the browser: motioncore/motornerve/foot_lock.py's port, step by
// step, so that the page's feet are where the server's replay puts them. Each 60 Hz
// frame, `step` reads the network's pose (world positions and rotations of the canonical
// skeleton) and the contact head's probabilities, and says where each ankle goes (a held
// foot turning about its pivot, the lowest sole point, which stays where it landed) and
// how far the hips come down; `applyLock` moves a pose's joints there (everything
// lowered, each leg solved by two-bone IK with the knee in its plane, the foot carried
// along without turning), in positions only: what the viewer draws.
//
// The constants and the legs come from the server (foot_lock.browser_config); nothing
// here has a default of its own. Quaternions are (w, x, y, z) as in motioncore.

/**
 * @typedef {object} LegConfig
 * @property {number} hip
 * @property {number} knee
 * @property {number} ankle
 * @property {number[]} sole the joints below the ankle (ball, tip)
 * @property {number[]} heel_local the heel in the ankle's frame, metres
 *
 * @typedef {object} FootLockConfig foot_lock.browser_config()
 * @property {number} LOCK_ON
 * @property {number} LOCK_OFF
 * @property {number} RELEASE_S
 * @property {number} RELEASE_MPS
 * @property {number} STEP_LIFT_SHARE
 * @property {number} REACH_SHARE
 * @property {number} PIVOT_SWITCH_M
 * @property {number} UNLOCK_M
 * @property {number} TOUCH_M
 * @property {number} POLE_M
 * @property {number} MAX_DROP_M
 * @property {number} DROP_RECOVER_MPS
 * @property {LegConfig[]} legs left, right
 *
 * @typedef {{length: number, [i: number]: number}} Numbers
 *
 * @typedef {object} LockTargets one frame's result
 * @property {Float64Array} ankles [2 × 3] where each ankle goes, metres
 * @property {number} drop how far the hips come down, metres
 * @property {boolean[]} held [2] whether each ankle is where its lock holds it
 */

const EPS = 1e-9;
/** quat._OPPOSITE_EPS */
const OPPOSITE_EPS = 1e-24;
/** solveLeg's scratch (it runs for both legs on every frame): the pole's turn, knee and toe. */
const TURN = new Float64Array(4), KNEE = new Float64Array(3), TOE = new Float64Array(3);

/** One foot's lock (foot_lock.FootState). */
class FootState {
  constructor() {
    this.held = false;
    /** Which sole point (solePoints' order: heel, then the sole joints) is the pivot. */
    this.pivot = 0;
    /** Where the pivot is held, metres. */
    this.anchor = new Float64Array(3);
    this.hasOffset = false;
    this.offset = new Float64Array(3);
    this.fade = 0;
    /** How much of `fade` goes each frame (foot_lock.release_step). */
    this.fadeStep = 1;
    /** How high the released foot's step rises at its middle, metres. */
    this.lift = 0;
    /** How far the held foot is under the network's, metres: the hips' drop when it was held, less DROP_RECOVER_MPS a second since. */
    this.landedDrop = 0;
  }
}

/**
 * smoothstep: the share of a release's correction left at `fade` (1 → 0).
 * @param {number} fade
 */
function ease(fade) {
  return fade * fade * (3 - 2 * fade);
}

/**
 * The world rotation (w, x, y, z) at `q[4j…]` applied to `v`, into `out`.
 * @param {ArrayLike<number>} q
 * @param {number} j
 * @param {ArrayLike<number>} v
 * @param {Float64Array} out
 */
function rotate(q, j, v, out) {
  const w = q[4 * j], x = q[4 * j + 1], y = q[4 * j + 2], z = q[4 * j + 3];
  // v + 2w (u × v) + 2 u × (u × v), u = (x, y, z)
  const cx = y * v[2] - z * v[1], cy = z * v[0] - x * v[2], cz = x * v[1] - y * v[0];
  out[0] = v[0] + 2 * (w * cx + y * cz - z * cy);
  out[1] = v[1] + 2 * (w * cy + z * cx - x * cz);
  out[2] = v[2] + 2 * (w * cz + x * cy - y * cx);
  return out;
}

export class FootLock {
  /**
   * @param {FootLockConfig} config
   * @param {number} fps frames per second of the poses `step` is given
   * @param {number} [floor] the floor's height, metres
   */
  constructor(config, fps, floor = 0) {
    this.config = config;
    this.fps = fps;
    this.floor = floor;
    this.feet = [new FootState(), new FootState()];
    /** @type {number[] | null} each leg's reach, from the first frame */
    this.reach = null;
    this.drop = 0;
    this.lowered = new Float64Array(0);
    this.scratch = new Float64Array(3);
    this.point = new Float64Array(3);
    this.target = new Float64Array(3);
    this.sole = new Float64Array(0);
    /** @type {LockTargets} */
    this.out = { ankles: new Float64Array(6), drop: 0, held: [false, false] };
  }

  /** Back to the start: no foot held, the hips where the network puts them. */
  reset() {
    this.feet = [new FootState(), new FootState()];
    this.reach = null;
    this.drop = 0;
  }

  /**
   * Advance one frame (foot_lock.targets' loop body).
   * @param {ArrayLike<number>} positions [J × 3] the network's world positions, metres
   * @param {ArrayLike<number>} rotations [J × 4] world rotations (w, x, y, z)
   * @param {ArrayLike<number>} probabilities [2] the contact head's, left and right
   * @returns {LockTargets} (reused: copy what you keep)
   */
  step(positions, rotations, probabilities) {
    const { config } = this;
    if (this.reach === null) this.reach = config.legs.map((leg) => config.REACH_SHARE * legLength(positions, leg));
    const reach = this.reach;
    let needed = 0;
    config.legs.forEach((leg, side) => {
      const foot = this.feet[side];
      if (foot.held) needed = Math.max(needed, this.dropToReach(foot, positions, rotations, leg, reach[side]));
    });
    this.drop = Math.min(Math.max(needed, this.drop - config.DROP_RECOVER_MPS / this.fps), config.MAX_DROP_M);
    for (const foot of this.feet) foot.landedDrop = Math.max(foot.landedDrop - config.DROP_RECOVER_MPS / this.fps, 0);
    if (this.lowered.length !== positions.length) this.lowered = new Float64Array(positions.length);
    const lowered = this.lowered;
    for (let i = 0; i < positions.length; i += 1) lowered[i] = positions[i] - (i % 3 === 1 ? this.drop : 0);
    config.legs.forEach((leg, side) => {
      const foot = this.feet[side];
      this.out.held[side] = this.footTarget(foot, lowered, rotations, leg, probabilities[side], reach[side], this.out.ankles, 3 * side);
      if (!foot.held && foot.hasOffset) {
        foot.fade = Math.max(foot.fade - foot.fadeStep, 0);
        if (foot.fade === 0) foot.hasOffset = false;
      }
    });
    this.out.drop = this.drop;
    return this.out;
  }

  /**
   * foot_lock.sole_points: the heel then the sole joints of `leg`'s foot, into
   * `this.sole` ([n × 3]).
   * @param {ArrayLike<number>} positions
   * @param {ArrayLike<number>} rotations
   * @param {LegConfig} leg
   */
  solePoints(positions, rotations, leg) {
    const n = 1 + leg.sole.length;
    if (this.sole.length !== 3 * n) this.sole = new Float64Array(3 * n);
    const a = 3 * leg.ankle;
    const heel = rotate(rotations, leg.ankle, leg.heel_local, this.scratch);
    for (let k = 0; k < 3; k += 1) this.sole[k] = positions[a + k] + heel[k];
    leg.sole.forEach((j, i) => {
      for (let k = 0; k < 3; k += 1) this.sole[3 * (i + 1) + k] = positions[3 * j + k];
    });
    return this.sole;
  }

  /**
   * foot_lock._foot_target: one foot's ankle target into `out[to…]`.
   * @param {FootState} foot
   * @param {Float64Array} positions the hips already lowered by `this.drop`
   * @param {ArrayLike<number>} rotations
   * @param {LegConfig} leg
   * @param {number} probability
   * @param {number} reach
   * @param {Float64Array} out
   * @param {number} to
   * @returns {boolean} whether the target is where the lock holds the foot
   */
  footTarget(foot, positions, rotations, leg, probability, reach, out, to) {
    const a = 3 * leg.ankle;
    const free = this.point;
    for (let k = 0; k < 3; k += 1) free[k] = positions[a + k];
    if (foot.hasOffset) {
      // foot_lock._returning: the way back is a step, across the ground while it is up
      const across = ease(Math.min(Math.max((foot.fade - 0.25) / 0.5, 0), 1));
      const arc = Math.sin(Math.PI * foot.fade);
      free[0] += across * foot.offset[0];
      free[1] += ease(foot.fade) * foot.offset[1] + foot.lift * arc * arc;
      free[2] += across * foot.offset[2];
    }
    const sole = this.solePoints(positions, rotations, leg);
    this.aboveFloor(free, positions[a + 1], sole);
    // foot_lock._foot_target's engage: planted, or landing (past LOCK_OFF with a sole point at the floor)
    const touching = sole[3 * lowestPoint(sole) + 1] + this.drop - this.floor < this.config.TOUCH_M;
    const engage = probability >= this.config.LOCK_ON || (probability >= this.config.LOCK_OFF && touching);
    if (!foot.held && engage && !foot.hasOffset) {
      foot.held = true;
      foot.hasOffset = false;
      foot.landedDrop = this.drop;
      foot.pivot = lowestPoint(sole);
      for (let k = 0; k < 3; k += 1) foot.anchor[k] = sole[3 * foot.pivot + k] + (free[k] - positions[a + k]);
    }
    if (!foot.held) {
      out.set(free, to);
      return false;
    }
    const lowest = lowestPoint(sole);
    if (sole[3 * lowest + 1] < sole[3 * foot.pivot + 1] - this.config.PIVOT_SWITCH_M) {
      for (let k = 0; k < 3; k += 1) foot.anchor[k] += sole[3 * lowest + k] - sole[3 * foot.pivot + k];
      foot.pivot = lowest;
    }
    const held = this.heldAnkle(foot, positions, sole, leg, reach, this.drop, this.point);
    for (let k = 0; k < 3; k += 1) foot.anchor[k] = held[k] + (sole[3 * foot.pivot + k] - positions[a + k]);
    const away = Math.hypot(held[0] - positions[a], held[2] - positions[a + 2]);
    if (probability < this.config.LOCK_OFF || away > this.config.UNLOCK_M) {
      foot.held = false;
      for (let k = 0; k < 3; k += 1) foot.offset[k] = held[k] - positions[a + k];
      foot.hasOffset = true;
      foot.fade = 1;
      // foot_lock.release_step: over RELEASE_S, or slower than RELEASE_MPS on average
      const seconds = Math.max(this.config.RELEASE_S, Math.hypot(foot.offset[0], foot.offset[1], foot.offset[2]) / this.config.RELEASE_MPS);
      foot.fadeStep = 1 / Math.max(seconds * this.fps, 1);
      foot.lift = this.config.STEP_LIFT_SHARE * Math.hypot(foot.offset[0], foot.offset[2]);
    }
    out.set(held, to);
    return true;
  }

  /**
   * foot_lock._held_ankle (`drop` 0 and no reach: _drop_to_reach's first half): where a
   * held foot's ankle goes, into `out`.
   * @param {FootState} foot
   * @param {ArrayLike<number>} positions
   * @param {Float64Array} sole the pose's sole points (solePoints)
   * @param {LegConfig} leg
   * @param {number | null} reach null: not pulled within reach
   * @param {number} drop
   * @param {Float64Array} out
   */
  heldAnkle(foot, positions, sole, leg, reach, drop, out) {
    const a = 3 * leg.ankle, h = 3 * leg.hip;
    const p = 3 * foot.pivot;
    for (let k = 0; k < 3; k += 1) out[k] = foot.anchor[k] - (sole[p + k] - positions[a + k]);
    out[1] = positions[a + 1] + drop - foot.landedDrop; // the network's height less what is left of the drop it was held at
    this.aboveFloor(out, positions[a + 1], sole);
    if (reach !== null) {
      const own = Math.hypot(positions[a] - positions[h], positions[a + 1] - positions[h + 1], positions[a + 2] - positions[h + 2]);
      within(out, positions, h, Math.max(reach, own));
    }
    return out;
  }

  /**
   * foot_lock._above_floor: `at` (an ankle position, in place) raised so that the foot
   * moved there rigidly from the pose (its ankle at height `ankleY`, its sole points
   * `sole`) has no sole point under the floor.
   * @param {Float64Array} at
   * @param {number} ankleY
   * @param {Float64Array} sole
   */
  aboveFloor(at, ankleY, sole) {
    let lowest = Infinity;
    for (let i = 1; i < sole.length; i += 3) lowest = Math.min(lowest, sole[i]);
    lowest += at[1] - ankleY;
    if (lowest < this.floor) at[1] += this.floor - lowest;
  }

  /**
   * foot_lock._drop_to_reach: how far the hips must come down (from the network's
   * `positions`) for the leg to reach where its held foot's ankle goes.
   * @param {FootState} foot
   * @param {ArrayLike<number>} positions
   * @param {ArrayLike<number>} rotations
   * @param {LegConfig} leg
   * @param {number} reach
   */
  dropToReach(foot, positions, rotations, leg, reach) {
    const a = 3 * leg.ankle, h = 3 * leg.hip;
    const sole = this.solePoints(positions, rotations, leg);
    const at = this.heldAnkle(foot, positions, sole, leg, null, 0, this.target);
    const radius = Math.max(reach, Math.hypot(positions[a] - positions[h], positions[a + 1] - positions[h + 1], positions[a + 2] - positions[h + 2]));
    const across = Math.hypot(at[0] - positions[h], at[2] - positions[h + 2]);
    const above = positions[h + 1] - at[1];
    if (across >= radius) return Math.max(above, 0);
    return Math.max(above - Math.sqrt(radius * radius - across * across), 0);
  }
}

/**
 * The index of the lowest of `points` ([n × 3]); the first on a tie (numpy's argmin).
 * @param {Float64Array} points
 */
function lowestPoint(points) {
  let best = 0;
  for (let i = 1; 3 * i < points.length; i += 1) if (points[3 * i + 1] < points[3 * best + 1]) best = i;
  return best;
}

/**
 * @param {ArrayLike<number>} positions
 * @param {LegConfig} leg
 */
function legLength(positions, leg) {
  /** @param {number} i @param {number} j */
  const d = (i, j) => Math.hypot(positions[3 * i] - positions[3 * j], positions[3 * i + 1] - positions[3 * j + 1], positions[3 * i + 2] - positions[3 * j + 2]);
  return d(leg.knee, leg.hip) + d(leg.ankle, leg.knee);
}

/**
 * foot_lock._within: `point` (in place) pulled towards positions[centre…] until at most
 * `radius` from it.
 * @param {Float64Array} point
 * @param {ArrayLike<number>} positions
 * @param {number} centre offset of the centre in `positions`
 * @param {number} radius
 */
function within(point, positions, centre, radius) {
  const x = point[0] - positions[centre], y = point[1] - positions[centre + 1], z = point[2] - positions[centre + 2];
  const size = Math.hypot(x, y, z);
  if (size <= radius) return;
  const k = radius / size;
  point[0] = positions[centre] + x * k;
  point[1] = positions[centre + 1] + y * k;
  point[2] = positions[centre + 2] + z * k;
}

/**
 * Move a pose's joints where `targets` says (foot_lock.lock in positions): every joint
 * lowered by the drop, then per leg the knee and ankle solved (ik.two_bone with the pole
 * foot_lock.poles gives) and the joints below the ankle carried by the ankle's move.
 * @param {Numbers} positions [J × 3] world positions, metres, in place
 * @param {FootLockConfig} config
 * @param {LockTargets} targets
 */
export function applyLock(positions, config, targets) {
  for (let i = 1; i < positions.length; i += 3) positions[i] -= targets.drop;
  config.legs.forEach((leg, side) => solveLeg(positions, leg, targets.ankles, 3 * side, config.POLE_M));
}

/**
 * @param {Numbers} p
 * @param {LegConfig} leg
 * @param {ArrayLike<number>} target
 * @param {number} t offset of the target
 * @param {number} poleM
 */
function solveLeg(p, leg, target, t, poleM) {
  const ia = 3 * leg.hip, ib = 3 * leg.knee, ic = 3 * leg.ankle, is = 3 * leg.sole[0];
  const a = [p[ia], p[ia + 1], p[ia + 2]], b = [p[ib], p[ib + 1], p[ib + 2]], c = [p[ic], p[ic + 1], p[ic + 2]];
  const l1 = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
  const l2 = Math.hypot(c[0] - b[0], c[1] - b[1], c[2] - b[2]);
  // the pole (foot_lock.poles): the leg turned about the hip onto the hip-target line,
  // its knee then moved poleM along its foot's ground direction
  const turn = between([c[0] - a[0], c[1] - a[1], c[2] - a[2]], [target[t] - a[0], target[t + 1] - a[1], target[t + 2] - a[2]], TURN);
  const knee = rotate(turn, 0, [b[0] - a[0], b[1] - a[1], b[2] - a[2]], KNEE);
  const toe = rotate(turn, 0, [p[is] - c[0], p[is + 1] - c[1], p[is + 2] - c[2]], TOE);
  const ts = Math.max(Math.hypot(toe[0], 0, toe[2]), EPS);
  const pole = [a[0] + knee[0] + (poleM * toe[0]) / ts, a[1] + knee[1], a[2] + knee[2] + (poleM * toe[2]) / ts];
  const reachV = [target[t] - a[0], target[t + 1] - a[1], target[t + 2] - a[2]];
  const u = unit(reachV, [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
  const d = Math.min(Math.max(Math.hypot(reachV[0], reachV[1], reachV[2]), Math.abs(l1 - l2)), l1 + l2);
  const v = perpendicular([pole[0] - a[0], pole[1] - a[1], pole[2] - a[2]], u, [b[0] - a[0], b[1] - a[1], b[2] - a[2]]);
  const cosA = Math.min(Math.max((l1 * l1 + d * d - l2 * l2) / Math.max(2 * l1 * d, EPS), -1), 1);
  const sinA = Math.sqrt(1 - cosA * cosA);
  for (let k = 0; k < 3; k += 1) {
    const knee = a[k] + l1 * (cosA * u[k] + sinA * v[k]);
    const ankle = a[k] + d * u[k];
    p[ib + k] = knee;
    p[ic + k] = ankle;
    for (const j of leg.sole) p[3 * j + k] += ankle - c[k];
  }
}

/**
 * quat.between: the shortest-arc rotation (w, x, y, z) turning direction `u` onto `v`
 * (by pi about an axis normal to `u` when they are opposite).
 * @param {number[]} u
 * @param {number[]} v
 * @param {Float64Array} out [4]
 * @returns {Float64Array} out
 */
function between(u, v, out) {
  const nu = Math.max(Math.hypot(u[0], u[1], u[2]), 1e-12), nv = Math.max(Math.hypot(v[0], v[1], v[2]), 1e-12);
  const x = [u[0] / nu, u[1] / nu, u[2] / nu];
  const s = [x[0] + v[0] / nv, x[1] + v[1] / nv, x[2] + v[2] / nv];
  let w = 0.5 * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  let axis = [x[1] * s[2] - x[2] * s[1], x[2] * s[0] - x[0] * s[2], x[0] * s[1] - x[1] * s[0]];
  if (w < OPPOSITE_EPS) {
    const helper = Math.abs(x[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    axis = [x[1] * helper[2] - x[2] * helper[1], x[2] * helper[0] - x[0] * helper[2], x[0] * helper[1] - x[1] * helper[0]];
    w = 0;
  }
  const n = Math.hypot(w, axis[0], axis[1], axis[2]);
  out[0] = w / n;
  for (let k = 0; k < 3; k += 1) out[k + 1] = axis[k] / n;
  return out;
}

/**
 * ik._unit: `v` normalised, else `fallback` normalised, else +X.
 * @param {number[]} v
 * @param {number[]} fallback
 * @returns {number[]}
 */
function unit(v, fallback) {
  const n = Math.hypot(v[0], v[1], v[2]);
  if (n > EPS) return [v[0] / n, v[1] / n, v[2] / n];
  const m = Math.hypot(fallback[0], fallback[1], fallback[2]);
  return m > EPS ? [fallback[0] / m, fallback[1] / m, fallback[2] / m] : [1, 0, 0];
}

/**
 * ik._perpendicular: the unit part of `v` normal to the unit `axis` (else of `fallback`).
 * @param {number[]} v
 * @param {number[]} axis
 * @param {number[]} fallback
 */
function perpendicular(v, axis, fallback) {
  /** @param {number[]} w */
  const part = (w) => {
    const s = w[0] * axis[0] + w[1] * axis[1] + w[2] * axis[2];
    return [w[0] - s * axis[0], w[1] - s * axis[1], w[2] - s * axis[2]];
  };
  const p = part(v), q = part(fallback);
  const scale = Math.max(Math.hypot(v[0], v[1], v[2]), EPS);
  const ok = Math.hypot(p[0], p[1], p[2]) > 1e-6 * scale;
  const helper = Math.abs(axis[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const anyPerp = [axis[1] * helper[2] - axis[2] * helper[1], axis[2] * helper[0] - axis[0] * helper[2], axis[0] * helper[1] - axis[1] * helper[0]];
  return unit(ok ? p : q, anyPerp);
}
