// Page script for the project and clip pages: every run shown as queued or running is
// polled until it finishes. With <body data-reload-when-runs-finish> (the clip page) the
// page reloads once they have all finished, so that the new downloads appear.

import { FINISHED, RunStatusView, pollRun } from "./runs.js";

function init() {
  const views = [...document.querySelectorAll(".run-status[data-run-id]")]
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
  const byRun = new Map();
  for (const view of views) {
    if (!byRun.has(view.runId)) byRun.set(view.runId, []);
    byRun.get(view.runId).push(view);
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
