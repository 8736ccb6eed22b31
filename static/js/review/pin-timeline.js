// @ts-check
// The proposal player's timeline: the transition clip's parts (A, the blend, B) as one
// bar, the comments' pins under it (a marker per frame, a bar per frame range, in lanes
// that do not overlap) and a cursor at the frame shown. A click on a pin seeks there.

import { PART_COLOURS, bands } from "../viewer/compare-timeline.js";
import { lanes, placedInside } from "./pins.js";

/** @typedef {import("./pins.js").Pin} Pin */
/** @typedef {import("./pins.js").PinLayout} PinLayout */

export class PinTimeline {
  /**
   * @param {HTMLElement} container the element to fill
   * @param {{frames: number, layout: PinLayout | null, onSeek: (frame: number) => void}} options
   */
  constructor(container, { frames, layout, onSeek }) {
    this.container = container;
    this.frames = frames;
    this.onSeek = onSeek;
    this.bar = document.createElement("div");
    this.bar.className = "pin-timeline__bar";
    this.pins = document.createElement("div");
    this.pins.className = "pin-timeline__pins";
    this.cursor = document.createElement("div");
    this.cursor.className = "pin-timeline__cursor";
    this.cursor.setAttribute("aria-hidden", "true");
    container.replaceChildren(this.bar, this.pins, this.cursor);
    if (layout) this.drawParts(layout);
    this.onClick = (/** @type {MouseEvent} */ event) => {
      /** @type {HTMLElement | null} */
      const pin = event.target instanceof Element ? event.target.closest("[data-seek]") : null;
      if (pin) this.onSeek(Number(pin.dataset.seek));
    };
    this.pins.addEventListener("click", this.onClick);
  }

  /**
   * The fraction of the width at which `frame` sits.
   * @param {number} frame
   */
  at(frame) {
    return frame / Math.max(1, this.frames - 1);
  }

  /** @param {PinLayout} layout */
  drawParts(layout) {
    const full = {
      frames: this.frames,
      blend_start_frame: layout.blend_start_frame ?? layout.cut_frame ?? 0,
      blend_stop_frame: layout.blend_stop_frame ?? layout.cut_frame ?? 0,
    };
    for (const band of bands(full, 0, Math.max(1, this.frames - 1))) {
      const piece = document.createElement("span");
      piece.style.left = `${100 * band.from}%`;
      piece.style.width = `${100 * Math.min(1 - band.from, band.to - band.from)}%`;
      piece.style.background = PART_COLOURS[band.part];
      piece.title = band.part === "blend" ? "the blend" : `clip ${band.part}`;
      this.bar.append(piece);
    }
  }

  /**
   * Show `pins` (pins.js timelinePins); those outside the clip or without frames are left out.
   * @param {Pin[]} pins
   */
  setPins(pins) {
    const { lane, count } = lanes(pins);
    /** @type {Array<[import("./pins.js").PlacedPin, number]>} */
    const shown = [];
    for (const pin of pins) {
      const row = lane.get(pin.id);
      if (row !== undefined && placedInside(pin)) shown.push([pin, row]); // a pin with a lane is placed
    }
    this.pins.style.height = `${Math.max(1, count) * 14}px`;
    this.pins.replaceChildren(...shown.map(([pin, row]) => this.pinElement(pin, row)));
    this.container.dataset.pins = String(shown.length);
  }

  /**
   * @param {import("./pins.js").PlacedPin} pin
   * @param {number} row its lane
   */
  pinElement(pin, row) {
    const button = document.createElement("button");
    const range = pin.end > pin.start;
    button.type = "button";
    button.className = `pin-timeline__pin${range ? " pin-timeline__pin--range" : ""}`;
    if (pin.resolved) button.classList.add("pin-timeline__pin--resolved");
    if (pin.joint) button.classList.add("pin-timeline__pin--joint");
    button.dataset.seek = String(pin.start);
    button.dataset.comment = String(pin.id);
    button.style.left = `${100 * this.at(pin.start)}%`;
    button.style.top = `${row * 14}px`;
    if (range) button.style.width = `${100 * (this.at(pin.end) - this.at(pin.start))}%`;
    const frames = range ? `frames ${pin.start}–${pin.end}` : `frame ${pin.start}`;
    const label = `${pin.reply ? "Reply" : "Comment"} ${pin.id} by ${pin.author} at ${frames}${pin.joint ? ` on ${pin.joint}` : ""}`;
    button.title = label;
    button.setAttribute("aria-label", `${label}: go there`);
    return button;
  }

  /**
   * Move the cursor to `frame`.
   * @param {number} frame
   */
  setFrame(frame) {
    this.cursor.style.left = `${100 * this.at(frame)}%`;
  }

  dispose() {
    this.pins.removeEventListener("click", this.onClick);
    this.container.replaceChildren();
  }
}
