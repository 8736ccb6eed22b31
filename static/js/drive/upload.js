// @ts-check
// Sending a recording: POST /api/v1/motornerve/drives/ with the timeline, the rig clip
// and record=true, then GET drives/{id}/ until its run has finished (its progress in a
// run-status view), then a link to the new clip (result.recorded_clip). Every refusal
// (400 naming the field, 403, 404, 409) is shown as the API worded it.

import { errorMessage, getJson, messageOf, sendJson } from "../api.js";
import { cloneTemplate } from "../dom.js";
import { FINISHED, RunStatusView } from "../runs.js";

/**
 * A drive as the API gives it (DriveSerializer), as far as the page reads it.
 * @typedef {{id: number, run: import("../runs.js").Run, result?: {recorded_clip?: number}}} Drive
 */
/**
 * @typedef {object} UploadElements
 * @property {HTMLElement} run where the run's status goes
 * @property {HTMLElement} message
 * @property {HTMLElement} link where the link to the new clip goes
 * @property {HTMLElement} error
 */

const POLL_MS = 700;
const MAX_POLL_MS = 5000;

/**
 * "timeline.keys[3].t: must be later than …" lines of a validation error's `fields`.
 * @param {unknown} fields
 * @param {string} [prefix]
 * @returns {string[]}
 */
export function fieldErrors(fields, prefix = "") {
  if (Array.isArray(fields)) return [`${prefix}: ${fields.map(String).join(" ")}`];
  if (!fields || typeof fields !== "object") return prefix ? [`${prefix}: ${String(fields)}`] : [];
  return Object.entries(fields).flatMap(([name, value]) => fieldErrors(value, prefix ? `${prefix}.${name}` : name));
}

/**
 * The sentence for a refused request: the API's message, with the fields a 400 names.
 * @param {import("../api.js").ApiError} error
 */
export function refusal(error) {
  const body = /** @type {{error?: {details?: {fields?: unknown}}} | null | undefined} */ (error.body);
  const fields = fieldErrors(body?.error?.details?.fields);
  const status = error.status ? ` (HTTP ${error.status})` : "";
  return fields.length ? `${error.message}${status} ${fields.join("; ")}` : `${error.message}${status}`;
}

export class RecordingUpload {
  /**
   * @param {UploadElements} elements
   * @param {{drives: string, drive: string, clip: string}} urls the POST URL and the
   *   drive's and clip's URLs with id 0
   */
  constructor(elements, urls) {
    this.ui = elements;
    this.urls = urls;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.busy = false;
  }

  /**
   * Send a recording; resolves once its run has finished (or it was refused).
   * @param {Record<string, unknown>} body the POST's body
   * @returns {Promise<Drive | null>}
   */
  async send(body) {
    this.busy = true;
    this.say("Sending the recording…");
    this.ui.link.hidden = true;
    try {
      /** @type {Drive} */
      const drive = await sendJson(this.urls.drives, { body });
      return await this.follow(drive);
    } catch (caught) {
      const error = /** @type {import("../api.js").ApiError} */ (caught);
      this.say("", error.status ? refusal(error) : `The server could not be reached: ${messageOf(error)}`);
      return null;
    } finally {
      this.busy = false;
    }
  }

  /**
   * Show the drive's run until it has finished.
   * @param {Drive} drive
   * @returns {Promise<Drive>}
   */
  async follow(drive) {
    const view = new RunStatusView(cloneTemplate("run-status-template"));
    this.ui.run.replaceChildren(view.shown);
    this.ui.run.hidden = false;
    view.update(drive.run);
    this.say(`Drive ${drive.id}: the server is playing the recording on the rig…`);
    const url = this.urls.drive.replace(/\/0\/$/, `/${drive.id}/`);
    let current = drive;
    let delay = POLL_MS;
    while (!FINISHED.has(current.run.status)) {
      await new Promise((resolve) => { this.timer = setTimeout(resolve, delay); });
      try {
        current = await getJson(url);
        view.update(current.run);
        delay = POLL_MS;
      } catch (caught) {
        const error = /** @type {import("../api.js").ApiError} */ (caught);
        if ([401, 403, 404].includes(error.status ?? 0)) throw error;
        delay = Math.min(MAX_POLL_MS, 2 * delay);
      }
    }
    this.done(current);
    return current;
  }

  /** @param {Drive} drive a finished drive */
  done(drive) {
    const clip = drive.result?.recorded_clip;
    if (drive.run.status !== "succeeded" || clip == null) {
      this.say("", `Drive ${drive.id} could not be recorded: ${drive.run.error || errorMessage(null, 0)}`);
      return;
    }
    const link = document.createElement("a");
    link.href = this.urls.clip.replace(/\/0\/$/, `/${clip}/`);
    link.textContent = "Open the recorded clip";
    link.dataset.recordedClip = String(clip);
    link.dataset.drive = String(drive.id);
    this.ui.link.replaceChildren(link, " (its own pipeline runs next: cleaning and analysis)");
    this.ui.link.hidden = false;
    this.say(`Drive ${drive.id} is a new clip of the project.`);
  }

  /** @param {string} message @param {string} [error] */
  say(message, error = "") {
    this.ui.message.textContent = message;
    this.ui.error.textContent = error;
    this.ui.error.hidden = !error;
  }

  dispose() {
    clearTimeout(this.timer);
  }
}
