// @ts-check
// The Walk page's path editor: the ground from above on a 2-D canvas (a metre grid with
// labels, the origin, +z up the screen and +x to the left, see path.js), the path's
// points (the first one is the start), and, once a walk is loaded, the ground track of
// its root and where the walker is now.
//
// Click to add a point, drag a point to move it, right-click (or Backspace) to remove
// the last one. `root` gets data-points (how many) and data-length-m.

import { context2d } from "../dom.js";
import { GRAB_PX, HALF_M, labelStep, mapView, pathLength, pointAt, snapPoint, toGround, toScreen } from "./path.js";

/** @typedef {import("./path.js").Point} Point */
/** @typedef {import("./path.js").PointLike} PointLike */

const COLORS = {
  background: "#f4f6f9",
  minor: "#dde2e8",
  major: "#b4bcc8",
  axis: "#7b8594",
  label: "#5b6472",
  path: "#e0861a",
  start: "#1f9d74",
  track: "#2f6fde",
};

export class PathEditor {
  /**
   * @param {HTMLElement} root the editor (focusable), holding a <canvas data-path-canvas>
   * @param {{onChange?: (points: Point[]) => void}} [options]
   */
  constructor(root, { onChange } = {}) {
    this.root = root;
    this.canvas = /** @type {HTMLCanvasElement} */ (root.querySelector("[data-path-canvas]"));
    this.context = context2d(this.canvas);
    this.onChange = onChange;
    /** @type {Point[]} */
    this.points = [];
    /** @type {ReadonlyArray<PointLike> | null} */
    this.track = null;
    /** @type {PointLike | null} */
    this.marker = null;
    this.dragging = -1;
    this.view = mapView(1, 1);
    this.size = { width: 1, height: 1 };
    this.listening = new AbortController();
    const { signal } = this.listening;
    const canvas = this.canvas;
    canvas.addEventListener("pointerdown", (event) => this.press(event), { signal });
    canvas.addEventListener("pointermove", (event) => this.move(event), { signal });
    canvas.addEventListener("pointerup", (event) => this.release(event), { signal });
    canvas.addEventListener("pointercancel", (event) => this.release(event), { signal });
    canvas.addEventListener("contextmenu", (event) => {
      event.preventDefault();
      this.removeLast();
    }, { signal });
    root.addEventListener("keydown", (event) => {
      if (event.key !== "Backspace" && event.key !== "Delete") return;
      event.preventDefault();
      this.removeLast();
    }, { signal });
    this.resize();
  }

  /**
   * Replace the path (ground points [x, z], metres).
   * @param {ReadonlyArray<PointLike>} points
   */
  setPoints(points) {
    this.points = points.map((point) => snapPoint(point));
    this.changed();
  }

  removeLast() {
    if (this.points.length === 0) return;
    this.points.pop();
    this.changed();
  }

  clear() {
    this.points = [];
    this.changed();
  }

  /**
   * Show the root's ground track of a loaded walk ([x, z] per frame; null: none).
   * @param {ReadonlyArray<PointLike> | null} track
   */
  setTrack(track) {
    this.track = track;
    this.marker = null;
    this.draw();
  }

  /**
   * Show the walker at ground point [x, z] (null: hide it).
   * @param {PointLike | null} point
   */
  setMarker(point) {
    this.marker = point;
    this.draw();
  }

  changed() {
    this.root.dataset.points = String(this.points.length);
    this.root.dataset.lengthM = pathLength(this.points).toFixed(2);
    this.draw();
    this.onChange?.(this.points);
  }

  /**
   * Canvas pixel of a pointer event (the canvas may be drawn at devicePixelRatio).
   * @param {MouseEvent} event
   * @returns {Point}
   */
  pixel(event) {
    const box = this.canvas.getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  }

  /** @param {PointerEvent} event */
  press(event) {
    if (event.button !== 0) return;
    event.preventDefault();
    this.root.focus({ preventScroll: true });
    const [px, py] = this.pixel(event);
    this.dragging = pointAt(this.view, this.points, px, py, GRAB_PX);
    if (this.dragging < 0) {
      this.points.push(snapPoint(toGround(this.view, px, py)));
      this.dragging = this.points.length - 1;
      this.changed();
    }
    this.canvas.setPointerCapture?.(event.pointerId);
  }

  /** @param {PointerEvent} event */
  move(event) {
    const [px, py] = this.pixel(event);
    if (this.dragging < 0) {
      this.canvas.style.cursor = pointAt(this.view, this.points, px, py) >= 0 ? "grab" : "crosshair";
      return;
    }
    const point = snapPoint(toGround(this.view, px, py));
    const old = this.points[this.dragging];
    if (point[0] === old[0] && point[1] === old[1]) return;
    this.points[this.dragging] = point;
    this.changed();
  }

  /** @param {PointerEvent} event */
  release(event) {
    if (this.dragging < 0) return;
    this.dragging = -1;
    if (this.canvas.hasPointerCapture?.(event.pointerId)) this.canvas.releasePointerCapture(event.pointerId);
  }

  /** Fit the canvas to its box (at the screen's pixel ratio) and redraw. */
  resize() {
    const width = this.canvas.clientWidth || 480;
    const height = this.canvas.clientHeight || width;
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.context.setTransform(ratio, 0, 0, ratio, 0, 0);
    this.view = mapView(width, height, { half: HALF_M });
    this.size = { width, height };
    this.draw();
  }

  draw() {
    const c = this.context;
    c.fillStyle = COLORS.background;
    c.fillRect(0, 0, this.size.width, this.size.height);
    this.drawGrid(c);
    this.drawTrack(c);
    this.drawPath(c);
  }

