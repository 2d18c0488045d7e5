// The public API as this page uses it: requests with problems in the page's language, the
// server's clock, and following a game by its event stream or, failing that, by long-polls.

import { language } from "./words.js";

const LONG_POLL_SECONDS = 25;
const STREAM_PATH = "/v1/games/{game_id}/events";

export class Refusal extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

/** Milliseconds to add to this machine's clock to get the server's (from each answer's `Date`). */
let serverOffset = 0;

export function serverNow() {
  return Date.now() + serverOffset;
}

function readServerClock(response) {
  const date = Date.parse(response.headers.get("Date") || "");
  // `Date` has whole seconds: keep the offset unless it is more than a second off
  if (!Number.isNaN(date) && Math.abs(date + 500 - (Date.now() + serverOffset)) > 1000) serverOffset = date + 500 - Date.now();
}

export async function api(method, path, { token, body, headers = {}, signal } = {}) {
  // problems come back in the page's language; codes stay the same
  const request = { method, headers: { Accept: "application/json", "Accept-Language": language.current, ...headers }, signal };
  if (token) request.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    request.headers["Content-Type"] = "application/json";
    request.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, request);
  readServerClock(response);
  const data = await readJson(response);
  if (!response.ok) throw new Refusal(response.status, data);
  return data;
}

/** The answer's JSON, or null for none; a request aborted while its body is read stays aborted. */
async function readJson(response) {
  try {
    return await response.json();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    return null;
  }
}

export function newKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

let spec;

/** Whether the service offers an operation: its OpenAPI document lists it (the event stream, or
 * withdrawing a waiting game, are newer than some services this page may talk to). */
export async function offers(method, path) {
  if (spec === undefined) spec = api("GET", "/openapi.json").catch(() => ({ paths: {} }));
  const paths = (await spec).paths || {};
  return Boolean(paths[path] && paths[path][method]);
}

/** Follow a game from `after` on, calling `onView(view)` with each newer view: by its event
 * stream where the service has one, else (or once the stream fails or ends early) by long-polls,
 * until `keepGoing(view)` says no more. `onError(error)` hears of a long-poll that failed; a
 * failure of `onView` itself is the page's, and is thrown, not taken for the stream's. */
export async function follow({ gameId, token, signal, after, keepGoing, onView, onError }) {
  let version = after;
  let last = null;
  let handlerFailed = null;
  const take = async (view) => {
    last = view;
    version = Math.max(version, view.version);
    try {
      await onView(view);
    } catch (error) {
      handlerFailed = error;
      throw error;
    }
  };
  if (await offers("get", STREAM_PATH)) {
    try {
      await followStream(gameId, token, signal, version, take);
    } catch (error) {
      if (error.name === "AbortError" || signal.aborted) return;
      if (error === handlerFailed) throw error; // long-polls would follow a page that no longer shows what it gets
    }
  }
  while (!signal.aborted && (last === null || keepGoing(last))) {
    try {
      const view = await api("GET", `/v1/games/${gameId}?wait=${LONG_POLL_SECONDS}&after=${version}`, { token, signal });
      await take(view);
    } catch (error) {
      if (error.name === "AbortError" || signal.aborted) return;
      if (error === handlerFailed) throw error;
      onError(error);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // the service is away: try again shortly
    }
  }
}

/** Read the Server-Sent Events stream with fetch (EventSource cannot send the seat's token); each
 * `view` message is a new view. Returns when the stream ends (it does once the match is over). */
async function followStream(gameId, token, signal, after, onView) {
  const headers = { Accept: "text/event-stream", "Accept-Language": language.current };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`/v1/games/${gameId}/events?after=${after}`, { headers, signal });
  if (!response.ok || !response.body) throw new Refusal(response.status, await readJson(response));
  readServerClock(response);
  await readMessages(response, async (message) => {
    if (message.event === "view") await onView(JSON.parse(message.data));
  });
}

/** Follow an arena account's event stream from after event number `after`, calling
 * `onEvent(number, event)` with each, reconnecting (with `Last-Event-ID`) whenever the stream
 * ends or fails, until `signal` aborts. The key goes in the Authorization header only: fetch,
 * not EventSource, which could carry it only in the address. */
export async function followArena({ key, after, signal, onEvent }) {
  let last = after;
  let handlerFailed = null; // a failure of onEvent's own is the page's, not the stream's: it is not retried
  while (!signal.aborted) {
    try {
      const headers = { Accept: "text/event-stream", "Accept-Language": language.current, Authorization: `Bearer ${key}` };
      if (last > 0) headers["Last-Event-ID"] = String(last);
      const response = await fetch("/v1/arena/events", { headers, signal });
      if (!response.ok || !response.body) throw new Refusal(response.status, await readJson(response));
      await readMessages(response, async (message) => {
        if (message.id === null || !message.data) return;
        last = Number(message.id);
        try {
          await onEvent(last, JSON.parse(message.data));
        } catch (error) {
          handlerFailed = error;
          throw error;
        }
      });
    } catch (error) {
      if (error === handlerFailed) throw error;
      if (error.name === "AbortError" || signal.aborted) return;
      if (error instanceof Refusal && error.status < 500 && error.status !== 429) throw error; // the key refused: no use trying again
    }
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the stream ended or the service is away: again shortly
  }
}

/** Each Server-Sent Events message of a response's body, in order, until it ends. */
async function readMessages(response, onMessage) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const message = parseMessage(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      await onMessage(message);
    }
  }
}

/** One Server-Sent Events message: its event name, id (null without one) and data. */
function parseMessage(block) {
  const message = { event: "message", id: null, data: [] };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue; // a comment: the heartbeat
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") message.event = value;
    else if (field === "id") message.id = value;
    else if (field === "data") message.data.push(value);
  }
  return { event: message.event, id: message.id, data: message.data.join("\n") };
}

/** Read the history on from `history.after` (pages hold whole versions), adding its events and
 * the reveal once there is one. */
export async function readHistory(gameId, token, signal, history) {
  for (;;) {
    const page = await api("GET", `/v1/games/${gameId}/history?after=${history.after}&limit=1000`, { token, signal });
    history.events.push(...page.events);
    history.reveal = page.reveal;
    history.after = page.next_after === null ? page.version : page.next_after;
    if (page.next_after === null) return page.events;
  }
}
