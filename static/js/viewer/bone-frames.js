// @ts-check
// Each joint's world rotation from its joints' world positions: what a skinned body
// needs to follow a skeleton the players only have positions of (the viewer arrays, a
// full-rate window, the Drive page's foot-locked pose). Pure arithmetic on typed arrays
// (no three.js, nothing allocated per frame).
//
// A joint's rotation is the one that carries its bones from the rest pose (every local
// rotation the identity: the skin's bind pose) to where they are now:
// * two or more bones that are not in line (the hips: spine and both legs; the chest:
//   neck and both shoulders) fix it exactly, since bones of one joint move rigidly
//   together: the frame of its two most spread bones now times that frame at rest;
// * one bone (an elbow, a knee) fixes it up to a twist about the bone: the smallest
//   swing from where the parent's rotation would put the bone to where it is, after
//   the parent's rotation (a limb keeps its parent's twist: round limbs do not show it);
// * no bone (an end site, a joint on top of its child) takes its parent's.
// Bones that are translations (a carrier root's, bones.js in motioncore) are left out.
//
// Layout: positions flat [frames × joints × 3], metres; rest [joints × 3]; rotations out
// [joints × 4] as x, y, z, w (three.js order).

/** Bones shorter than this at rest (metres) do not orient their joint. */
const MIN_BONE_M = 1e-4;
/** Two bones whose directions at rest are closer to parallel than this (the sine of the
 * angle between them) do not fix a frame. */
const MIN_SPREAD = Math.sin((10 * Math.PI) / 180);

export class BoneFrames {
  /**
   * @param {ArrayLike<number>} parents [joints] parent index, -1 for roots; parents first
   * @param {ArrayLike<number>} rest [joints × 3] rest-pose world positions, metres
   * @param {ReadonlySet<number>} [hidden] joints whose bone from their parent is a
   *   translation, not a bone
   */
  constructor(parents, rest, hidden = new Set()) {
    this.parents = Int32Array.from(parents);
    this.joints = this.parents.length;
    this.rest = Float64Array.from(rest);
    /** Per joint, how its rotation is found: 2 (a pair of bones), 1 (one bone), 0. */
    this.kind = new Uint8Array(this.joints);
    /** Per joint, its first and second bone's child joint (-1: none). */
    this.first = new Int32Array(this.joints).fill(-1);
    this.second = new Int32Array(this.joints).fill(-1);
    /** Per joint with a pair, the rest frame's columns [joints × 9] (row-major 3 × 3). */
    this.restFrame = new Float64Array(this.joints * 9);
    this.scratch = new Float64Array(9);
    this.plan(hidden);
  }

  /** Choose each joint's bones (the two most spread, or the longest). */
  plan(/** @type {ReadonlySet<number>} */ hidden) {
    /** @type {number[][]} */
    const bones = Array.from({ length: this.joints }, () => []);
    for (let j = 0; j < this.joints; j += 1) {
      const p = this.parents[j];
      if (p >= 0 && !hidden.has(j) && this.restLength(p, j) > MIN_BONE_M) bones[p].push(j);
    }
    bones.forEach((children, j) => {
      let best = 0;
      for (let a = 0; a < children.length; a += 1) {
        for (let b = a + 1; b < children.length; b += 1) {
          const spread = this.restSpread(j, children[a], children[b]);
          if (spread > best) [best, this.first[j], this.second[j]] = [spread, children[a], children[b]];
        }
      }
      if (best > MIN_SPREAD) {
        this.kind[j] = 2;
        frameOf(this.rest, 3 * j, 3 * this.first[j], 3 * this.second[j], this.restFrame, 9 * j);
      } else if (children.length) {
        this.kind[j] = 1;
        this.first[j] = children.reduce((x, y) => (this.restLength(j, y) > this.restLength(j, x) ? y : x));
      }
    });
  }

