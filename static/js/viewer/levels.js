// @ts-check
// The two levels of a long clip's viewer arrays (motioncore.export.viewer_levels): the
// preview in `viewer.json` (every `stride`-th frame, its own `frames`, `fps`, `times`)
// and the full-rate positions in a float32 file next to it (`full`: little-endian
// [frames × joints × 3] metres, `bytes_per_frame` a frame), fetched a window at a time
// by HTTP range. Pure functions (no DOM, no three.js, no network): the window maths,
// the range header and the parsing of what comes back. full-rate.js does the fetching.

/**
 * The `full` entry of a long clip's preview.
 * @typedef {object} FullRateFile
 * @property {string} name the download next to the JSON (`viewer.f32`)
 * @property {string} dtype "<f4": little-endian float32
 * @property {number[]} shape [frames, joints, 3]
 * @property {number} bytes_per_frame joints × 12
 * @property {number} frames every frame of the clip
 * @property {number} fps the clip's rate
 */

/**
 * A clip as the clock sees it: every frame at the clip's rate, and where the preview's
 * frames lie among them.
 * @typedef {object} Level
 * @property {number} frames the clip's frames (the clock's length)
 * @property {number} fps the clip's frames per second
 * @property {number} stride clip frames per preview frame (1: the preview is every frame)
 * @property {number} previewFrames frames the preview holds
 * @property {FullRateFile | null} full the full-rate file, when the preview is decimated
 */

/**
 * Frames [start, end) of the clip.
 * @typedef {{start: number, end: number}} FrameWindow
 */

/**
 * @param {import("./arrays.js").ViewerArrays} arrays a preview (or plain viewer arrays)
 * @returns {Level}
 */
export function levelOf(arrays) {
  const full = arrays.full ?? null;
  return {
    frames: full?.frames ?? arrays.frames,
    fps: full?.fps ?? arrays.fps,
    stride: arrays.stride ?? 1,
    previewFrames: arrays.frames,
    full,
  };
}

/**
 * The preview frame shown at clip frame `frame`: the latest at or before it (the preview
 * holds clip frames 0, stride, 2 × stride, …), clamped to the preview.
 * @param {number} frame
 * @param {Level} level
 */
export function previewFrame(frame, level) {
  return Math.min(level.previewFrames - 1, Math.max(0, Math.floor(frame / level.stride)));
}

/**
 * @typedef {object} WindowOptions
 * @property {number} maxBytes the most a window may hold (the whole file when it fits)
 * @property {number} spanS seconds of motion a window covers (when the file does not fit)
 * @property {number} behind share of the window before the frame (0 … 1; the rest is ahead)
 */

/**
 * The frames to fetch for clip frame `frame`: the whole clip when its file fits in
 * `maxBytes`, else `spanS` seconds (at most `maxBytes`), `behind` of it before the frame,
 * kept inside the clip.
 * @param {number} frame
 * @param {Level & {full: FullRateFile}} level
 * @param {WindowOptions} options
 * @returns {FrameWindow}
 */
export function windowAround(frame, level, { maxBytes, spanS, behind }) {
  const { frames } = level;
  const perFrame = level.full.bytes_per_frame;
  const fits = frames * perFrame <= maxBytes;
  const span = fits ? frames : Math.max(1, Math.min(frames, Math.floor(maxBytes / perFrame), Math.ceil(spanS * level.fps)));
  const f = Math.min(frames - 1, Math.max(0, Math.round(frame)));
  const start = Math.min(frames - span, Math.max(0, f - Math.floor(span * behind)));
  return { start, end: start + span };
}

/**
 * Whether clip frame `frame` needs another window: none is loaded, the frame is outside
 * it, or the frame is within `marginFrames` of its end (and the clip goes on).
 * @param {number} frame
 * @param {FrameWindow | null} window
 * @param {number} frames the clip's frames
 * @param {number} marginFrames
 */
export function needsWindow(frame, window, frames, marginFrames) {
  if (!window) return true;
  if (frame < window.start || frame >= window.end) return true;
  return window.end < frames && frame >= window.end - marginFrames;
}

/**
 * The bytes of frames [start, end) in the full-rate file, and their Range header.
 * @param {FrameWindow} window
 * @param {number} bytesPerFrame
 * @returns {{first: number, last: number, header: string}} `first` … `last` included
 */
export function byteRange({ start, end }, bytesPerFrame) {
  const first = start * bytesPerFrame;
  const last = end * bytesPerFrame - 1;
  return { first, last, header: `bytes=${first}-${last}` };
}

/**
 * A 206 answer's `Content-Range` (`bytes 100-199/1000`); null when it is not one.
 * @param {string | null} value
 * @returns {{first: number, last: number, size: number} | null}
 */
export function parseContentRange(value) {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec((value ?? "").trim());
  if (!match) return null;
  return { first: Number(match[1]), last: Number(match[2]), size: Number(match[3]) };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Positions of `frames` frames from the full-rate file's bytes: a flat
 * [frames × joints × 3] Float32Array, metres (a view of `buffer` on little-endian
 * machines, every browser's; a copy elsewhere).
 * @param {ArrayBuffer} buffer
 * @param {number} joints
 * @param {number} frames how many frames the bytes must hold
 * @returns {Float32Array}
 */
export function parsePositions(buffer, joints, frames) {
  const count = frames * joints * 3;
  if (buffer.byteLength !== count * 4) {
    throw new Error(`${buffer.byteLength} bytes, expected ${frames} frames × ${joints} joints × 12`);
  }
  if (LITTLE_ENDIAN) return new Float32Array(buffer);
  const data = new DataView(buffer);
  return Float32Array.from({ length: count }, (_, i) => data.getFloat32(4 * i, true));
}

/**
 * The URL of the file called `name` next to the viewer arrays at `viewerUrl` (downloads
 * are `…/download/<name>/`).
 * @param {string} viewerUrl e.g. /api/v1/clips/7/download/viewer.json/
 * @param {string} name e.g. viewer.f32
 * @param {string} [base] what a relative `viewerUrl` is relative to (the page)
 */
export function siblingUrl(viewerUrl, name, base = globalThis.location?.href ?? "http://localhost/") {
  return new URL(`../${encodeURIComponent(name)}/`, new URL(viewerUrl, base)).href;
}
