// @ts-check
// Talking to the REST API (docs/api-contract.md) from the pages: session auth with the
// CSRF token the page carries, and the one JSON error shape
// {"error": {"code", "message", "details"}}.

/**
 * The API's error (`{"error": {...}}`), as far as the pages read it.
 * @typedef {{message?: string, details?: {line?: number | null, column?: number | null,
 *   message?: string} | null}} ErrorBody
 */

/**
 * An Error from the API: the HTTP status, and the parsed answer (sendJson).
 * @typedef {Error & {status?: number, body?: unknown}} ApiError
 */

/**
 * The API URL of run `runId`, from <meta name="run-url"> ("/api/v1/runs/0/").
 * @param {string | number} runId
 */
export function runUrl(runId) {
  /** @type {HTMLMetaElement | null} */
  const meta = document.querySelector('meta[name="run-url"]');
  const template = meta ? meta.content : "/api/v1/runs/0/";
  return template.replace(/\/0\/$/, `/${encodeURIComponent(runId)}/`);
}

/** The CSRF token Django put in <meta name="csrf-token">. */
export function csrfToken() {
  /** @type {HTMLMetaElement | null} */
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/**
 * A user-facing sentence for an API error body (adds line and column of a parse error).
 * @param {unknown} body the parsed answer (any JSON, or null)
 * @param {number} [status] the HTTP status (0 or none: no answer)
 */
export function errorMessage(body, status) {
  const error = body && typeof body === "object" ? /** @type {{error?: ErrorBody | null}} */ (body).error : null;
  if (!error) {
    if (status === 413) return "The file is too large for the server.";
    if (status === 403) return "You are not allowed to do this (are you still logged in?).";
    return `The server answered ${status || "nothing"}.`;
  }
  let message = error.message || "The request failed.";
  const details = error.details || {};
  if (details.line != null) {
    const where = details.column != null
      ? `line ${details.line}, column ${details.column}`
      : `line ${details.line}`;
    message += ` (${where}${details.message && details.message !== error.message ? `: ${details.message}` : ""})`;
  }
  return message;
}

/**
 * Parse a JSON response body; null when it is not JSON.
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * GET a JSON resource with the session cookie; rejects with an Error carrying `status`.
 * @param {string} url
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<any>} the parsed answer
 */
export async function getJson(url, { signal } = {}) {
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    signal,
  });
  const body = parseJson(await response.text());
  if (!response.ok) {
    /** @type {ApiError} */
    const error = new Error(errorMessage(body, response.status));
    error.status = response.status;
    throw error;
  }
  return body;
}

/**
 * Send a JSON body (POST by default; PUT, DELETE…) with the session cookie and the CSRF
 * token; resolves to the parsed answer (null when empty), rejects like `getJson`.
 * @param {string} url
 * @param {{method?: string, body?: unknown, signal?: AbortSignal}} [options]
 * @returns {Promise<any>}
 */
export async function sendJson(url, { method = "POST", body, signal } = {}) {
  const response = await fetch(url, {
    method,
    signal,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = parseJson(await response.text());
  if (!response.ok) {
    /** @type {ApiError} */
    const error = new Error(errorMessage(answer, response.status));
    error.status = response.status;
    error.body = answer;
    throw error;
  }
  return answer;
}

/**
 * The message of something thrown (an Error's, else its text).
 * @param {unknown} error
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * "1.2 MB"
 * @param {number} bytes
 */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
