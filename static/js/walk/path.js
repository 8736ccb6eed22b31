// @ts-check
// The maths of the Walk page's path editor: a path is a list of ground points [x, z]
// (metres, Y up as in the 3-D stage), walked from its first point. Pure functions (no
// DOM, no three.js), tested with node's test runner (tests/js/walk-path.test.mjs).
//
// The editor shows the ground from above with +z up the screen; seen from above that
// puts +x on the left (the walker's left is on your left while it walks up the screen),
// so the map is the ground itself, not its mirror image.

/** @typedef {readonly number[]} PointLike a ground point [x, z] (metres), or a pixel [px, py] */
/** @typedef {[number, number]} Point a ground point [x, z] (metres), or a pixel [px, py] */
/** @typedef {{cx: number, cy: number, scale: number, half: number}} MapView scale in pixels/metre */

/** The editor shows ±HALF_M metres around the origin (the 3-D grid is ±10 m). */
export const HALF_M = 10;
/** Points snap to this many metres. */
export const SNAP_M = 0.1;
/** A click this close to a point (pixels) grabs it instead of adding one. */
export const GRAB_PX = 12;
export const SPEED = Object.freeze({ min: 0.5, max: 2.5, initial: 1.3 });

const round2 = (/** @type {number} */ v) => Math.round(v * 100) / 100;

/** A quarter circle of radius 7 m, starting up the screen (+z) and turning right (-x). */
function quarterCircle() {
  /** @type {Point[]} */
  const points = [];
  for (let i = 0; i <= 6; i += 1) {
    const angle = (i / 6) * (Math.PI / 2);
    points.push([round2(-7 + 7 * Math.cos(angle)), round2(-6 + 7 * Math.sin(angle))]);
  }
  return points;
}

/**
 * The three ready-made paths (all inside the map, all starting at z = -5 or -6).
 * @type {Readonly<Record<string, {label: string, points: Point[]}>>}
 */
export const PRESETS = Object.freeze({
  straight: { label: "Straight 10 m", points: [[0, -5], [0, 5]] },
  curve: { label: "Curve", points: quarterCircle() },
  zigzag: {
    label: "Zig-zag",
    points: [[0, -6], [1.5, -3], [-1.5, 0], [1.5, 3], [-1.5, 6]],
  },
});

/**
 * A fresh copy of preset `name`'s points.
 * @param {string} name
 * @returns {Point[]}
 */
export function presetPoints(name) {
  const preset = PRESETS[name];
  if (!preset) throw new Error(`unknown path preset ${name}`);
  return preset.points.map(([x, z]) => [x, z]);
}

/**
 * Length of each segment, metres.
 * @param {ReadonlyArray<PointLike>} points
 */
export function segmentLengths(points) {
  return points.slice(1).map(([x, z], i) => Math.hypot(x - points[i][0], z - points[i][1]));
}

/**
 * Length of the path, metres (0 with fewer than two points).
 * @param {ReadonlyArray<PointLike>} points
 */
export function pathLength(points) {
  return segmentLengths(points).reduce((sum, length) => sum + length, 0);
}

/**
 * How long the walk lasts (seconds) and how far it goes (metres): to the path's end at
 * `speed` (m/s) when `seconds` is null, otherwise `seconds` at that speed.
 * @param {ReadonlyArray<PointLike>} points
 * @param {number} speed
 * @param {number | null} [seconds]
 */
export function walkEstimate(points, speed, seconds = null) {
  const length = pathLength(points);
  if (seconds == null) return { length, seconds: speed > 0 ? length / speed : 0, distance: length };
  return { length, seconds, distance: seconds * speed };
}

/**
 * `value` rounded to the nearest multiple of `step`, without -0 or float dust.
 * @param {number} value
 * @param {number} [step]
 */
export function snap(value, step = SNAP_M) {
  const snapped = Number((Math.round(value / step) * step).toFixed(6));
  return snapped === 0 ? 0 : snapped;
}

/**
 * A ground point snapped and kept on the map.
 * @param {PointLike} point
 * @param {number} [half]
 * @returns {Point}
 */
export function snapPoint([x, z], half = HALF_M) {
  const clamp = (/** @type {number} */ v) => Math.min(half, Math.max(-half, v));
  return [clamp(snap(x)), clamp(snap(z))];
}