  /**
   * 1 m lines (5 m darker), labels along the bottom (x) and left (z), the origin, axes.
   * @param {CanvasRenderingContext2D} c
   */
  drawGrid(c) {
    const { half, scale } = this.view;
    const at = (/** @type {number} */ x, /** @type {number} */ z) => toScreen(this.view, [x, z]);
    c.lineWidth = 1;
    for (let m = -half; m <= half; m += 1) {
      c.strokeStyle = m % 5 === 0 ? COLORS.major : COLORS.minor;
      this.line(c, at(m, -half), at(m, half));
      this.line(c, at(-half, m), at(half, m));
    }
    c.fillStyle = COLORS.label;
    c.font = "10px system-ui, sans-serif";
    const step = labelStep(scale);
    for (let m = -half; m <= half; m += step) {
      const [x] = at(m, -half);
      const [, z] = at(-half, m);
      c.textAlign = "center";
      c.textBaseline = "top";
      c.fillText(String(m), x, at(0, -half)[1] + 5);
      c.textAlign = "right";
      c.textBaseline = "middle";
      c.fillText(String(m), at(half, 0)[0] - 5, z);
    }
    this.drawAxes(c, at(0, 0));
  }

  /**
   * The axes through the origin, arrows at +x (left) and +z (up), the origin dot.
   * @param {CanvasRenderingContext2D} c
   * @param {Point} origin its pixel
   */
  drawAxes(c, [ox, oy]) {
    const { half } = this.view;
    const xEnd = toScreen(this.view, [half, 0]);
    const zEnd = toScreen(this.view, [0, half]);
    c.strokeStyle = COLORS.axis;
    c.fillStyle = COLORS.axis;
    c.lineWidth = 1.5;
    this.line(c, toScreen(this.view, [-half, 0]), xEnd);
    this.line(c, toScreen(this.view, [0, -half]), zEnd);
    this.head(c, [ox, oy], xEnd, 7);
    this.head(c, [ox, oy], zEnd, 7);
    c.beginPath();
    c.arc(ox, oy, 4, 0, 2 * Math.PI);
    c.fill();
    c.font = "bold 11px system-ui, sans-serif";
    c.textAlign = "left";
    c.textBaseline = "bottom";
    c.fillText("+x", xEnd[0] + 2, xEnd[1] - 5);
    c.textBaseline = "top";
    c.fillText("+z", zEnd[0] + 6, zEnd[1] + 1);
    c.textBaseline = "top";
    c.fillText("0", ox + 5, oy + 3);
  }

  /** @param {CanvasRenderingContext2D} c */
  drawTrack(c) {
    if (this.track && this.track.length > 1) {
      c.strokeStyle = COLORS.track;
      c.globalAlpha = 0.55;
      c.lineWidth = 2;
      c.beginPath();
      this.track.forEach((point, i) => {
        const [x, y] = toScreen(this.view, point);
        if (i === 0) c.moveTo(x, y);
        else c.lineTo(x, y);
      });
      c.stroke();
      c.globalAlpha = 1;
    }
    if (this.marker) {
      const [x, y] = toScreen(this.view, this.marker);
      c.fillStyle = COLORS.track;
      c.beginPath();
      c.arc(x, y, 6, 0, 2 * Math.PI);
      c.fill();
    }
  }

  /**
   * The polyline with an arrow on each segment, numbered points, the start in green.
   * @param {CanvasRenderingContext2D} c
   */
  drawPath(c) {
    const screen = this.points.map((point) => toScreen(this.view, point));
    c.strokeStyle = COLORS.path;
    c.fillStyle = COLORS.path;
    c.lineWidth = 3;
    for (let i = 1; i < screen.length; i += 1) {
      this.line(c, screen[i - 1], screen[i]);
      /** @type {Point} */
      const mid = [(screen[i - 1][0] + screen[i][0]) / 2, (screen[i - 1][1] + screen[i][1]) / 2];
      this.head(c, screen[i - 1], mid, 7);
    }
    c.font = "bold 10px system-ui, sans-serif";
    c.textAlign = "center";
    c.textBaseline = "middle";
    screen.forEach(([x, y], i) => {
      c.fillStyle = i === 0 ? COLORS.start : COLORS.path;
      c.beginPath();
      c.arc(x, y, i === 0 ? 8 : 7, 0, 2 * Math.PI);
      c.fill();
      c.fillStyle = "#fff";
      c.fillText(i === 0 ? "S" : String(i + 1), x, y + 0.5);
    });
  }

  /**
   * @param {CanvasRenderingContext2D} c
   * @param {PointLike} from a pixel
   * @param {PointLike} to a pixel
   */
  line(c, [ax, ay], [bx, by]) {
    c.beginPath();
    c.moveTo(ax, ay);
    c.lineTo(bx, by);
    c.stroke();
  }

  /**
   * A filled arrow head at `to`, pointing away from `from`.
   * @param {CanvasRenderingContext2D} c
   * @param {PointLike} from a pixel
   * @param {PointLike} to a pixel
   * @param {number} size pixels
   */
  head(c, [ax, ay], [bx, by], size) {
    const angle = Math.atan2(by - ay, bx - ax);
    c.beginPath();
    c.moveTo(bx + size * Math.cos(angle), by + size * Math.sin(angle));
    c.lineTo(bx + size * Math.cos(angle + 2.4), by + size * Math.sin(angle + 2.4));
    c.lineTo(bx + size * Math.cos(angle - 2.4), by + size * Math.sin(angle - 2.4));
    c.closePath();
    c.fill();
  }

  dispose() {
    this.listening.abort();
  }
}
