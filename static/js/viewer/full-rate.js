// @ts-check
// A long clip at its full rate in the browser. The page plays the preview of viewer.json
// (every `stride`-th frame) and, around the playhead, the full-rate positions: a window
// of the float32 file next to it, fetched by HTTP range (levels.js has the maths and
// the parsing; this module only fetches and keeps).
//
// FullRateWindow holds one window (at most `maxBytes`, the whole file when it fits;
// while the next one loads, two) and fetches one at a time: when the playhead leaves
// the window, or nears its end while playing, or is scrubbed elsewhere, it asks for
// the window around the newest frame wanted once the request in flight has landed.
// LeveledSkeleton draws a SkeletonView at a clip frame from the window when it holds
// the frame, else from the preview.

import { byteRange, levelOf, needsWindow, parseContentRange, parsePositions, previewFrame, siblingUrl, windowAround } from "./levels.js";

/** @typedef {import("./levels.js").Level} Level */
/** @typedef {import("./levels.js").FrameWindow} FrameWindow */
/** @typedef {import("./levels.js").FullRateFile} FullRateFile */

/**
 * @typedef {object} FullRateOptions
 * @property {number} [maxBytes] the most one window holds (4 MiB)
 * @property {number} [spanS] seconds a window covers when the file does not fit (20 s)
 * @property {number} [behind] share of a window before the playhead (0.25)
 * @property {number} [marginS] fetch the next window this long before the end (5 s)
 * @property {typeof fetch} [fetch] the network (tests pass their own)
 * @property {() => void} [onLoad] a window landed (draw the frame again)
 */

export class FullRateWindow {
  /**
   * @param {string} url the full-rate file's download
   * @param {Level & {full: FullRateFile}} level
   * @param {number} joints
   * @param {FullRateOptions} [options]
   */
  constructor(url, level, joints, options = {}) {
    this.url = url;
    this.level = level;
    this.joints = joints;
    this.options = {
      maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
      spanS: options.spanS ?? 20,
      behind: options.behind ?? 0.25,
    };
    this.marginFrames = Math.round((options.marginS ?? 5) * level.fps);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.onLoad = options.onLoad ?? (() => {});
    /** @type {Float32Array | null} flat [window frames × joints × 3], metres */
    this.positions = null;
    /** @type {FrameWindow | null} the frames `positions` holds */
    this.window = null;
    /** @type {AbortController | null} the request in flight */
    this.loading = null;
    this.wanted = 0;
    /** @type {string | null} why windows stopped (the preview plays on) */
    this.failed = null;
    this.disposed = false;
  }

  /**
   * Where clip frame `frame` starts in `positions`, or -1 when the window lacks it.
   * @param {number} frame
   */
  baseOf(frame) {
    const w = this.window;
    if (!w || !this.positions || frame < w.start || frame >= w.end) return -1;
    return (frame - w.start) * this.joints * 3;
  }

  /**
   * The playhead is at clip frame `frame`: fetch the window around it when needed (one
   * request at a time; the newest frame wanted is looked at again when it lands).
   * @param {number} frame
   */
  want(frame) {
    this.wanted = frame;
    if (this.loading || this.failed || this.disposed) return;
    if (!needsWindow(frame, this.window, this.level.frames, this.margin())) return;
    const next = windowAround(frame, this.level, this.options);
    if (this.window && next.start === this.window.start && next.end === this.window.end) return;
    this.load(next);
  }

  /** Frames before the held window's end at which the next is fetched (at most half of
   * what lies ahead of the playhead when the window came, so that it is not refetched
   * at once). */
  margin() {
    const held = this.window;
    if (!held) return 0;
    const ahead = (held.end - held.start) * (1 - this.options.behind);
    return Math.min(this.marginFrames, Math.floor(ahead / 2));
  }

