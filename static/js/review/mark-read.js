// @ts-check
// Opening a proposal reads its notifications: the page's GET writes nothing, so once the
// page is open its script POSTs their ids to the API (POST notifications/read/) and the
// header's count shows what is left.

import { sendJson } from "../api.js";

/**
 * @typedef {object} Unread
 * @property {number[]} ids the user's unread notifications about this proposal's thread
 * @property {string} url where to POST them (`POST /api/v1/notifications/read/`)
 */

/**
 * Show `count` unread notifications in the header's link (its badge and label).
 * @param {number} count
 */
export function showUnread(count) {
  const link = document.querySelector(".nav__notifications");
  if (!(link instanceof HTMLElement)) return;
  link.dataset.unread = String(count);
  link.querySelector(".count-badge")?.remove();
  if (count > 0) {
    const badge = document.createElement("span");
    badge.className = "count-badge";
    badge.setAttribute("aria-hidden", "true");
    badge.textContent = String(count);
    link.append(" ", badge);
    link.setAttribute("aria-label", `Notifications, ${count} unread`);
  } else {
    link.removeAttribute("aria-label");
  }
}

/**
 * Mark the thread's notifications read (nothing to send: nothing happens); the header
 * then counts the user's others. A failure leaves them unread, to be read later.
 * @param {Unread | null | undefined} unread
 * @returns {Promise<void>}
 */
export async function markRead(unread) {
  if (!unread || unread.ids.length === 0) return;
  const answer = await sendJson(unread.url, { body: { ids: unread.ids } });
  showUnread(Number(answer?.unread_count ?? 0));
}
