// @ts-check
// The Walk page's list of generations (newest first): the server renders the past ones,
// new ones are added from <template id="walk-generation-template">; unfinished runs are
// polled (runs.js) and, once finished, the item is refreshed from
// GET /api/v1/pfnn/generations/{id}/ and its Play button enabled.
//
// Item markup: li[data-generation-id][data-status][data-viewer-url] holding a
// .run-status, [data-part=parameters], [data-part=measures], [data-play-generation],
// optionally [data-reuse], and for past ones the parameters as JSON
// (<script type="application/json">, Django's json_script).

import { getJson, messageOf, parseJson } from "../api.js";
import { all } from "../dom.js";
import { FINISHED, RunStatusView, pollRun } from "../runs.js";
import { measuresText, parametersText } from "./format.js";

/** @typedef {import("./format.js").Generation} Generation */
/** @typedef {import("./format.js").WalkParameters} WalkParameters */

/**
 * The element matching `selector` in an item (the item's markup has each one).
 * @template {Element} [T=HTMLElement]
 * @param {Element} element
 * @param {string} selector
 * @returns {T}
 */
function part(element, selector) {
  return /** @type {T} */ (element.querySelector(selector));
}

export class GenerationList {
  /**
   * @param {HTMLElement} root the list's section (data-generation-url: ".../generations/0/")
   * @param {{onPlay: (id: string) => void, onReuse?: (parameters: WalkParameters) => void,
   *          onError?: (message: string) => void}} handlers
   */
  constructor(root, { onPlay, onReuse, onError }) {
    this.root = root;
    this.list = part(root, "[data-generations]");
    this.empty = part(root, "[data-generations-empty]");
    this.template = /** @type {HTMLTemplateElement} */ (document.getElementById("walk-generation-template"));
    this.urlTemplate = root.dataset.generationUrl ?? "";
    this.handlers = { onPlay, onReuse, onError };
    /** @type {Map<string, WalkParameters>} */
    this.parameters = new Map();
    /** @type {Map<string, {stop: () => void}>} */
    this.pollers = new Map();
    for (const element of all(this.list, "li[data-generation-id]")) {
      const id = element.dataset.generationId ?? "";
      const json = element.querySelector('script[type="application/json"]');
      const parameters = parseJson(json?.textContent ?? "") ?? {};
      this.parameters.set(id, parameters);
      part(element, '[data-part="parameters"]').textContent = parametersText(parameters);
      this.bind(element);
      const view = new RunStatusView(part(element, ".run-status"));
      if (view.runId && !FINISHED.has(view.status)) this.follow(id, { id: view.runId, status: view.status });
    }
  }

  /**
   * GET URL of generation `id`.
   * @param {string | number} id
   */
  url(id) {
    return this.urlTemplate.replace(/\/0\/$/, `/${encodeURIComponent(id)}/`);
  }

  /**
   * The item of generation `id`, if it is in the list.
   * @param {string | number} id
   * @returns {HTMLElement | null}
   */
  item(id) {
    return this.list.querySelector(`li[data-generation-id="${CSS.escape(String(id))}"]`);
  }

  /** @param {HTMLElement} element an item */
  bind(element) {
    const id = element.dataset.generationId ?? "";
    part(element, "[data-play-generation]").addEventListener("click", () => this.handlers.onPlay(id));
    element.querySelector("[data-reuse]")?.addEventListener("click", () => {
      this.handlers.onReuse?.(this.parameters.get(id) ?? {});
    });
  }

  /**
   * Add a new generation (the API's JSON) at the top.
   * @param {Generation} generation
   */
  add(generation) {
    const element = /** @type {HTMLElement} */ (this.template.content.firstElementChild?.cloneNode(true));
    const id = String(generation.id);
    element.dataset.generationId = id;
    part(element, "[data-play-generation]").dataset.playGeneration = id;
    part(element, '[data-part="title"]').textContent = `Walk ${id}`;
    this.list.prepend(element);
    this.empty.hidden = true;
    this.bind(element);
    this.fill(generation);
    return element;
  }

  /**
   * Bring generation's item up to the API's JSON.
   * @param {Generation} generation
   */
  fill(generation) {
    const id = String(generation.id);
    const element = this.item(id);
    if (!element) return;
    this.parameters.set(id, generation.parameters ?? {});
    const run = generation.run ?? /** @type {import("../runs.js").Run} */ ({});
    new RunStatusView(part(element, ".run-status")).update(run);
    element.dataset.status = run.status ?? "";
    element.dataset.viewerUrl = generation.downloads?.["viewer.json"] ?? element.dataset.viewerUrl ?? "";
    part(element, '[data-part="parameters"]').textContent = parametersText(generation.parameters);
    part(element, '[data-part="measures"]').textContent = measuresText(generation.result);
    /** @type {HTMLButtonElement} */
    const play = part(element, "[data-play-generation]");
    play.disabled = !(run.status === "succeeded" && element.dataset.viewerUrl);
  }

  /**
   * Poll the run of generation `id` until it finishes, updating its item and `views`
   * (more RunStatusViews showing the same run); then `onDone(generation)`.
   * @param {string} id
   * @param {{id: number | string, status?: string}} run
   * @param {{views?: RunStatusView[], onDone?: (generation: Generation | null) => void}} [options]
   */
  follow(id, run, { views = [], onDone } = {}) {
    const element = /** @type {HTMLElement} */ (this.item(id)); // listed or added before
    const shown = [new RunStatusView(part(element, ".run-status")), ...views];
    this.pollers.get(id)?.stop();
    const poller = pollRun(run.id, {
      onUpdate: (latest) => {
        shown.forEach((view) => view.update(latest));
        element.dataset.status = latest.status;
      },
      onDone: async () => {
        this.pollers.delete(id);
        try {
          /** @type {Generation} */
          const generation = await getJson(this.url(id));
          this.fill(generation);
          onDone?.(generation);
        } catch (error) {
          this.handlers.onError?.(`Could not read walk ${id}: ${messageOf(error)}`);
          onDone?.(null);
        }
      },
      onError: (error) => {
        const fatal = [401, 403, 404].includes(error.status ?? 0); // pollRun stops
        this.handlers.onError?.(`Could not read the run's progress (${error.message})${fatal ? "" : "; retrying…"}`);
        if (fatal) {
          this.pollers.delete(id);
          onDone?.(null);
        }
      },
    });
    this.pollers.set(id, poller);
    return poller;
  }

  /**
   * Mark the item whose walk is in the player.
   * @param {string | number} id
   */
  markPlaying(id) {
    for (const element of all(this.list, "li[data-generation-id]")) {
      element.toggleAttribute("data-playing", element.dataset.generationId === String(id));
    }
  }

  dispose() {
    for (const poller of this.pollers.values()) poller.stop();
    this.pollers.clear();
  }
}
