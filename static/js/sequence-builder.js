// @ts-check
// The sequence builder: the project's clips put on a timeline in playing order. "Add"
// appends a clip; each timeline item can be dragged to another place (HTML drag and
// drop), moved with its ↑ ↓ buttons or taken off (×). The form posts the clip ids in
// order as repeated `clips` fields. Hooks for tests: [data-timeline][data-count].

const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-sequence-form]"));
const timeline = /** @type {HTMLOListElement | null} */ (document.querySelector("[data-timeline]"));
const render = /** @type {HTMLButtonElement | null} */ (document.querySelector("[data-render]"));
const MAX_CLIPS = 32;
/** @type {HTMLLIElement | null} the item being dragged */
let dragged = null;

/**
 * A small button of a timeline item.
 * @param {string} text
 * @param {string} label
 * @param {() => void} action
 */
function button(text, label, action) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "button button--quiet";
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", action);
  return b;
}

/** Renumber the items and enable rendering for 2 to 32 clips. */
function refresh() {
  if (!timeline) return;
  const items = [...timeline.children];
  items.forEach((item, i) => {
    const number = item.querySelector("[data-number]");
    if (number) number.textContent = `${i + 1}.`;
  });
  timeline.dataset.count = String(items.length);
  if (render) render.disabled = items.length < 2 || items.length > MAX_CLIPS;
}

/**
 * Move `item` by `step` places (−1 up, +1 down).
 * @param {HTMLLIElement} item
 * @param {number} step
 */
function move(item, step) {
  const sibling = step < 0 ? item.previousElementSibling : item.nextElementSibling;
  if (!sibling) return;
  if (step < 0) sibling.before(item);
  else sibling.after(item);
  refresh();
}

/**
 * A timeline item for clip `id` called `name`.
 * @param {string} id
 * @param {string} name
 */
function item(id, name) {
  const li = document.createElement("li");
  li.className = "sequence-timeline__item";
  li.draggable = true;
  li.dataset.clip = id;
  const number = document.createElement("span");
  number.dataset.number = "";
  const label = document.createElement("span");
  label.className = "sequence-timeline__name";
  label.textContent = name;
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = "clips";
  input.value = id;
  li.append(number, label, input);
  li.append(
    button("↑", `Move ${name} earlier`, () => move(li, -1)),
    button("↓", `Move ${name} later`, () => move(li, 1)),
    button("×", `Take ${name} off the timeline`, () => {
      li.remove();
      refresh();
    }),
  );
  li.addEventListener("dragstart", (event) => {
    dragged = li;
    li.classList.add("is-dragged");
    event.dataTransfer?.setData("text/plain", id);
  });
  li.addEventListener("dragend", () => {
    li.classList.remove("is-dragged");
    dragged = null;
    refresh();
  });
  li.addEventListener("dragover", (event) => {
    if (!dragged || dragged === li) return;
    event.preventDefault();
    const box = li.getBoundingClientRect();
    if (event.clientY < box.top + box.height / 2) li.before(dragged);
    else li.after(dragged);
  });
  li.addEventListener("drop", (event) => {
    event.preventDefault();
    refresh();
  });
  return li;
}

if (form && timeline) {
  for (const add of document.querySelectorAll("[data-add]")) {
    const b = /** @type {HTMLButtonElement} */ (add);
    b.addEventListener("click", () => {
      if (timeline.children.length >= MAX_CLIPS) return;
      timeline.append(item(b.dataset.add ?? "", b.dataset.name ?? ""));
      refresh();
    });
  }
  refresh();
}
