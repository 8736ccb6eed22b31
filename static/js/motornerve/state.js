// @ts-check
// The MotorNerve state in the browser (motioncore/motornerve/state.py): the joints'
// rotations as 6-D (the first two columns of each rotation matrix), the root's ground
// velocity and turn rate, the hips' height. The maths here repeats motioncore's step
// by step (quat.py's from_matrix, to_matrix, slerp, normalize; state.py's
// orthonormal_6d, from_6d, to_6d) so that the controller's blends agree with numpy's to
// rounding. Quaternions inside are (w, x, y, z) as in motioncore; toQuaternions gives
// three.js's (x, y, z, w).
//
// Every function writes into an `out` array (and offset) it is given: nothing allocates
// except where an `out` is left out.

/**
 * @typedef {object} StateLayout runtime.state of the manifest (state.py)
 * @property {number} SIZE
 * @property {number} ROTATION_SIZE
 * @property {number[]} ROTATIONS [start, stop]
 * @property {number[]} VELOCITY [start, stop]
 * @property {number} TURN
 * @property {number} HEIGHT
 * @property {number[]} JOINTS the canonical skeleton's index of each rotated joint
 * @property {string[]} JOINT_NAMES
 */
/** @typedef {{length: number, [i: number]: number}} Numbers a writable array of numbers */

/** Norms below this count as zero (state.orthonormal_6d's 1e-9). */
const TINY = 1e-9;
/** quat.slerp falls back to a normalised lerp when sin θ is below this. */
const NEAR = 1e-6;

const scratch = new Float64Array(24); // [0, 9) a matrix, [9, 17) two quaternions

/**
 * state.orthonormal_6d of one 6-D rotation: the first column made unit, the second made
 * orthogonal to it and unit (Gram–Schmidt).
 * @param {ArrayLike<number>} r
 * @param {number} at where the 6 numbers start in `r`
 * @param {Numbers} out
 * @param {number} [to] where to write them in `out`
 */
export function orthonormal6d(r, at, out, to = 0) {
  const r0 = r[at], r1 = r[at + 1], r2 = r[at + 2], r3 = r[at + 3], r4 = r[at + 4], r5 = r[at + 5];
  const na = Math.max(Math.sqrt(r0 * r0 + r1 * r1 + r2 * r2), TINY);
  const a0 = r0 / na, a1 = r1 / na, a2 = r2 / na;
  const dot = a0 * r3 + a1 * r4 + a2 * r5;
  const b0 = r3 - dot * a0, b1 = r4 - dot * a1, b2 = r5 - dot * a2;
  const nb = Math.max(Math.sqrt(b0 * b0 + b1 * b1 + b2 * b2), TINY);
  out[to] = a0;
  out[to + 1] = a1;
  out[to + 2] = a2;
  out[to + 3] = b0 / nb;
  out[to + 4] = b1 / nb;
  out[to + 5] = b2 / nb;
}

/**
 * quat.normalize in place of one quaternion (w, x, y, z) at `at`; zero becomes identity.
 * @param {Numbers} q
 * @param {number} [at]
 */
export function normalizeQuat(q, at = 0) {
  const w = q[at], x = q[at + 1], y = q[at + 2], z = q[at + 3];
  const norm = Math.sqrt(w * w + x * x + y * y + z * z);
  if (norm > 0) {
    q[at] = w / norm;
    q[at + 1] = x / norm;
    q[at + 2] = y / norm;
    q[at + 3] = z / norm;
  } else {
    q[at] = 1;
    q[at + 1] = 0;
    q[at + 2] = 0;
    q[at + 3] = 0;
  }
}

/**
 * quat.from_matrix of the matrix whose columns are `a`, `b` and `c` (numbers 0-2, 3-5 and
 * 6-8 of `m`): the branch of the largest of trace, m00, m11, m22 (the first on ties),
 * normalised, w ≥ 0.
 * @param {ArrayLike<number>} m
 * @param {Numbers} out
 * @param {number} to
 */
