// @ts-check
// A proposal's thread drawn from the API's comments (top-level comments oldest first,
// each with its replies): author, version, time, the body with its @mentions marked,
// its pins (frames as buttons that seek, the joint, the parameters), resolve / reopen
// for those allowed (its author, editors, owners) and an inline reply form for
// commenters. The page script owns the data: it passes callbacks for seek, reply and
// resolve and calls `render` again with the new thread.

import { messageOf } from "../api.js";
import { frameText, mentionSegments, parameterText } from "./pins.js";

/** @typedef {import("./pins.js").Comment} Comment */
/** @typedef {{me: string, canComment: boolean, canResolveAll: boolean}} ThreadConfig who reads */

/**
 * @typedef {object} ThreadOptions
 * @property {ThreadConfig} config
 * @property {() => import("./pins.js").PinContext} ctx the player's frames and rates
 * @property {() => boolean} canSeek
 * @property {(comment: Comment) => void} onSeek show the comment's frames in the player
 * @property {(parentId: number, body: string) => Promise<void>} onReply
 * @property {(id: number, resolved: boolean) => Promise<void>} onResolve
 */

const WHEN = new Intl.DateTimeFormat("en-GB", {
  day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
});

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {string | null} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  return node;
}

/**
 * @param {string} text
 * @param {string} className
 * @param {Record<string, string>} [data] its data-* attributes
 */
function button(text, className, data = {}) {
  const node = element("button", `button button--quiet ${className}`, text);
  node.type = "button";
  Object.assign(node.dataset, data);
  return node;
}

/**
 * The reply form's text (openReply makes it).
 * @param {HTMLFormElement} form
 */
function textOf(form) {
  return /** @type {HTMLTextAreaElement} */ (form.elements.namedItem("body"));
}

export class ThreadView {
  /**
   * @param {HTMLElement} list the <ol> to fill
   * @param {ThreadOptions} options
   */
  constructor(list, options) {
    this.list = list;
    this.options = options;
    /** @type {Comment[]} */
    this.comments = [];
    /** @type {Map<number, Comment>} every comment and reply by id */
    this.byId = new Map();
    list.addEventListener("click", (event) => this.click(event));
    list.addEventListener("submit", (event) => this.submitReply(event));
  }

  /**
   * Draw the thread (the API's list of top-level comments).
   * @param {Comment[]} comments
   */
  render(comments) {
    this.comments = comments;
    this.byId = new Map();
    for (const c of comments) {
      this.byId.set(c.id, c);
      for (const r of c.replies ?? []) this.byId.set(r.id, r);
    }
    // a reply being written survives the redraw (the page draws the thread again when
    // its player has loaded), its draft and focus with it; one being sent does not
    const forms = /** @type {HTMLFormElement[]} */ ([...this.list.querySelectorAll("form.comment__reply")]);
    const open = forms.filter((form) => !form.hidden && form.dataset.sending !== "true");
    const focused = document.activeElement;
    this.list.replaceChildren(...comments.map((c) => this.item(c, false)));
    for (const form of open) {
      const li = this.list.querySelector(`li[data-comment-id="${form.dataset.parent}"]`);
      if (!li) continue;
      li.append(form);
      if (focused instanceof HTMLElement && form.contains(focused)) focused.focus();
    }
    this.list.dataset.comments = String(this.byId.size);
    /** @type {HTMLElement | null | undefined} */
    const empty = this.list.parentElement?.querySelector("[data-thread-empty]");
    if (empty) empty.hidden = comments.length > 0;
  }

  /**
   * @param {Comment} comment
   * @param {boolean} reply
   * @returns {HTMLLIElement}
   */
  item(comment, reply) {
    const { config } = this.options;
    const li = element("li", reply ? "comment comment--reply" : "comment");
    li.id = `comment-${comment.id}`;
    li.dataset.commentId = String(comment.id);
    if (comment.resolved_at) li.dataset.resolved = "true";
    const head = element("p", "comment__head small");
    head.append(element("strong", null, comment.author ?? "someone"));
    const version = element("span", "badge badge--plain", `v${comment.version}`);
    version.title = `made on version ${comment.version}`;
    head.append(" ", version, " ");
    const time = element("time", "muted", WHEN.format(new Date(comment.created_at)));
    time.dateTime = comment.created_at;
    head.append(time);
    if (comment.resolved_at) head.append(" ", element("span", "badge badge--plain badge--succeeded", `resolved by ${comment.resolved_by ?? "someone"}`));
    li.append(head, this.body(comment), this.pins(comment));
    if (!reply) {
      const actions = element("p", "comment__actions");
      if (config.canComment) actions.append(button("Reply", "", { reply: String(comment.id) }));
      if (config.canResolveAll || (config.canComment && comment.author === config.me)) {
        const resolved = Boolean(comment.resolved_at);
        actions.append(button(resolved ? "Reopen" : "Resolve", "", {
          resolve: String(comment.id), resolved: String(!resolved),
        }));
      }
      if (actions.childElementCount) li.append(actions);
      const replies = comment.replies ?? [];
      if (replies.length) {
        const ol = element("ol", "comment__replies");
        ol.append(...replies.map((r) => this.item(r, true)));
        li.append(ol);
      }
    }
    return li;
  }

