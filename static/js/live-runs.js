// @ts-check
// Page script for the project and clip pages: every run shown as queued or running is
// polled until it finishes. With <body data-reload-when-runs-finish> (the clip page) the
// page reloads once they have all finished, so that the new downloads appear.

import { all } from "./dom.js";
import { FINISHED, RunStatusView, pollRun } from "./runs.js";

function init() {
  const views = all(document, ".run-status[data-run-id]")
    .map((element) => new RunStatusView(element))
    .filter((view) => view.runId && !FINISHED.has(view.status));
  if (views.length === 0) return;

  let pending = views.length;
  const reload = document.body.hasAttribute("data-reload-when-runs-finish");
  const finishedOne = () => {
    pending -= 1;
    if (pending === 0 && reload) window.location.reload();
  };

  // One poller per run id; several elements may show the same run.
  /** @type {Map<string, RunStatusView[]>} */
  const byRun = new Map();
  for (const view of views) {
    const runId = view.runId ?? ""; // the filter above kept those with one
    let group = byRun.get(runId);
    if (!group) {
      group = [];
      byRun.set(runId, group);
    }
    group.push(view);
  }
  pending = byRun.size;
  for (const [runId, group] of byRun) {
    pollRun(runId, {
      onUpdate: (run) => group.forEach((view) => view.update(run)),
      onDone: finishedOne,
    });
  }
}

init();
