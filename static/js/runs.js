// Run status: a view over the markup of templates/includes/run_status.html, and a poller
// of GET /api/v1/runs/{id}/ that feeds it until the run has finished.

import { getJson, runUrl } from "./api.js";

export const FINISHED = new Set(["succeeded", "failed"]);

const STATUS_LABELS = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
};

/** Updates one `.run-status` element in place (construct / update / dispose). */
export class RunStatusView {
  constructor(element) {
    this.element = element;
    this.badge = element.querySelector('[data-role="badge"]');
    this.bar = element.querySelector('[data-role="bar"]');
    this.pct = element.querySelector('[data-role="pct"]');
    this.stage = element.querySelector('[data-role="stage"]');
    this.error = element.querySelector('[data-role="error"]');
  }

  get runId() {
    return this.element.dataset.runId;
  }

  get status() {
    return this.element.dataset.status;
  }

  /** Show `run` (the API's run JSON: status, progress, stage, error). */
  update(run) {
    const status = String(run.status);
    const progress = Math.max(0, Math.min(100, Math.round(Number(run.progress) || 0)));
    this.element.dataset.runId = String(run.id);
    this.element.dataset.status = status;
    this.badge.className = `badge badge--${status}`;
    this.badge.textContent = STATUS_LABELS[status] || status;
    this.bar.value = progress;
    this.bar.textContent = `${progress}%`;
    this.bar.setAttribute("aria-label", `Run ${run.id} progress`);
    this.pct.textContent = `${progress}%`;
    this.stage.textContent = run.stage || "";
    const failed = status === "failed" && run.error;
    this.error.hidden = !failed;
    this.error.textContent = failed ? run.error : "";
  }

  dispose() {
    this.element = null;
  }
}

/**
 * Poll a run until it has finished. `onUpdate(run)` gets every answer; `onDone(run)` the
 * final one; `onError(error)` a failed request (polling goes on, slower, except for 401,
 * 403 and 404, which stop it). Returns `{ stop() }`.
 */
export function pollRun(runId, { onUpdate, onDone, onError, intervalMs = 700, maxIntervalMs = 5000 }) {
  const controller = new AbortController();
  let delay = intervalMs;
  let timer = null;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    controller.abort();
  };

  const tick = async () => {
    try {
      const run = await getJson(runUrl(runId), { signal: controller.signal });
      if (stopped) return;
      onUpdate?.(run);
      if (FINISHED.has(run.status)) {
        stopped = true;
        onDone?.(run);
        return;
      }
      delay = intervalMs;
    } catch (error) {
      if (stopped || error.name === "AbortError") return;
      onError?.(error);
      if ([401, 403, 404].includes(error.status)) {
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
