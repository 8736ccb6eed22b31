// The proposal page's comment form: the text, "Pin to this frame" (the player's frame
// shown now) with an optional range end, a joint, and the proposal's parameters. It
// builds the API's body (pins.js commentPayload) and hands it to `submit`; an error is
// shown in the form and nothing is cleared.

import { commentPayload } from "./pins.js";

export class CommentForm {
  /**
   * @param {HTMLFormElement} form the [data-comment-form] markup
   * @param {{parameters: object, currentFrame: () => number | null,
   *          submit: (payload: object) => Promise<void>}} options
   */
  constructor(form, { parameters, currentFrame, submit }) {
    this.form = form;
    this.parameters = parameters;
    this.currentFrame = currentFrame;
    this.submit = submit;
    const q = (selector) => form.querySelector(selector);
    this.fields = {
      body: form.elements.body,
      start: form.elements.frame_start,
      end: form.elements.frame_end,
      joint: form.elements.joint,
      pinParameters: form.elements.pin_parameters,
    };
    this.error = q("[data-comment-error]");
    this.send = q("button[type=submit]");
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

  /** Put the player's frame into `field` (nothing without a player). */
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
      this.error.textContent = error.message;
    } finally {
      this.send.disabled = false;
    }
  }
}