  /**
   * How much larger than at rest the skeleton is at the frame whose positions start at
   * `p[base]`: its orienting bones' summed length over theirs at rest (1 for a rigid
   * skeleton; the Drive page sizes the canonical character to a rig's legs).
   * @param {ArrayLike<number>} p
   * @param {number} base
   */
  scaleOf(p, base) {
    let now = 0, rest = 0;
    for (let j = 0; j < this.joints; j += 1) {
      const c = this.first[j];
      if (c < 0) continue;
      const a = base + 3 * j, b = base + 3 * c;
      now += Math.hypot(p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]);
      rest += this.restLength(j, c);
    }
    return rest > 0 && now > 0 ? now / rest : 1;
  }

  /** @param {number} a @param {number} b */
  restLength(a, b) {
    const r = this.rest;
    return Math.hypot(r[3 * b] - r[3 * a], r[3 * b + 1] - r[3 * a + 1], r[3 * b + 2] - r[3 * a + 2]);
  }

  /** The sine of the angle between joint j's bones to a and b at rest. */
  restSpread(/** @type {number} */ j, /** @type {number} */ a, /** @type {number} */ b) {
    const r = this.rest;
    const u = [0, 1, 2].map((k) => r[3 * a + k] - r[3 * j + k]);
    const v = [0, 1, 2].map((k) => r[3 * b + k] - r[3 * j + k]);
    const cross = Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    return cross / (Math.hypot(...u) * Math.hypot(...v));
  }

  /**
   * Every joint's world rotation at the frame whose positions start at `p[base]`.
   * @param {ArrayLike<number>} p flat [frames × joints × 3], metres
   * @param {number} base
   * @param {Float32Array | Float64Array} out [joints × 4] x, y, z, w
   */
  solve(p, base, out) {
    const m = this.scratch;
    for (let j = 0; j < this.joints; j += 1) {
      const parent = this.parents[j];
      const q = 4 * j;
      if (parent >= 0) out.set(out.subarray(4 * parent, 4 * parent + 4), q);
      else setIdentity(out, q);
      const kind = this.kind[j];
      if (kind === 2) {
        const made = frameOf(p, base + 3 * j, base + 3 * this.first[j], base + 3 * this.second[j], m, 0);
        if (made) multiplyTransposed(m, this.restFrame, 9 * j, m), quaternionOf(m, out, q);
      } else if (kind === 1) {
        swing(this.rest, p, base, j, this.first[j], out, q);
      }
    }
    return out;
  }
}

/**
 * The orthonormal frame [e1 e2 e3] (columns, row-major into `out` at `o`) of the bones
 * from the point at `v[j]` to those at `v[a]` and `v[b]`: e1 along the first, e2 the
 * second's part across it. False (out untouched) when they are in line or zero.
 * @param {ArrayLike<number>} v
 * @param {number} j @param {number} a @param {number} b offsets of the three points
 * @param {Float64Array} out
 * @param {number} o
 */
function frameOf(v, j, a, b, out, o) {
  let x1 = v[a] - v[j], y1 = v[a + 1] - v[j + 1], z1 = v[a + 2] - v[j + 2];
  const n1 = Math.hypot(x1, y1, z1);
  if (n1 < 1e-12) return false;
  x1 /= n1, y1 /= n1, z1 /= n1;
  let x2 = v[b] - v[j], y2 = v[b + 1] - v[j + 1], z2 = v[b + 2] - v[j + 2];
  const along = x2 * x1 + y2 * y1 + z2 * z1;
  x2 -= along * x1, y2 -= along * y1, z2 -= along * z1;
  const n2 = Math.hypot(x2, y2, z2);
  if (n2 < 1e-12) return false;
  x2 /= n2, y2 /= n2, z2 /= n2;
  const x3 = y1 * z2 - z1 * y2, y3 = z1 * x2 - x1 * z2, z3 = x1 * y2 - y1 * x2;
  out[o] = x1, out[o + 1] = x2, out[o + 2] = x3;
  out[o + 3] = y1, out[o + 4] = y2, out[o + 5] = y3;
  out[o + 6] = z1, out[o + 7] = z2, out[o + 8] = z3;
  return true;
}

/** out = a · bᵀ (3 × 3 row-major; b at offset `o`; out may be a). */
function multiplyTransposed(
  /** @type {Float64Array} */ a, /** @type {Float64Array} */ b, /** @type {number} */ o, /** @type {Float64Array} */ out,
) {
  const r = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 3; i += 1) {
    for (let k = 0; k < 3; k += 1) {
      r[3 * i + k] = a[3 * i] * b[o + 3 * k] + a[3 * i + 1] * b[o + 3 * k + 1] + a[3 * i + 2] * b[o + 3 * k + 2];
    }
  }
  out.set(r);
}

/** The unit quaternion (x, y, z, w) of the rotation matrix m (row-major) into out[q]. */
function quaternionOf(/** @type {Float64Array} */ m, /** @type {Float32Array | Float64Array} */ out, /** @type {number} */ q) {
  const [m11, m12, m13, m21, m22, m23, m31, m32, m33] = m;
  const trace = m11 + m22 + m33;
  let x, y, z, w;
  if (trace > 0) {
    const s = 0.5 / Math.sqrt(trace + 1);
    w = 0.25 / s, x = (m32 - m23) * s, y = (m13 - m31) * s, z = (m21 - m12) * s;
  } else if (m11 > m22 && m11 > m33) {
    const s = 2 * Math.sqrt(1 + m11 - m22 - m33);
    w = (m32 - m23) / s, x = 0.25 * s, y = (m12 + m21) / s, z = (m13 + m31) / s;
  } else if (m22 > m33) {
    const s = 2 * Math.sqrt(1 + m22 - m11 - m33);
    w = (m13 - m31) / s, x = (m12 + m21) / s, y = 0.25 * s, z = (m23 + m32) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m33 - m11 - m22);
    w = (m21 - m12) / s, x = (m13 + m31) / s, y = (m23 + m32) / s, z = 0.25 * s;
  }
  out[q] = x, out[q + 1] = y, out[q + 2] = z, out[q + 3] = w;
}