  /**
   * Fetch frames `window` by range; keep them when they are what was asked for.
   * @param {FrameWindow} window
   */
  async load(window) {
    const controller = new AbortController();
    this.loading = controller;
    try {
      const positions = await this.fetchWindow(window, controller);
      if (this.disposed) return;
      this.positions = positions;
      this.window = window;
    } catch (error) {
      if (!this.disposed) this.failed = error instanceof Error ? error.message : String(error);
    } finally {
      if (this.loading === controller) this.loading = null;
    }
    if (this.disposed) return;
    this.onLoad();
    this.want(this.wanted);
  }

  /**
   * The positions of frames `window` from the server (a 206 of exactly those bytes).
   * @param {FrameWindow} window
   * @param {AbortController} controller
   * @returns {Promise<Float32Array>}
   */
  async fetchWindow(window, controller) {
    const range = byteRange(window, this.level.full.bytes_per_frame);
    const response = await this.fetch(this.url, {
      credentials: "same-origin", headers: { Range: range.header }, signal: controller.signal,
    });
    const got = parseContentRange(response.headers.get("Content-Range"));
    if (response.status !== 206 || !got || got.first !== range.first || got.last !== range.last) {
      controller.abort(); // not the part asked for: do not download the whole file
      throw new Error(`the server answered ${response.status} to ${range.header}`);
    }
    return parsePositions(await response.arrayBuffer(), this.joints, window.end - window.start);
  }

  /** Stop fetching and let the window go. */
  dispose() {
    this.disposed = true;
    this.loading?.abort();
    this.positions = null;
    this.window = null;
  }
}

/**
 * @typedef {object} PosableView what LeveledSkeleton draws (a SkeletonView)
 * @property {number} frame the preview frame shown (-1 when drawn from elsewhere)
 * @property {(frame: number) => void} update pose at a preview frame
 * @property {(positions: Float32Array, base: number) => void} draw pose from a buffer of the same joints
 * @property {(frame: number, joint: number, out: import("three").Vector3) => import("three").Vector3} jointPosition
 */

export class LeveledSkeleton {
  /**
   * @param {PosableView} view the skeleton, made from `arrays`
   * @param {import("./arrays.js").ViewerArrays} arrays the preview
   * @param {string} viewerUrl where `arrays` came from (the full-rate file is next to it)
   * @param {FullRateOptions} [options]
   */
  constructor(view, arrays, viewerUrl, options = {}) {
    this.view = view;
    this.level = levelOf(arrays);
    this.frame = 0;
    const { full } = this.level;
    /** @type {FullRateWindow | null} only for a decimated preview */
    this.full = full && this.level.stride > 1
      ? new FullRateWindow(siblingUrl(viewerUrl, full.name), { ...this.level, full }, arrays.joints, {
        ...options, onLoad: () => { this.update(this.frame); options.onLoad?.(); },
      })
      : null;
  }

  /**
   * Pose at clip frame `frame` (clamped): from the full-rate window when it holds it,
   * else the preview's frame at or before it.
   * @param {number} frame
   */
  update(frame) {
    this.frame = Math.min(this.level.frames - 1, Math.max(0, Math.round(frame)));
    this.full?.want(this.frame);
    const base = this.full?.baseOf(this.frame) ?? -1;
    if (base >= 0 && this.full?.positions) this.view.draw(this.full.positions, base);
    else this.view.update(previewFrame(this.frame, this.level));
  }

  /**
   * World position of `joint` at clip frame `frame`, metres, into `out` (the camera).
   * @param {number} frame
   * @param {number} joint
   * @param {import("three").Vector3} out
   */
  jointPosition(frame, joint, out) {
    const base = this.full?.baseOf(frame) ?? -1;
    const positions = this.full?.positions;
    if (base < 0 || !positions) return this.view.jointPosition(previewFrame(frame, this.level), joint, out);
    const i = base + joint * 3;
    return out.set(positions[i], positions[i + 1], positions[i + 2]);
  }

  dispose() {
    this.full?.dispose();
  }
}