function quatOfColumns(m, out, to) {
  // m[i][j] is column j's component i
  const m00 = m[0], m10 = m[1], m20 = m[2], m01 = m[3], m11 = m[4], m21 = m[5], m02 = m[6], m12 = m[7], m22 = m[8];
  const trace = m00 + m11 + m22;
  let best = 0;
  let top = trace;
  if (m00 > top) { best = 1; top = m00; }
  if (m11 > top) { best = 2; top = m11; }
  if (m22 > top) best = 3;
  if (best === 0) {
    out[to] = 1.0 + trace; out[to + 1] = m21 - m12; out[to + 2] = m02 - m20; out[to + 3] = m10 - m01;
  } else if (best === 1) {
    out[to] = m21 - m12; out[to + 1] = 1.0 + m00 - m11 - m22; out[to + 2] = m01 + m10; out[to + 3] = m02 + m20;
  } else if (best === 2) {
    out[to] = m02 - m20; out[to + 1] = m01 + m10; out[to + 2] = 1.0 - m00 + m11 - m22; out[to + 3] = m12 + m21;
  } else {
    out[to] = m10 - m01; out[to + 1] = m02 + m20; out[to + 2] = m12 + m21; out[to + 3] = 1.0 - m00 - m11 + m22;
  }
  normalizeQuat(out, to);
  if (out[to] < 0) for (let i = 0; i < 4; i += 1) out[to + i] = -out[to + i];
}

/**
 * state.from_6d of one 6-D rotation: its unit quaternion (w, x, y, z), w ≥ 0.
 * @param {ArrayLike<number>} r
 * @param {number} at
 * @param {Numbers} out
 * @param {number} [to]
 */
export function quatFrom6d(r, at, out, to = 0) {
  const m = scratch;
  orthonormal6d(r, at, m, 0);
  const a0 = m[0], a1 = m[1], a2 = m[2], b0 = m[3], b1 = m[4], b2 = m[5];
  m[6] = a1 * b2 - a2 * b1; // the third column: a × b
  m[7] = a2 * b0 - a0 * b2;
  m[8] = a0 * b1 - a1 * b0;
  quatOfColumns(m, out, to);
  normalizeQuat(out, to);
}

/**
 * state.to_6d of one unit quaternion (w, x, y, z): the first two columns of its matrix.
 * @param {ArrayLike<number>} q
 * @param {number} at
 * @param {Numbers} out
 * @param {number} [to]
 */
export function sixdFromQuat(q, at, out, to = 0) {
  const w = q[at], x = q[at + 1], y = q[at + 2], z = q[at + 3];
  const xx = x * x, yy = y * y, zz = z * z;
  const xy = x * y, xz = x * z, yz = y * z;
  const wx = w * x, wy = w * y, wz = w * z;
  out[to] = 1.0 - 2.0 * (yy + zz);
  out[to + 1] = 2.0 * (xy + wz);
  out[to + 2] = 2.0 * (xz - wy);
  out[to + 3] = 2.0 * (xy - wz);
  out[to + 4] = 1.0 - 2.0 * (xx + zz);
  out[to + 5] = 2.0 * (yz + wx);
}

/**
 * quat.slerp of `a` to `b` (w, x, y, z) at `t`: the short arc, a normalised lerp when
 * they are nearly equal.
 * @param {ArrayLike<number>} a
 * @param {number} ia
 * @param {ArrayLike<number>} b
 * @param {number} ib
 * @param {number} t
 * @param {Numbers} out
 * @param {number} [to]
 */
export function slerp(a, ia, b, ib, t, out, to = 0) {
  const a0 = a[ia], a1 = a[ia + 1], a2 = a[ia + 2], a3 = a[ia + 3];
  let b0 = b[ib], b1 = b[ib + 1], b2 = b[ib + 2], b3 = b[ib + 3];
  let dot = a0 * b0 + a1 * b1 + a2 * b2 + a3 * b3;
  if (dot < 0) {
    b0 = -b0; b1 = -b1; b2 = -b2; b3 = -b3;
  }
  dot = Math.abs(dot);
  const theta = Math.acos(Math.min(Math.max(dot, -1.0), 1.0));
  const sinTheta = Math.sin(theta);
  const near = sinTheta < NEAR;
  const safe = near ? 1.0 : sinTheta;
  const wa = near ? 1.0 - t : Math.sin((1.0 - t) * theta) / safe;
  const wb = near ? t : Math.sin(t * theta) / safe;
  out[to] = wa * a0 + wb * b0;
  out[to + 1] = wa * a1 + wb * b1;
  out[to + 2] = wa * a2 + wb * b2;
  out[to + 3] = wa * a3 + wb * b3;
  normalizeQuat(out, to);
}

