// The Walk page's list of generations (newest first): the server renders the past ones,
// new ones are added from <template id="walk-generation-template">; unfinished runs are
// polled (runs.js) and, once finished, the item is refreshed from
// GET /api/v1/pfnn/generations/{id}/ and its Play button enabled.
//
// Item markup: li[data-generation-id][data-status][data-viewer-url] holding a
// .run-status, [data-part=parameters], [data-part=measures], [data-play-generation],
// optionally [data-reuse], and for past ones the parameters as JSON
// (<script type="application/json">, Django's json_script).

import { getJson, parseJson } from "../api.js";
import { FINISHED, RunStatusView, pollRun } from "../runs.js";
import { measuresText, parametersText } from "./format.js";

export class GenerationList {
  /**
   * @param {HTMLElement} root the list's section (data-generation-url: ".../generations/0/")
   * @param {{onPlay: (id: string) => void, onReuse?: (parameters: object) => void,
   *          onError?: (message: string) => void}} handlers
   */
  constructor(root, { onPlay, onReuse, onError }) {
    this.root = root;
    this.list = root.querySelector("[data-generations]");
    this.empty = root.querySelector("[data-generations-empty]");
    this.template = document.getElementById("walk-generation-template");
    this.urlTemplate = root.dataset.generationUrl;
    this.handlers = { onPlay, onReuse, onError };
    this.parameters = new Map();
    this.pollers = new Map();
    for (const element of this.list.querySelectorAll("li[data-generation-id]")) {
      const id = element.dataset.generationId;
      const json = element.querySelector('script[type="application/json"]');
      this.parameters.set(id, parseJson(json?.textContent ?? "") ?? {});
      element.querySelector('[data-part="parameters"]').textContent = parametersText(this.parameters.get(id));
      this.bind(element);
      const view = new RunStatusView(element.querySelector(".run-status"));
      if (view.runId && !FINISHED.has(view.status)) this.follow(id, { id: view.runId, status: view.status });
    }
  }

  /** GET URL of generation `id`. */
  url(id) {
    return this.urlTemplate.replace(/\/0\/$/, `/${encodeURIComponent(id)}/`);
  }

  item(id) {
    return this.list.querySelector(`li[data-generation-id="${CSS.escape(String(id))}"]`);
  }

  bind(element) {
    const id = element.dataset.generationId;
    element.querySelector("[data-play-generation]").addEventListener("click", () => this.handlers.onPlay(id));
    element.querySelector("[data-reuse]")?.addEventListener("click", () => {
      this.handlers.onReuse?.(this.parameters.get(id));
    });
  }

  /** Add a new generation (the API's JSON) at the top. */
  add(generation) {
    const element = this.template.content.firstElementChild.cloneNode(true);
    const id = String(generation.id);
    element.dataset.generationId = id;
    element.querySelector("[data-play-generation]").dataset.playGeneration = id;
    element.querySelector('[data-part="title"]').textContent = `Walk ${id}`;
    this.list.prepend(element);
    this.empty.hidden = true;
    this.bind(element);
    this.fill(generation);
    return element;
  }

  /** Bring generation's item up to the API's JSON. */
  fill(generation) {
    const id = String(generation.id);
    const element = this.item(id);
    if (!element) return;
    this.parameters.set(id, generation.parameters ?? {});
    const run = generation.run ?? {};
    new RunStatusView(element.querySelector(".run-status")).update(run);
    element.dataset.status = run.status ?? "";
    element.dataset.viewerUrl = generation.downloads?.["viewer.json"] ?? element.dataset.viewerUrl ?? "";
    element.querySelector('[data-part="parameters"]').textContent = parametersText(generation.parameters);
    element.querySelector('[data-part="measures"]').textContent = measuresText(generation.result);
    const play = element.querySelector("[data-play-generation]");
    play.disabled = !(run.status === "succeeded" && element.dataset.viewerUrl);
  }

  /**
   * Poll the run of generation `id` until it finishes, updating its item and `views`
   * (more RunStatusViews showing the same run); then `onDone(generation)`.
   */
  follow(id, run, { views = [], onDone } = {}) {
    const element = this.item(id);
    const all = [new RunStatusView(element.querySelector(".run-status")), ...views];
    this.pollers.get(id)?.stop();
    const poller = pollRun(run.id, {
      onUpdate: (latest) => {
        all.forEach((view) => view.update(latest));
        element.dataset.status = latest.status;
      },
      onDone: async () => {
        this.pollers.delete(id);
        try {
          const generation = await getJson(this.url(id));
          this.fill(generation);
          onDone?.(generation);
        } catch (error) {
          this.handlers.onError?.(`Could not read walk ${id}: ${error.message}`);
          onDone?.(null);
        }
      },
      onError: (error) => {
        const fatal = [401, 403, 404].includes(error.status); // pollRun stops
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

  /** Mark the item whose walk is in the player. */
  markPlaying(id) {
    for (const element of this.list.querySelectorAll("li[data-generation-id]")) {
      element.toggleAttribute("data-playing", element.dataset.generationId === String(id));
    }
  }

  dispose() {
    for (const poller of this.pollers.values()) poller.stop();
    this.pollers.clear();
  }
}
