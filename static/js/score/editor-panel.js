// @ts-check
// The score page's editor panel: the staff editor (staff-editor.js) on the page's staff,
// the live animation of each change (live-preview.js), saving the edited score as the
// next version (POST scores/{id}/versions/, then the new version's page) and
// downloading it as JSON.
//
// The panel ([data-editor]) gives data-preview-url and data-versions-url; it carries
// data-state ("ready", "waiting", "animating", "invalid", "failed"), data-previews (the
// animations shown so far), data-preview-ms (the last one's synthesis, ms),
// data-revision and data-selected (staff-editor.js) for tests and people.

import { messageOf, sendJson } from "../api.js";
import { ScoreEdits } from "./edits.js";
import { LivePreview } from "./live-preview.js";
import { StaffEditor } from "./staff-editor.js";

/** @typedef {import("./format.js").Score} Score */
/** @typedef {import("./live-preview.js").Preview} Preview */
/** @typedef {import("./staff-view.js").StaffView} StaffView */

/**
 * @param {HTMLElement} panel
 * @param {string} selector
 */
const part = (panel, selector) => /** @type {HTMLElement} */ (panel.querySelector(selector));

/**
 * A file download of `text` named `name`.
 * @param {string} text
 * @param {string} name
 */
function download(text, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/**
 * Start editing `score` on `staff`; `onAnimation` shows each change's animation.
 * @param {{panel: HTMLElement, keys: HTMLElement, staff: StaffView, score: Score,
 *   currentBeat: () => number, onAnimation: (preview: Preview, score: Score) => void}} options
 *   onAnimation: an edit's animation and the edited score it was made from
 */
export function startEditor({ panel, keys, staff, score, currentBeat, onAnimation }) {
  const status = part(panel, "[data-editor-status]");
  const save = /** @type {HTMLButtonElement} */ (part(panel, "[data-save]"));
  const edits = new ScoreEdits(score);
  let previews = 0;
  const setState = (/** @type {string} */ state, /** @type {string} */ text) => {
    panel.dataset.state = state;
    status.textContent = text;
  };
  const preview = new LivePreview(panel.dataset.previewUrl ?? "", {
    onAnimation: (made, score) => {
      onAnimation(made, score);
      previews += 1;
      panel.dataset.previews = String(previews);
      panel.dataset.previewMs = String(made.synthesis_ms);
      setState("ready", `Animated the edited score (${made.synthesis_ms.toFixed(0)} ms on the server). Save it to keep it.`);
    },
    onProblems: (problems) => editor.setProblems(problems),
    onState: setState,
  });
  const editor = new StaffEditor({
    root: panel,
    keys,
    staff,
    edits,
    currentBeat,
    onEdit: () => {
      save.disabled = edits.revision === 0;
      preview.schedule(edits.score, edits.revision);
    },
  });
  save.disabled = true;
  save.addEventListener("click", async () => {
    save.disabled = true;
    setState("saving", "Saving the score as a new version…");
    try {
      const made = await sendJson(panel.dataset.versionsUrl ?? "", { body: { score: edits.score } });
      window.location.assign(new URL(`../${made.id}/`, window.location.href).href);
    } catch (error) {
      setState("failed", `Not saved: ${messageOf(error)}`);
      save.disabled = false;
    }
  });
  part(panel, "[data-download]").addEventListener("click", () => {
    const name = (panel.dataset.name ?? "score").replace(/\.[^.]*$/, "");
    download(`${JSON.stringify(edits.score, null, 1)}\n`, `${name}-edited.json`);
  });
  panel.hidden = false;
  staff.container.classList.add("score-staff--editing");
  panel.dataset.previews = "0";
  setState("ready", "Edit the score: the player shows each change.");
  return editor;
}
