// @ts-check
// Small DOM helpers the page scripts and widgets share.

/**
 * The 2-D context of `canvas` (a canvas has one unless it already holds another kind).
 * @param {HTMLCanvasElement} canvas
 * @returns {CanvasRenderingContext2D}
 */
export function context2d(canvas) {
  const context = canvas.getContext("2d");
  if (!context) throw new Error("this browser gives the canvas no 2-D context");
  return context;
}

/**
 * The elements matching `selector` inside `root` (none without a root), as an array.
 * @template {Element} [T=HTMLElement] what the markup puts there
 * @param {ParentNode | null | undefined} root
 * @param {string} selector
 * @returns {T[]}
 */
export function all(root, selector) {
  return root ? /** @type {T[]} */ ([...root.querySelectorAll(selector)]) : [];
}

/**
 * Fill a <dl> with [label, value, note] rows, each a <div><dt>label</dt><dd>value</dd></div>
 * (the note, when there is one, as the label's tooltip).
 * @param {HTMLElement} list
 * @param {Array<[string, string, string]>} rows
 */
export function termRows(list, rows) {
  list.replaceChildren(...rows.map(([label, value, note]) => {
    const row = document.createElement("div");
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = label;
    dd.textContent = value;
    if (note) dt.title = note;
    row.append(dt, dd);
    return row;
  }));
}

/**
 * A copy of the first element of the page's <template id="`id`">.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function cloneTemplate(id) {
  const template = /** @type {HTMLTemplateElement} */ (document.getElementById(id));
  return /** @type {HTMLElement} */ (template.content.firstElementChild?.cloneNode(true));
}
