// @ts-check
// The editor's animation: after each change (debounced), the edited score goes to the
// server's preview (POST scores/{id}/preview/), which animates it without storing it;
// a newer change cancels the request in flight, and an answer for an older score is
// dropped. The answer is the animation's viewer arrays and footprints, or the problems
// with the score (400 invalid_score, each naming its symbol).

import { messageOf, sendJson } from "../api.js";

/** @typedef {import("./format.js").Score} Score */
/**
 * @typedef {{viewer: import("../viewer/arrays.js").ViewerArrays,
 *   animation: import("./format.js").Footprints, synthesis_ms: number}} Preview
 */

export const DEBOUNCE_MS = 250;

export class LivePreview {
  /**
   * @param {string} url the preview endpoint
   * @param {{onAnimation: (preview: Preview, score: Score) => void,
   *   onProblems: (problems: string[]) => void, onState: (state: string, text: string) => void}} handlers
   */
  constructor(url, { onAnimation, onProblems, onState }) {
    this.url = url;
    this.handlers = { onAnimation, onProblems, onState };
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {AbortController | null} */
    this.inFlight = null;
    this.latest = -1;
  }

  /**
   * Animate `score` (revision `revision` of the edits) once no change has come for
   * DEBOUNCE_MS.
   * @param {Score} score
   * @param {number} revision
   */
  schedule(score, revision) {
    this.latest = revision;
    clearTimeout(this.timer);
    this.handlers.onState("waiting", "Changed: animating when you pause…");
    const body = { score: JSON.parse(JSON.stringify(score)) };
    this.timer = setTimeout(() => this.send(body, revision), DEBOUNCE_MS);
  }

  /**
   * @param {{score: Score}} body
   * @param {number} revision
   */
  async send(body, revision) {
    this.inFlight?.abort();
    const controller = new AbortController();
    this.inFlight = controller;
    this.handlers.onState("animating", "Animating the edited score…");
    try {
      const preview = /** @type {Preview} */ (await sendJson(this.url, { body, signal: controller.signal }));
      if (revision !== this.latest) return;
      this.handlers.onProblems([]);
      this.handlers.onAnimation(preview, body.score);
    } catch (error) {
      if (controller.signal.aborted || revision !== this.latest) return;
      const answer = /** @type {{body?: {error?: {details?: {problems?: string[]}}}}} */ (error).body;
      const problems = answer?.error?.details?.problems;
      if (problems?.length) {
        this.handlers.onProblems(problems);
        this.handlers.onState("invalid", `The score has ${problems.length} problem${problems.length === 1 ? "" : "s"} (marked on the staff): the player shows the last valid animation.`);
      } else {
        this.handlers.onState("failed", `Not animated: ${messageOf(error)}`);
      }
    } finally {
      if (this.inFlight === controller) this.inFlight = null;
    }
  }
}