/**
 * out[q] (holding the parent's rotation) becomes the smallest swing that takes joint
 * j's bone to child c from where the parent's rotation puts it to where it is, times
 * the parent's rotation.
 * @param {Float64Array} rest @param {ArrayLike<number>} p @param {number} base
 * @param {number} j @param {number} c
 * @param {Float32Array | Float64Array} out @param {number} q
 */
function swing(rest, p, base, j, c, out, q) {
  const qx = out[q], qy = out[q + 1], qz = out[q + 2], qw = out[q + 3];
  // the rest bone turned by the parent's rotation: v + 2w(u×v) + 2u×(u×v)
  const vx = rest[3 * c] - rest[3 * j], vy = rest[3 * c + 1] - rest[3 * j + 1], vz = rest[3 * c + 2] - rest[3 * j + 2];
  const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
  let ax = vx + qw * tx + (qy * tz - qz * ty);
  let ay = vy + qw * ty + (qz * tx - qx * tz);
  let az = vz + qw * tz + (qx * ty - qy * tx);
  let bx = p[base + 3 * c] - p[base + 3 * j], by = p[base + 3 * c + 1] - p[base + 3 * j + 1];
  let bz = p[base + 3 * c + 2] - p[base + 3 * j + 2];
  const na = Math.hypot(ax, ay, az), nb = Math.hypot(bx, by, bz);
  if (na < 1e-12 || nb < 1e-12) return;
  ax /= na, ay /= na, az /= na, bx /= nb, by /= nb, bz /= nb;
  // the shortest arc from a to b (half-way quaternion), as three.js' setFromUnitVectors
  let w = ax * bx + ay * by + az * bz + 1;
  let x, y, z;
  if (w < 1e-9) { // opposite: half a turn about any axis across a
    w = 0;
    [x, y, z] = Math.abs(ax) > Math.abs(az) ? [-ay, ax, 0] : [0, -az, ay];
  } else {
    x = ay * bz - az * by, y = az * bx - ax * bz, z = ax * by - ay * bx;
  }
  const n = Math.hypot(x, y, z, w);
  x /= n, y /= n, z /= n, w /= n;
  // swing × parent
  out[q] = w * qx + x * qw + y * qz - z * qy;
  out[q + 1] = w * qy - x * qz + y * qw + z * qx;
  out[q + 2] = w * qz + x * qy - y * qx + z * qw;
  out[q + 3] = w * qw - x * qx - y * qy - z * qz;
}

function setIdentity(/** @type {Float32Array | Float64Array} */ out, /** @type {number} */ q) {
  out[q] = 0, out[q + 1] = 0, out[q + 2] = 0, out[q + 3] = 1;
}

/**
 * The joints whose bone from their parent is a translation, not a bone (motioncore's
 * character.bones.translated_bones, the same rule on the player's arrays): it changes
 * length by more than 1 cm over the frames held, or hangs from a root that stays
 * within 1 cm of one place and turns less than 1° while the joint moves more.
 * @param {{positions: ArrayLike<number>, parents: ArrayLike<number>, frames: number,
 *   joints: number, rotations_xyzw?: ArrayLike<number>}} arrays
 * @returns {Set<number>}
 */
export function translatedBones({ positions, parents, frames, joints, rotations_xyzw: rotations }) {
  const STRETCH_M = 0.01;
  const TURN_COS = Math.cos((0.5 * Math.PI) / 180); // |q·q0| of a 1° turn
  const at = (/** @type {number} */ f, /** @type {number} */ j, /** @type {number} */ k) => positions[(f * joints + j) * 3 + k];
  const travel = (/** @type {number} */ j) => Math.max(...[0, 1, 2].map((k) => {
    let low = Infinity, high = -Infinity;
    for (let f = 0; f < frames; f += 1) low = Math.min(low, at(f, j, k)), high = Math.max(high, at(f, j, k));
    return high - low;
  }));
  const turns = (/** @type {number} */ j) => {
    if (!rotations) return true;
    for (let f = 1; f < frames; f += 1) {
      let dot = 0;
      for (let k = 0; k < 4; k += 1) dot += rotations[(f * joints + j) * 4 + k] * rotations[j * 4 + k];
      if (Math.abs(dot) < TURN_COS) return true;
    }
    return false;
  };
  const found = new Set();
  for (let j = 0; j < joints; j += 1) {
    const p = parents[j];
    if (p < 0) continue;
    let low = Infinity, high = -Infinity;
    for (let f = 0; f < frames; f += 1) {
      const d = Math.hypot(at(f, j, 0) - at(f, p, 0), at(f, j, 1) - at(f, p, 1), at(f, j, 2) - at(f, p, 2));
      low = Math.min(low, d), high = Math.max(high, d);
    }
    const carried = parents[p] < 0 && travel(p) <= STRETCH_M && !turns(p) && travel(j) > STRETCH_M;
    if (high - low > STRETCH_M || carried) found.add(j);
  }
  return found;
}
