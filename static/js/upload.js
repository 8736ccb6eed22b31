// @ts-check
// Upload page: drag-and-drop or pick .bvh files; each is sent with XMLHttpRequest to
// POST /api/v1/projects/{id}/clips/ (session cookie + X-CSRFToken) with upload progress,
// then its run is polled (GET /api/v1/runs/{id}/) until it succeeded or failed.

import { csrfToken, errorMessage, formatBytes, parseJson } from "./api.js";
import { cloneTemplate } from "./dom.js";
import { RunStatusView, pollRun } from "./runs.js";

/** @typedef {import("./runs.js").Run} Run */
/** @typedef {{id: number, name: string, frames: number, fps: number, duration_s: number, latest_run?: Run | null}} Clip */
/** @typedef {{list: HTMLElement, uploadUrl: string, clipUrl: string, maxBytes: number}} UploadOptions */

const ACCEPTED = /\.bvh$/i;

/** One file's row: upload progress, then the run's progress, then a link or the error. */
class UploadItem {
  /**
   * @param {File} file
   * @param {UploadOptions} options
   */
  constructor(file, { list, uploadUrl, clipUrl, maxBytes }) {
    this.file = file;
    this.uploadUrl = uploadUrl;
    this.clipUrl = clipUrl;
    this.maxBytes = maxBytes;
    /** @type {{stop: () => void} | null} */
    this.poller = null;
    /** @type {XMLHttpRequest | null} */
    this.xhr = null;
    /** @type {RunStatusView | null} */
    this.runView = null;

    this.element = cloneTemplate("upload-item-template");
    /** @type {Record<string, HTMLElement>} the template's [data-role] elements by role */
    this.parts = Object.fromEntries(
      [...this.element.querySelectorAll("[data-role]")].map((el) => [/** @type {HTMLElement} */ (el).dataset.role, el]),
    );
    this.parts.name.textContent = file.name;
    this.parts.size.textContent = formatBytes(file.size);
    this.parts["upload-bar"].setAttribute("aria-label", `Upload of ${file.name}`);
    list.prepend(this.element);
  }

  /** Check, send, then follow the run. */
  start() {
    if (!ACCEPTED.test(this.file.name)) {
      this.fail("Only .bvh files can be uploaded.");
      return;
    }
    if (this.maxBytes && this.file.size > this.maxBytes) {
      this.fail(`The file is larger than the ${formatBytes(this.maxBytes)} limit.`);
      return;
    }
    if (this.file.size === 0) {
      this.fail("The file is empty.");
      return;
    }
    this.send();
  }

