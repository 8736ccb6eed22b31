// @ts-check
// Words and numbers of the Walk page: a generation's parameters, its measures with
// their units, its downloads, and the path editor's summary. Pure functions (no DOM),
// tested with node (tests/js/walk-path.test.mjs).
//
// A generation is the API's JSON (POST /api/v1/pfnn/generate/, GET
// /api/v1/pfnn/generations/{id}/): {id, parameters: {path, speed_mps, seconds, mode,
// foot_lock}, run, result: {frames, fps, path_rms_m, foot_slide_mps, …}, downloads}.

import { pathLength, walkEstimate } from "./path.js";

/**
 * A walk's parameters as the API gives them back.
 * @typedef {{path?: number[][], speed_mps?: number, seconds?: number | null, mode?: string,
 *   foot_lock?: boolean}} WalkParameters
 */

/**
 * A generation as the API gives it; `result` holds its measures (numbers, null when absent).
 * @typedef {object} Generation
 * @property {number} id
 * @property {WalkParameters} [parameters]
 * @property {import("../runs.js").Run | null} [run]
 * @property {Record<string, number | null | undefined> | null} [result]
 * @property {Record<string, string | null | undefined> | null} [downloads] URL per file name
 */

export const DOWNLOADS = Object.freeze([
  ["walk.bvh", "BVH on the clip's rig"],
  ["walk.glb", "The walk on the mannequin (GLB)"],
  ["walk-canonical.bvh", "BVH on the canonical skeleton"],
  ["report.json", "Report (JSON)"],
  ["viewer.json", "Viewer arrays (JSON)"],
]);

const finite = (/** @type {unknown} */ value) => value != null && value !== "" && Number.isFinite(Number(value));

/**
 * `value` with `digits` decimals and its unit ("0.123 m"), or "—" when absent.
 * @param {unknown} value a number, or a number's text
 * @param {number} digits
 * @param {string} [unit]
 */
export function quantity(value, digits, unit) {
  if (!finite(value)) return "—";
  return `${Number(value).toFixed(digits)}${unit ? ` ${unit}` : ""}`;
}

/**
 * "4 points · 10.00 m · 1.30 m/s · to the path's end · constant · foot lock on".
 * @param {WalkParameters | null | undefined} parameters
 */
export function parametersText(parameters) {
  const p = parameters ?? {};
  const points = p.path ?? [];
  const duration = finite(p.seconds) ? `for ${quantity(p.seconds, 1, "s")}` : "to the path's end";
  return [
    `${points.length} point${points.length === 1 ? "" : "s"}`,
    quantity(pathLength(points), 2, "m"),
    quantity(p.speed_mps, 2, "m/s"),
    duration,
    p.mode ?? "—",
    `foot lock ${p.foot_lock ? "on" : "off"}`,
  ].join(" · ");
}

/**
 * One line of the main measures ("path RMS 0.123 m · foot slide 0.012 m/s · 460 frames").
 * @param {Generation["result"]} result
 */
export function measuresText(result) {
  if (!result || !finite(result.frames)) return "";
  return [
    `path RMS ${quantity(result.path_rms_m, 3, "m")}`,
    `foot slide ${quantity(result.foot_slide_mps, 3, "m/s")}`,
    `${result.frames} frames at ${quantity(result.fps, 0, "fps")}`,
  ].join(" · ");
}

/**
 * The measures panel: [label, value, explanation] rows, with units.
 * @param {Generation["result"]} result
 * @param {WalkParameters | null | undefined} parameters
 * @returns {Array<[string, string, string]>}
 */
export function measureRows(result, parameters) {
  const r = result ?? {};
  const { frames, fps } = r;
  const seconds = finite(frames) && finite(fps) && Number(fps) > 0 ? (Number(frames) - 1) / Number(fps) : null;
  return [
    ["Path RMS", quantity(r.path_rms_m, 3, "m"), "root to the requested path, root mean square"],
    ["Foot slide", quantity(r.foot_slide_mps, 3, "m/s"), "planted feet, after the foot lock"],
    ["Foot slide before the lock", quantity(r.foot_slide_raw_mps, 3, "m/s"), "the network's own"],
    [
      "Under the ground",
      finite(r.penetration_worst_m) ? quantity(100 * Number(r.penetration_worst_m), 1, "cm") : "—",
      "the deepest any foot point goes",
    ],
    ["End distance", quantity(r.end_distance_m, 2, "m"), "last root position to the path's end"],
    ["Phase drift", quantity(r.phase_drift_rad, 3, "rad"), "how far the gait phase wandered"],
    ["Cadence", quantity(r.cycles_per_s, 2, "cycles/s"), "gait cycles per second"],
    ["Fastest joint", quantity(r.max_joint_speed_deg_s, 0, "°/s"), "the fastest any joint turns"],
    [
      "Frames",
      finite(r.frames) ? `${r.frames} at ${quantity(r.fps, 2, "fps")}` : "—",
      seconds == null ? "" : `${seconds.toFixed(2)} s`,
    ],
    ["Path", quantity(pathLength(parameters?.path ?? []), 2, "m"), "requested, along its points"],
  ];
}

/**
 * [filename, label, url | null] of each download of a generation.
 * @param {Generation["downloads"]} downloads
 * @returns {Array<[string, string, string | null]>}
 */
export function downloadRows(downloads) {
  return DOWNLOADS.map(([name, label]) => [name, label, downloads?.[name] ?? null]);
}

/**
 * The editor's summary: "3 points · 6.40 m · about 4.9 s at 1.30 m/s", or with a set
 * duration "… · 8.0 s at 1.30 m/s ≈ 10.40 m (more than the path)".
 * @param {ReadonlyArray<import("./path.js").PointLike>} points
 * @param {number} speed m/s
 * @param {number | null} [seconds]
 */
export function pathSummary(points, speed, seconds = null) {
  if (points.length === 0) return "No path yet: click on the map, or pick a ready-made path.";
  const { length, seconds: s, distance } = walkEstimate(points, speed, seconds);
  const head = `${points.length} point${points.length === 1 ? "" : "s"} · ${length.toFixed(2)} m`;
  if (points.length < 2) return head;
  const at = `at ${speed.toFixed(2)} m/s`;
  if (seconds == null) return `${head} · about ${s.toFixed(1)} s ${at}`;
  const more = distance > length + 1e-9 ? " (more than the path)" : "";
  return `${head} · ${s.toFixed(1)} s ${at} ≈ ${distance.toFixed(2)} m${more}`;
}
