// @ts-check
// Forms marked data-confirm="question" ask before they submit (removing a member,
// leaving a project). Without script they submit at once; the server decides either way.

import { all } from "./dom.js";

/**
 * Ask `form`'s question on submit; a "no" cancels the submission.
 * @param {HTMLFormElement} form
 */
function guard(form) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm ?? "")) event.preventDefault();
  });
}

/** @type {HTMLFormElement[]} */ (all(document, "form[data-confirm]")).forEach(guard);