/**
 * runtime._slerp_state of two states: rotations slerped (through quaternions, as
 * motioncore does), the rest mixed linearly; `t` 0 gives `a`. `out` may be `a` or `b`.
 * @param {StateLayout} layout
 * @param {ArrayLike<number>} a
 * @param {ArrayLike<number>} b
 * @param {number} t
 * @param {Numbers} out
 */
export function slerpState(layout, a, b, t, out) {
  const q = scratch;
  const [start, stop] = layout.ROTATIONS;
  const size = layout.ROTATION_SIZE;
  for (let j = start; j < stop; j += size) {
    quatFrom6d(a, j, q, 9);
    quatFrom6d(b, j, q, 13);
    slerp(q, 9, q, 13, t, q, 9);
    sixdFromQuat(q, 9, out, j);
  }
  for (let i = 0; i < layout.SIZE; i += 1) {
    if (i < start || i >= stop) out[i] = (1.0 - t) * a[i] + t * b[i];
  }
}

/**
 * state.renormalised: the state's 6-D rotations made exact, in place (`out` may be `state`).
 * @param {StateLayout} layout
 * @param {ArrayLike<number>} state
 * @param {Numbers} out
 */
export function renormalise(layout, state, out) {
  const [start, stop] = layout.ROTATIONS;
  for (let i = 0; i < layout.SIZE; i += 1) if (i < start || i >= stop) out[i] = state[i];
  for (let j = start; j < stop; j += layout.ROTATION_SIZE) orthonormal6d(state, j, out, j);
}

/**
 * state.rotate_ground: ground vector (x, z) turned by `angle` about +Y, into `out[to..]`.
 * @param {number} x
 * @param {number} z
 * @param {number} angle radians
 * @param {Numbers} out
 * @param {number} [to]
 */
export function rotateGround(x, z, angle, out, to = 0) {
  const c = Math.cos(angle), s = Math.sin(angle);
  out[to] = c * x + s * z;
  out[to + 1] = -s * x + c * z;
}

/**
 * The joints' rotations of a state for three.js: (x, y, z, w) per joint, in the order of
 * `layout.JOINTS` (the canonical skeleton's rotated joints, the hips first). With
 * `facing` the hips' rotation is turned by it about +Y (state.to_clip: the hips are
 * stored relative to the heading frame); without, it stays in the heading frame. Signs
 * are as state.from_6d gives them (w ≥ 0), not unrolled over time.
 * @param {StateLayout} layout
 * @param {ArrayLike<number>} state
 * @param {number | null} [facing] radians about +Y (0 facing +Z)
 * @param {Float32Array} [out] [joints × 4]
 */
export function toQuaternions(layout, state, facing = null, out) {
  const joints = layout.JOINTS.length;
  const result = out ?? new Float32Array(4 * joints);
  const q = scratch;
  const [start] = layout.ROTATIONS;
  for (let j = 0; j < joints; j += 1) {
    quatFrom6d(state, start + j * layout.ROTATION_SIZE, q, 9);
    const w = q[9], x = q[10], y = q[11], z = q[12];
    if (j === 0 && facing !== null) {
      // quat.mul(yaw(facing), hips) with yaw(facing) = (cos f/2, 0, sin f/2, 0)
      const cw = Math.cos(0.5 * facing), sy = Math.sin(0.5 * facing);
      result[0] = cw * x + sy * z;
      result[1] = cw * y + sy * w;
      result[2] = cw * z - sy * x;
      result[3] = cw * w - sy * y;
      continue;
    }
    result[4 * j] = x;
    result[4 * j + 1] = y;
    result[4 * j + 2] = z;
    result[4 * j + 3] = w;
  }
  return result;
}

/**
 * The hips' position (x, height, z) of a state standing at `ground` (state.to_clip's root
 * translation).
 * @param {StateLayout} layout
 * @param {ArrayLike<number>} state
 * @param {ArrayLike<number>} ground (x, z) metres
 * @param {Numbers} [out] [3]
 */
export function rootPosition(layout, state, ground, out) {
  const result = out ?? new Float64Array(3);
  result[0] = ground[0];
  result[1] = state[layout.HEIGHT];
  result[2] = ground[1];
  return result;
}
