// @ts-check
// Run status: a view over the markup of templates/includes/run_status.html, and a poller
// of GET /api/v1/runs/{id}/ that feeds it until the run has finished.

import { getJson, runUrl } from "./api.js";

/**
 * A run as the API gives it (GET /api/v1/runs/{id}/); the fields shown.
 * @typedef {{id: number | string, status: string, progress?: number | null, stage?: string | null,
 *   error?: string | null}} Run
 */

/** @type {ReadonlySet<string | undefined>} */
export const FINISHED = new Set(["succeeded", "failed"]);

/** @type {Record<string, string | undefined>} */
const STATUS_LABELS = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
};

/** Updates one `.run-status` element in place (construct / update / dispose). */
export class RunStatusView {
  /** @param {HTMLElement} element the markup of templates/includes/run_status.html */
  constructor(element) {
    /** @type {HTMLElement | null} null once disposed */
    this.element = element;
    const part = (/** @type {string} */ role) => element.querySelector(`[data-role="${role}"]`);
    this.badge = /** @type {HTMLElement} */ (part("badge"));
    this.bar = /** @type {HTMLProgressElement} */ (part("bar"));
    this.pct = /** @type {HTMLElement} */ (part("pct"));
    this.stage = /** @type {HTMLElement} */ (part("stage"));
    this.error = /** @type {HTMLElement} */ (part("error"));
  }

  get runId() {
    return this.shown.dataset.runId;
  }

  get status() {
    return this.shown.dataset.status;
  }

  /** The element (a disposed view has none: using it is a bug). */
  get shown() {
    if (!this.element) throw new Error("this run status view was disposed");
    return this.element;
  }

  /**
   * Show `run` (the API's run JSON: status, progress, stage, error).
   * @param {Run} run
   */
  update(run) {
    const status = String(run.status);
    const progress = Math.max(0, Math.min(100, Math.round(Number(run.progress) || 0)));
    this.shown.dataset.runId = String(run.id);
    this.shown.dataset.status = status;
    this.badge.className = `badge badge--${status}`;
    this.badge.textContent = STATUS_LABELS[status] || status;
    this.bar.value = progress;
    this.bar.textContent = `${progress}%`;
    this.bar.setAttribute("aria-label", `Run ${run.id} progress`);
    this.pct.textContent = `${progress}%`;
    this.stage.textContent = run.stage || "";
    const failed = status === "failed" && run.error;
    this.error.hidden = !failed;
    this.error.textContent = failed ? String(run.error) : "";
  }

  dispose() {
    this.element = null;
  }
}

/**
 * Poll a run until it has finished. `onUpdate(run)` gets every answer; `onDone(run)` the
 * final one; `onError(error)` a failed request (polling goes on, slower, except for 401,
 * 403 and 404, which stop it). Returns `{ stop() }`.
 * @param {string | number} runId
 * @param {{onUpdate?: (run: Run) => void, onDone?: (run: Run) => void,
 *   onError?: (error: import("./api.js").ApiError) => void,
 *   intervalMs?: number, maxIntervalMs?: number}} handlers
 * @returns {{stop: () => void}}
 */
export function pollRun(runId, { onUpdate, onDone, onError, intervalMs = 700, maxIntervalMs = 5000 }) {
  const controller = new AbortController();
  let delay = intervalMs;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
  };

  const tick = async () => {
    try {
      /** @type {Run} */
      const run = await getJson(runUrl(runId), { signal: controller.signal });
      if (stopped) return;
      onUpdate?.(run);
      if (FINISHED.has(run.status)) {
        stopped = true;
        onDone?.(run);
        return;
      }
      delay = intervalMs;
    } catch (caught) {
      const error = /** @type {import("./api.js").ApiError} */ (caught); // getJson's, or fetch's
      if (stopped || error.name === "AbortError") return;
      onError?.(error);
      if ([401, 403, 404].includes(error.status ?? 0)) {
        stopped = true;
        return;
      }
      delay = Math.min(maxIntervalMs, delay * 2);
    }
    if (!stopped) timer = setTimeout(tick, delay);
  };

  tick();
  return { stop };
}
