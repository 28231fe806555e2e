// Calls to the gateway on this page's own origin. The credential lives in this tab's session
// storage only and travels in a header (x-api-key, or Authorization for a bearer token): never in
// a URL, never in a cookie.
const CREDENTIAL = "lvg.credential";
const IDENTITY = "lvg.identity";

export function credential() {
  const stored = sessionStorage.getItem(CREDENTIAL);
  return stored ? JSON.parse(stored) : null;
}

export function identity() {
  const stored = sessionStorage.getItem(IDENTITY);
  return stored ? JSON.parse(stored) : null;
}

export function forget() {
  sessionStorage.removeItem(CREDENTIAL);
  sessionStorage.removeItem(IDENTITY);
}

export class ApiError extends Error {
  constructor(status, body) {
    const detail = body && (body.detail || body.error);
    super(detail ? `${status}: ${detail}` : `the gateway answered ${status}`);
    this.status = status;
    this.body = body;
  }
}

function headers(json, secret = credential()) {
  const result = {};
  if (json) result["Content-Type"] = "application/json";
  if (secret) {
    if (secret.kind === "token") result.Authorization = `Bearer ${secret.value}`;
    else result["x-api-key"] = secret.value;
  }
  return result;
}

export async function call(method, path, body, secret) {
  const init = { method, headers: headers(body !== undefined, secret), credentials: "omit", cache: "no-store" };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (ignored) {
    json = null;
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

/**
 * Signs in: a tenant credential is known by GET /v1/whoami, the operator's by the admin API. Keeps
 * the credential and what it may do for this tab only.
 */
export async function signIn(kind, value) {
  const secret = { kind, value };
  let who = null;
  try {
    const caller = await call("GET", "/v1/whoami", undefined, secret);
    who = { tenant: caller.tenant, rights: caller.rights, grants: caller.grants ?? [], admin: false };
  } catch (failure) {
    if (!(failure instanceof ApiError) || (failure.status !== 401 && failure.status !== 403)) throw failure;
    try {
      await call("GET", "/admin/v1/tenants?limit=1", undefined, secret);
      who = { tenant: null, rights: ["admin"], admin: true };
    } catch (second) {
      if (second instanceof ApiError && (second.status === 401 || second.status === 403)) {
        throw new Error("The gateway did not accept this credential. Check the key or token and try again.");
      }
      throw second;
    }
  }
  sessionStorage.setItem(CREDENTIAL, JSON.stringify(secret));
  sessionStorage.setItem(IDENTITY, JSON.stringify(who));
  return who;
}

/** An object id as the API's path takes it: parts joined by $, encoded. */
export function objectPath(parts) {
  return encodeURIComponent(parts.join("$"));
}

/**
 * The tenant's change feed, live: Server-Sent Events read through fetch (EventSource cannot send
 * a header), each event's data parsed; onOpen once the stream is open. Ends when signal aborts.
 */
export async function tail(query, signal, onEvent, onOpen) {
  const response = await fetch(`/v1/events/stream?${query}`, {
    headers: headers(false), credentials: "omit", cache: "no-store", signal,
  });
  if (!response.ok) throw new ApiError(response.status, null);
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n");
      const name = (block.split("\n").find((line) => line.startsWith("event:")) || "event: message").slice(6).trim();
      if (data && name === "message") onEvent(JSON.parse(data));
    }
  }
}