/**
 * Where the map lies on a canvas of `width` × `height` pixels: the square ±`half`
 * metres inside the margins (room for the labels) around its centre.
 * @param {number} width
 * @param {number} height
 * @param {{half?: number, margin?: {left: number, right: number, top: number, bottom: number}}} [options]
 * @returns {MapView}
 */
export function mapView(width, height, { half = HALF_M, margin = { left: 30, right: 14, top: 14, bottom: 24 } } = {}) {
  const w = width - margin.left - margin.right;
  const h = height - margin.top - margin.bottom;
  const scale = Math.max(1e-6, Math.min(w, h) / (2 * half + 0.6));
  return { cx: margin.left + w / 2, cy: margin.top + h / 2, scale, half };
}

/**
 * Canvas pixel [px, py] of a ground point (+z up, +x left).
 * @param {MapView} view
 * @param {PointLike} point
 * @returns {Point}
 */
export function toScreen(view, [x, z]) {
  return [view.cx - x * view.scale, view.cy - z * view.scale];
}

/**
 * Ground point [x, z] (metres) under canvas pixel (px, py).
 * @param {MapView} view
 * @param {number} px
 * @param {number} py
 * @returns {Point}
 */
export function toGround(view, px, py) {
  return [(view.cx - px) / view.scale, (view.cy - py) / view.scale];
}

/**
 * Index of the point within `radius` pixels of (px, py), the nearest; -1 if none.
 * @param {MapView} view
 * @param {ReadonlyArray<PointLike>} points
 * @param {number} px
 * @param {number} py
 * @param {number} [radius]
 */
export function pointAt(view, points, px, py, radius = GRAB_PX) {
  let best = -1;
  let bestDistance = radius;
  points.forEach((point, i) => {
    const [sx, sy] = toScreen(view, point);
    const distance = Math.hypot(sx - px, sy - py);
    if (distance <= bestDistance) {
      best = i;
      bestDistance = distance;
    }
  });
  return best;
}

/**
 * Metres between grid labels: every metre when they fit, else every 2 or 5.
 * @param {number} scale pixels per metre
 */
export function labelStep(scale) {
  if (scale >= 17) return 1;
  return scale >= 8 ? 2 : 5;
}

/**
 * The path as a flat ribbon on the ground for WebGL (lines are one pixel wide there):
 * two triangles per segment, `halfWidth` metres either side, at height `y`.
 * @param {ReadonlyArray<PointLike>} points
 * @param {number} halfWidth metres
 * @param {number} [y] metres
 * @returns {Float32Array} x, y, z of 6 vertices per segment
 */
export function ribbon(points, halfWidth, y = 0) {
  const lengths = segmentLengths(points);
  const out = new Float32Array(lengths.length * 18);
  lengths.forEach((length, i) => {
    const [ax, az] = points[i];
    const [bx, bz] = points[i + 1];
    // The left normal of the segment on the ground (zero for a zero-length one).
    const nx = length > 0 ? (-(bz - az) / length) * halfWidth : 0;
    const nz = length > 0 ? ((bx - ax) / length) * halfWidth : 0;
    const corners = [
      [ax + nx, az + nz], [ax - nx, az - nz], [bx - nx, bz - nz],
      [ax + nx, az + nz], [bx - nx, bz - nz], [bx + nx, bz + nz],
    ];
    corners.forEach(([x, z], k) => out.set([x, y, z], i * 18 + k * 3));
  });
  return out;
}

/**
 * The ground track [x, z] of `joint` over every frame of viewer arrays.
 * @param {import("../viewer/arrays.js").ViewerArrays} arrays
 * @param {number} joint
 * @returns {Point[]}
 */
export function groundTrack(arrays, joint) {
  const { positions, joints, frames } = arrays;
  return Array.from({ length: frames }, (_, f) => {
    const i = (f * joints + joint) * 3;
    return [positions[i], positions[i + 2]];
  });
}

/**
 * Why the path cannot be walked ("" when it can: two points or more, not all in one place).
 * @param {ReadonlyArray<PointLike>} points
 */
export function pathProblem(points) {
  if (points.length < 2) return "Add at least two points to the path (click on the map).";
  if (!(pathLength(points) > 0)) return "The path's points are all in one place: move one.";
  return "";
}
