// One German Whist match against the computer, through openapi-fetch with the types that
// openapi-typescript generates from Koz's OpenAPI document (koz.d.ts, made by the test beside
// it). Nothing here is cast or typed by hand: a contract a client cannot use type-checked fails
// `tsc --strict`. Usage: node play_german_whist.js BASE_URL; prints a summary as JSON.
import createClient from "openapi-fetch";
import type { components, paths } from "./koz.js";

type Action = components["schemas"]["Action"];
type View = components["schemas"]["GameView"];

const baseUrl = process.argv[2];
const HIGH_CARDS = ["A", "K", "Q", "J", "T"].flatMap((rank) => ["C", "D", "H", "S"].map((suit) => rank + suit));

const anyone = createClient<paths>({ baseUrl });
const created = await anyone.POST("/v1/games", {
  body: { ruleset: "german-whist", seats: [{ name: "Ayşe" }, { bot: "basic" }], options: { scoring: "over-six" }, seed: "typescript" },
});
if (!created.data) throw new Error(`the game was not created: ${JSON.stringify(created.error)}`);
const game = { path: { game_id: created.data.id } };
const seat = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${created.data.tokens[0].token}` } });

async function see(after?: number): Promise<View> {
  const query = after === undefined ? {} : { wait: 10, after };
  const { data, error } = await seat.GET("/v1/games/{game_id}", { params: { ...game, query } });
  if (!data) throw new Error(`no view: ${JSON.stringify(error)}`);
  return data;
}

let view = await see();
let refused: string | undefined;
const posted: Action[] = [];
while (view.status === "active") {
  if (view.ruleset !== "german-whist") throw new Error(`a ${view.ruleset} view of a German Whist game`);
  if (view.legal_actions.length === 0) {
    view = await see(view.version); // the computer's turn: long-poll until the version passes ours
    continue;
  }
  const hand = view.hand ?? [];
  if (refused === undefined) {
    const card = HIGH_CARDS.find((code) => !hand.includes(code)) ?? "AS";
    const { error, response } = await seat.POST("/v1/games/{game_id}/actions", { params: game, body: { type: "play", card } });
    if (response.status !== 422 || error === undefined) throw new Error(`${card} not in hand was not refused: ${response.status}`);
    const legal: Action[] = error.legal_actions ?? [];
    if (JSON.stringify(legal) !== JSON.stringify(view.legal_actions)) throw new Error("the refusal's legal actions are not the view's");
    refused = error.code;
  }
  const action = view.legal_actions[view.version % view.legal_actions.length];
  const { data, error } = await seat.POST("/v1/games/{game_id}/actions", { params: game, body: action });
  if (!data) throw new Error(`${JSON.stringify(action)} was refused: ${JSON.stringify(error)}`);
  posted.push(action);
  view = data;
}

const events: components["schemas"]["HistoryEvent"][] = [];
let reveal: components["schemas"]["Reveal"] | null = null;
async function history(after: number): Promise<components["schemas"]["History"]> {
  const { data, error } = await seat.GET("/v1/games/{game_id}/history", { params: { ...game, query: { after, limit: 200 } } });
  if (!data) throw new Error(`no history: ${JSON.stringify(error)}`);
  return data;
}
for (let after: number | null = -1; after !== null; ) {
  const page = await history(after);
  events.push(...page.events);
  reveal = page.reveal;
  after = page.next_after;
}
const mine = events.flatMap((event) => (event.type === "action" && event.seat === 0 ? [event.action] : []));
if (JSON.stringify(mine) !== JSON.stringify(posted)) throw new Error("the history's actions of seat 0 are not the ones posted");
if (reveal === null) throw new Error("a finished match's history has no reveal");

console.log(
  JSON.stringify({
    status: view.status,
    scores: view.scores,
    winners: view.winners,
    refused,
    actions: posted.length,
    dealt: reveal.deals.map((deal) => deal.hands.map((hand) => hand.length)),
    seed_commitment: view.seed_commitment,
    seed: reveal.seed,
  }),
);

// The contract as a type checker reads it: the server would refuse each of these, and none
// compiles (tsc fails on an unused @ts-expect-error, so each must stay an error)
// @ts-expect-error a bid needs its value
const bidWithoutValue: Action = { type: "bid" };
// @ts-expect-error German Whist has no variant
const whistWithAVariant: components["schemas"]["GameCreate"] = { ruleset: "german-whist", options: { variant: "schnapsen" } };
// @ts-expect-error a German Whist view has no variant
const variantOfAWhistView = (whist: components["schemas"]["GermanWhistView"]) => whist.options.variant;
// while the variant alone is a whole Schnapsen request: the server fills in the other options
const schnapsen: components["schemas"]["GameCreate"] = { ruleset: "sixty-six", options: { variant: "schnapsen" } };
void [bidWithoutValue, whistWithAVariant, variantOfAWhistView, schnapsen];
