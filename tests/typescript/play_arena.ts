// An arena match through openapi-fetch with the generated types: take a bot account, seek a German
// Whist match with Koz's house players at once, hear match_started on the account's event stream,
// play the game with the seat token it hands over, and hear match_finished with the rating.
// Usage: node play_arena.js BASE_URL NAME; prints a summary as JSON.
import createClient from "openapi-fetch";
import type { components, paths } from "./koz.js";

type View = components["schemas"]["GameView"];

const baseUrl = process.argv[2];
const name = process.argv[3];
const anyone = createClient<paths>({ baseUrl });
const made = await anyone.POST("/v1/accounts", { body: { name, kind: "bot" } });
if (!made.data) throw new Error(`no account: ${JSON.stringify(made.error)}`);
const arena = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${made.data.key}` } });
const seek = await arena.POST("/v1/arena/seeks", { body: { ruleset: "german-whist", house_after_seconds: 0 } });
if (!seek.data) throw new Error(`no seek: ${JSON.stringify(seek.error)}`);

/** The first `wanted` event after event `after` on the account's stream: [its id, its data]. */
async function heard(after: number, wanted: string): Promise<[number, Record<string, unknown>]> {
  const { data, error } = await arena.GET("/v1/arena/events", { params: { header: { "Last-Event-ID": String(after) } }, parseAs: "stream" });
  if (!data) throw new Error(`no stream: ${JSON.stringify(error)}`);
  const reader = data.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let number = after;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended without ${wanted}`);
    text += decoder.decode(value, { stream: true });
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const message = text.slice(0, end).split("\n");
      text = text.slice(end + 2);
      const field = (key: string) => message.find((line) => line.startsWith(`${key}: `))?.slice(key.length + 2);
      number = Number(field("id") ?? number);
      const body = field("data");
      if (field("event") === wanted && body !== undefined) {
        await reader.cancel();
        return [number, JSON.parse(body)];
      }
    }
  }
}

const [number, started] = await heard(0, "match_started");
const gameId = String(started.game);
const game = { path: { game_id: gameId } };
const seat = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${String(started.token)}` } });

async function see(after?: number): Promise<View> {
  const query = after === undefined ? {} : { wait: 10, after };
  const { data, error } = await seat.GET("/v1/games/{game_id}", { params: { ...game, query } });
  if (!data) throw new Error(`no view: ${JSON.stringify(error)}`);
  return data;
}

let view = await see();
let actions = 0;
while (view.status === "active") {
  if (view.legal_actions.length === 0) {
    view = await see(view.version);
    continue;
  }
  const action = view.legal_actions[view.version % view.legal_actions.length];
  const { data, error } = await seat.POST("/v1/games/{game_id}/actions", { params: game, body: action });
  if (!data) throw new Error(`${JSON.stringify(action)} was refused: ${JSON.stringify(error)}`);
  actions += 1;
  view = data;
}
const [, finished] = await heard(number, "match_finished");
const page = await anyone.GET("/v1/accounts/{name}", { params: { path: { name } } });
if (!page.data) throw new Error(`no account page: ${JSON.stringify(page.error)}`);

console.log(
  JSON.stringify({
    game: gameId,
    seat: started.seat,
    status: view.status,
    winners: view.winners,
    actions,
    finished,
    games_played: page.data.games_played,
    rating: page.data.ratings[0]?.rating,
  }),
);
