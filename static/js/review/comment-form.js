// @ts-check
// The proposal page's comment form: the text, "Pin to this frame" (the player's frame
// shown now) with an optional range end, a joint, and the proposal's parameters. It
// builds the API's body (pins.js commentPayload) and hands it to `submit`; an error is
// shown in the form and nothing is cleared.

import { messageOf } from "../api.js";
import { commentPayload } from "./pins.js";

export class CommentForm {
  /**
   * @param {HTMLFormElement} form the [data-comment-form] markup
   * @param {{parameters: Record<string, unknown>, currentFrame: () => number | null,
   *          submit: (payload: import("./pins.js").CommentPayload) => Promise<void>}} options
   */
  constructor(form, { parameters, currentFrame, submit }) {
    this.form = form;
    this.parameters = parameters;
    this.currentFrame = currentFrame;
    this.submit = submit;
    const q = (/** @type {string} */ selector) => form.querySelector(selector);
    const field = (/** @type {string} */ name) => form.elements.namedItem(name);
    // The form's fields (the template's; the joint and the parameters' box are optional).
    this.fields = {
      body: /** @type {HTMLTextAreaElement} */ (field("body")),
      start: /** @type {HTMLInputElement} */ (field("frame_start")),
      end: /** @type {HTMLInputElement} */ (field("frame_end")),
      joint: /** @type {HTMLSelectElement | null} */ (field("joint")),
      pinParameters: /** @type {HTMLInputElement | null} */ (field("pin_parameters")),
    };
    this.error = /** @type {HTMLElement} */ (q("[data-comment-error]"));
    this.send = /** @type {HTMLButtonElement} */ (q("button[type=submit]"));
    q("[data-pin-frame]")?.addEventListener("click", () => this.pin(this.fields.start));
    q("[data-pin-end]")?.addEventListener("click", () => this.pin(this.fields.end));
    q("[data-pin-clear]")?.addEventListener("click", () => {
      this.fields.start.value = "";
      this.fields.end.value = "";
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.post();
    });
  }

  /**
   * Put the player's frame into `field` (nothing without a player).
   * @param {HTMLInputElement} field
   */
  pin(field) {
    const frame = this.currentFrame();
    if (frame == null) return;
    field.value = String(frame);
    this.form.dataset.pinned = this.fields.start.value;
  }

  values() {
    const { body, start, end, joint, pinParameters } = this.fields;
    return {
      body: body.value,
      frameStart: start.value,
      frameEnd: end.value,
      joint: joint?.value ?? "",
      pinParameters: Boolean(pinParameters?.checked),
    };
  }

  async post() {
    this.send.disabled = true;
    this.error.textContent = "";
    try {
      await this.submit(commentPayload(this.values(), this.parameters));
      this.form.reset();
      delete this.form.dataset.pinned;
    } catch (error) {
      this.error.textContent = messageOf(error);
    } finally {
      this.send.disabled = false;
    }
  }
}