  /** @param {Comment} comment */
  body(comment) {
    const p = element("p", "comment__body");
    for (const part of mentionSegments(comment.body, comment.mentions)) {
      p.append(part.mention ? element("mark", "mention", part.text) : part.text);
    }
    return p;
  }

  /** @param {Comment} comment */
  pins(comment) {
    const p = element("p", "comment__pins small");
    const frames = frameText(comment, this.options.ctx());
    if (frames) {
      const seek = button(`▶︎ ${frames}`, "comment__seek", { seekComment: String(comment.id) });
      seek.disabled = !this.options.canSeek();
      seek.title = "Show this frame in the player";
      p.append(seek);
    }
    if (comment.joint) p.append(element("span", "chip chip--joint", `joint ${comment.joint}`));
    const parameters = parameterText(comment.parameter_set);
    if (parameters) p.append(element("span", "chip", parameters));
    return p.childElementCount ? p : document.createTextNode("");
  }

  /** @param {MouseEvent} event */
  click(event) {
    const target = event.target instanceof Element ? event.target.closest("button") : null;
    if (!target) return;
    const { dataset } = target;
    if (dataset.seekComment) {
      const comment = this.byId.get(Number(dataset.seekComment));
      if (comment) this.options.onSeek(comment);
    } else if (dataset.reply) {
      const li = target.closest("li");
      if (li) this.openReply(li, Number(dataset.reply));
    } else if (dataset.resolve) {
      target.disabled = true;
      this.options.onResolve(Number(dataset.resolve), dataset.resolved === "true")
        .catch((error) => this.say(target.closest("li"), messageOf(error)))
        .finally(() => { target.disabled = false; });
    }
  }

  /**
   * @param {HTMLLIElement} li the comment
   * @param {number} parentId
   */
  openReply(li, parentId) {
    /** @type {HTMLFormElement | null} */
    let form = li.querySelector(":scope > form.comment__reply");
    if (!form) {
      form = element("form", "comment__reply");
      form.dataset.parent = String(parentId);
      const label = element("label", "visually-hidden", "Reply");
      const text = element("textarea");
      text.name = "body";
      text.rows = 2;
      text.required = true;
      text.id = `reply-${parentId}`;
      label.htmlFor = text.id;
      const send = element("button", "button", "Send reply");
      send.type = "submit";
      form.append(label, text, send, element("p", "comment__error small", ""));
      li.append(form);
    }
    form.hidden = false;
    textOf(form).focus();
  }

  /** @param {SubmitEvent} event */
  async submitReply(event) {
    /** @type {HTMLFormElement | null} */
    const form = event.target instanceof Element ? event.target.closest("form.comment__reply") : null;
    if (!form) return;
    event.preventDefault();
    const body = textOf(form).value;
    const send = /** @type {HTMLButtonElement} */ (form.querySelector("button"));
    send.disabled = true;
    form.dataset.sending = "true";
    try {
      await this.options.onReply(Number(form.dataset.parent), body);
    } catch (error) {
      this.say(form, messageOf(error));
      send.disabled = false;
    } finally {
      delete form.dataset.sending;
    }
  }

  /**
   * Show `message` under the comment or form `where`.
   * @param {Element | null} where
   * @param {string} message
   */
  say(where, message) {
    /** @type {HTMLElement | null | undefined} */
    let note = where?.querySelector(":scope > .comment__error");
    if (!note && where) {
      note = element("p", "comment__error small");
      where.append(note);
    }
    if (note) {
      note.textContent = message;
      note.setAttribute("role", "alert");
    }
  }
}
