// Talking to the REST API (docs/api-contract.md) from the pages: session auth with the
// CSRF token the page carries, and the one JSON error shape
// {"error": {"code", "message", "details"}}.

/** The API URL of run `runId`, from <meta name="run-url"> ("/api/v1/runs/0/"). */
export function runUrl(runId) {
  const meta = document.querySelector('meta[name="run-url"]');
  const template = meta ? meta.content : "/api/v1/runs/0/";
  return template.replace(/\/0\/$/, `/${encodeURIComponent(runId)}/`);
}

/** The CSRF token Django put in <meta name="csrf-token">. */
export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/** A user-facing sentence for an API error body (adds line and column of a parse error). */
export function errorMessage(body, status) {
  const error = body && typeof body === "object" ? body.error : null;
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

/** Parse a JSON response body; null when it is not JSON. */
export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** GET a JSON resource with the session cookie; rejects with an Error carrying `status`. */
export async function getJson(url, { signal } = {}) {
  const response = await fetch(url, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    signal,
  });
  const body = parseJson(await response.text());
  if (!response.ok) {
    const error = new Error(errorMessage(body, response.status));
    error.status = response.status;
    throw error;
  }
  return body;
}

/**
 * Send a JSON body (POST by default; PUT, DELETE…) with the session cookie and the CSRF
 * token; resolves to the parsed answer (null when empty), rejects like `getJson`.
 */
export async function sendJson(url, { method = "POST", body } = {}) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = parseJson(await response.text());
  if (!response.ok) {
    const error = new Error(errorMessage(answer, response.status));
    error.status = response.status;
    error.body = answer;
    throw error;
  }
  return answer;
}

/** "1.2 MB" */
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