  send() {
    const xhr = new XMLHttpRequest();
    this.xhr = xhr;
    const body = new FormData();
    body.append("file", this.file, this.file.name);
    xhr.open("POST", this.uploadUrl);
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.setRequestHeader("Accept", "application/json");
    if (window.crypto?.randomUUID) xhr.setRequestHeader("Idempotency-Key", window.crypto.randomUUID());
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) this.uploadProgress(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => this.uploaded(xhr.status, parseJson(xhr.responseText)));
    xhr.addEventListener("error", () => this.fail("The upload failed: the server could not be reached."));
    xhr.addEventListener("abort", () => this.fail("The upload was cancelled."));
    this.say(`Uploading ${this.file.name}…`);
    xhr.send(body);
  }

  /** @param {number} fraction */
  uploadProgress(fraction) {
    const percent = Math.round(100 * fraction);
    /** @type {HTMLProgressElement} */ (this.parts["upload-bar"]).value = percent;
    this.parts["upload-pct"].textContent = `${percent}%`;
    if (percent === 100) this.say("Uploaded; validating the file…");
  }

  /**
   * @param {number} status the HTTP status
   * @param {{clip?: Clip | null, run?: Run | null} | null} body the parsed answer (or an error's)
   */
  uploaded(status, body) {
    this.xhr = null;
    if (status !== 200 && status !== 201) {
      this.fail(errorMessage(body, status));
      return;
    }
    this.uploadProgress(1);
    const clip = body?.clip;
    const run = body?.run || clip?.latest_run || null;
    if (clip) this.showLink(clip);
    if (status === 200) {
      this.say("These exact bytes are already in the project: showing the existing clip.");
    } else {
      this.say(`Validated: ${clip ? `${clip.frames} frames at ${Number(clip.fps).toFixed(2)} fps, ${Number(clip.duration_s).toFixed(2)} s` : "stored"}. Processing…`);
    }
    if (run && typeof run === "object" && run.id != null) this.follow(run);
  }

  /** @param {Run} run */
  follow(run) {
    const element = cloneTemplate("run-status-template");
    this.parts["run-slot"].replaceChildren(element);
    this.parts["run-row"].hidden = false;
    const runView = new RunStatusView(element);
    this.runView = runView;
    runView.update(run);
    this.poller = pollRun(run.id, {
      onUpdate: (latest) => runView.update(latest),
      onDone: (latest) => {
        this.poller = null;
        if (latest.status === "succeeded") {
          this.say("Done: the cleaned clip and its downloads are ready.");
        } else {
          this.fail(latest.error || "The run failed.");
        }
      },
      onError: (error) => this.say(`Could not read the run's progress (${error.message}); retrying…`),
    });
  }

  /** @param {Clip} clip */
  showLink(clip) {
    const link = /** @type {HTMLAnchorElement} */ (this.parts.link.querySelector("a"));
    link.href = this.clipUrl.replace(/\/0\/$/, `/${clip.id}/`);
    link.textContent = `Open ${clip.name}: its report and downloads`;
    this.parts.link.hidden = false;
  }

  /** @param {string} message */
  say(message) {
    this.parts.message.textContent = message;
  }

  /** @param {string} message */
  fail(message) {
    this.element.classList.add("upload-item--failed");
    this.parts.message.textContent = "";
    this.parts.error.textContent = message;
    this.parts.error.hidden = false;
  }

  dispose() {
    this.poller?.stop();
    this.xhr?.abort();
    this.runView?.dispose();
  }
}

function init() {
  /** @type {HTMLElement | null} */
  const section = document.querySelector(".upload[data-upload-url]");
  if (!section) return;
  /**
   * The section's element with `role` (the template has each one).
   * @template {Element} [T=HTMLElement]
   * @param {string} role
   * @returns {T}
   */
  const part = (role) => /** @type {T} */ (section.querySelector(`[data-role="${role}"]`));
  const dropzone = part("dropzone");
  /** @type {HTMLInputElement} */
  const input = part("input");
  const listTitle = part("list-title");
  /** @type {UploadOptions} */
  const options = {
    list: part("list"),
    uploadUrl: section.dataset.uploadUrl ?? "",
    clipUrl: section.dataset.clipUrl ?? "",
    maxBytes: Number(section.dataset.maxBytes) || 0,
  };
  /** @type {UploadItem[]} */
  const items = [];

  const accept = (/** @type {File[]} */ files) => {
    if (!files || files.length === 0) return;
    listTitle.hidden = false;
    for (const file of files) {
      const item = new UploadItem(file, options);
      items.push(item);
      item.start();
    }
  };

  input.addEventListener("change", () => {
    accept([...(input.files ?? [])]);
    input.value = ""; // the same file can be chosen again
  });
  bindDropzone(dropzone, accept);
  // A file dropped outside the zone must not make the browser navigate away.
  window.addEventListener("dragover", (event) => event.preventDefault());
  window.addEventListener("drop", (event) => event.preventDefault());
  window.addEventListener("pagehide", () => items.forEach((item) => item.dispose()));
}

/**
 * Files dropped on the zone go to `accept`; the zone is highlighted while they are over it.
 * @param {HTMLElement} dropzone
 * @param {(files: File[]) => void} accept
 */
function bindDropzone(dropzone, accept) {
  let depth = 0; // dragenter/dragleave fire for children too
  dropzone.addEventListener("dragenter", (event) => {
    event.preventDefault();
    depth += 1;
    dropzone.classList.add("dropzone--active");
  });
  dropzone.addEventListener("dragover", (event) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
  });
  dropzone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) dropzone.classList.remove("dropzone--active");
  });
  dropzone.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    dropzone.classList.remove("dropzone--active");
    accept([...(event.dataTransfer?.files ?? [])]);
  });
}

init();
