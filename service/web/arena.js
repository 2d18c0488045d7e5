// The arena's leaderboard at the web table: one ruleset's accounts best first, read from the public
// GET /v1/arena/leaderboard, the established ones and, apart, those with too few rated games yet.
// Routes: #/leaderboard (the first ruleset) · #/leaderboard/<ruleset>.

import { Refusal, api } from "./api.js";
import { catalog, h } from "./dom.js";
import { language, named, text } from "./words.js";

const PAGE_SIZE = 50;

function decimal(value) {
  return value.toLocaleString(language.current, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** One list (established or provisional) of a ruleset's board: its heading, its table, a "more" button while pages remain. */
async function boardSection(rulesetId, provisional) {
  const heading = text(provisional ? "provisionalBoard" : "establishedBoard");
  const id = provisional ? "board-provisional" : "board-established";
  const section = h("section", { class: "arena-board", "aria-labelledby": `${id}-title`, dataset: { board: provisional ? "provisional" : "established" } },
    h("h2", { id: `${id}-title` }, heading),
    provisional ? h("p", { class: "note" }, text("provisionalNote")) : null);
  const body = h("tbody");
  const table = h("table", {},
    h("caption", { class: "visually-hidden" }, heading),
    h("thead", {}, h("tr", {}, ["rank", "accountName", "accountKind", "rating", "uncertainty", "ratedGames"]
      .map((key) => h("th", { scope: "col" }, text(key))))),
    body);
  const more = h("button", { type: "button", class: "game-button secondary more" }, text("moreEntries"));
  const load = async (offset) => {
    const query = new URLSearchParams({ ruleset: rulesetId, provisional: String(provisional), offset: String(offset), limit: String(PAGE_SIZE) });
    const page = await api("GET", `/v1/arena/leaderboard?${query}`);
    body.append(...page.entries.map((entry) => h("tr", { dataset: { name: entry.name } },
      h("td", {}, String(entry.rank)),
      h("td", {}, h("a", { href: `/v1/accounts/${encodeURIComponent(entry.name)}` }, entry.name)),
      h("td", {}, text("kinds")[entry.kind] || entry.kind),
      h("td", {}, decimal(entry.rating)),
      h("td", {}, `± ${decimal(entry.uncertainty)}`),
      h("td", {}, String(entry.games)))));
    if (page.total === 0) table.replaceWith(h("p", { class: "empty" }, text(provisional ? "noProvisional" : "noEstablished")));
    more.hidden = page.next_offset === null;
    more.onclick = () => load(page.next_offset);
  };
  section.append(table, more);
  await load(0);
  return section;
}

/** The leaderboard page of a ruleset (the catalog's first without one), with a link to each other ruleset's. */
export async function leaderboardPage(rulesetId) {
  const entries = catalog.current.rulesets;
  const chosen = entries.find((entry) => entry.id === rulesetId) || entries[0];
  const nav = h("nav", { class: "ruleset-tabs", "aria-label": text("leaderboardOf") },
    entries.map((entry) => h("a", { class: `game-button${entry.id === chosen.id ? "" : " secondary"}`, href: `#/leaderboard/${entry.id}`,
      "aria-current": entry.id === chosen.id ? "page" : null }, named(entry.names))));
  try {
    const boards = await Promise.all([boardSection(chosen.id, false), boardSection(chosen.id, true)]);
    return h("section", { class: "leaderboard" }, h("h1", {}, `${text("leaderboard")}: ${named(chosen.names)}`), nav,
      h("p", { class: "note" }, text("leaderboardNote")), ...boards);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return h("section", { class: "leaderboard" }, h("h1", {}, text("leaderboard")), nav, h("p", { class: "problem", role: "alert" }, error.message));
  }
}
