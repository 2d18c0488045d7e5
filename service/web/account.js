// A person's account in the arena, kept in this browser: taking one (POST /v1/accounts, kind
// "person"), its public page (ratings, games, the last results), seeking a rated match and hearing
// on the account's event stream when it starts (the seat token handed over is kept like any seat's,
// and the page goes to the table) and how it ended. The key is sent only in the Authorization
// header, never in an address; this browser's storage is the only place it is kept.
// Route: #/account.

import { Refusal, api, followArena } from "./api.js";
import { catalog, h, ruleset, show } from "./dom.js";
import { kept, optionsFields, readOptions } from "./lobby.js";
import { partnered, problemLine } from "./table.js";
import { language, named, text } from "./words.js";

/** What the house may wait for: seconds before Koz's own players are met instead, or never (""). */
const HOUSE_AFTER = ["10", "30", "60", "120", ""];

export const account = {
  kept: () => JSON.parse(localStorage.getItem("koz:account") || "null"),
  keep: (name, key) => localStorage.setItem("koz:account", JSON.stringify({ name, key })),
  /** The number of the last event of the account's stream this browser acted on. */
  seen: () => Number(localStorage.getItem("koz:account:seen") || "0"),
  keepSeen: (number) => localStorage.setItem("koz:account:seen", String(number)),
  forget: () => ["koz:account", "koz:account:seen"].forEach((name) => localStorage.removeItem(name)),
};

function decimal(value, signed = false) {
  return value.toLocaleString(language.current, { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: signed ? "exceptZero" : "auto" });
}

/** The form that takes an account: a name, then the key kept in this browser. */
function createForm(onCreated) {
  const problem = h("div");
  const form = h("form", { class: "setup card-panel account-create", "aria-labelledby": "account-create-title" },
    h("h1", { id: "account-create-title" }, text("takeAccount")),
    h("p", { class: "note" }, text("accountNote")),
    h("label", { class: "field" }, h("span", {}, text("accountName")),
      h("input", { name: "account", maxlength: 40, required: true, autocomplete: "nickname", value: kept.name() })),
    problem,
    h("button", { type: "submit", class: "start" }, text("createAccount")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = form.elements.account.value.trim();
    try {
      const created = await api("POST", "/v1/accounts", { body: { name, kind: "person" } });
      account.keep(created.name, created.key);
      account.keepSeen(0);
      kept.keepName(created.name);
      onCreated();
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      problem.replaceChildren(problemLine(error.problem && error.problem.code ? error.problem : { detail: error.message }));
    }
  });
  return form;
}

function ratingsTable(page) {
  if (!page.ratings.length) return h("p", { class: "empty" }, text("noRatings"));
  return h("table", { class: "account-ratings" },
    h("caption", {}, text("ratingsTitle")),
    h("thead", {}, h("tr", {}, ["game", "rating", "uncertainty", "ratedGames", "record"].map((key) => h("th", { scope: "col" }, text(key))))),
    h("tbody", {}, page.ratings.map((entry) => h("tr", { dataset: { ruleset: entry.ruleset } },
      h("td", {}, named(ruleset(entry.ruleset).names)),
      h("td", {}, decimal(entry.rating)),
      h("td", {}, `± ${decimal(entry.uncertainty)}`),
      h("td", {}, String(entry.games)),
      h("td", {}, text("winsLossesDraws", entry.wins, entry.losses, entry.draws))))));
}

function recentTable(page) {
  if (!page.recent_games.length) return h("p", { class: "empty" }, text("noGamesYet"));
  return h("table", { class: "account-games" },
    h("caption", {}, text("lastGames")),
    h("thead", {}, h("tr", {}, ["game", "opponents", "outcome", "ratingChange", "theGame"].map((key) => h("th", { scope: "col" }, text(key))))),
    h("tbody", {}, page.recent_games.map((entry) => h("tr", { dataset: { game: entry.game } },
      h("td", {}, named(ruleset(entry.ruleset).names)),
      h("td", {}, entry.opponents.join(", ")),
      h("td", {}, text("outcomes")[entry.outcome]),
      h("td", {}, entry.rated ? decimal(entry.rating_change, true) : text("unrated")),
      h("td", {}, h("a", { href: `#/${entry.ruleset}/${entry.game}` }, text("openGame")))))));
}

/** The seek form and the seeks waiting: a rated match of a ruleset with its main options (the
 * others their defaults: seeks pair only with the same options), Koz's players after a while,
 * and in a game of partners, the account to sit beside (one that names this one back). */
function seekSection(mine, seeks, refresh, say) {
  const problem = h("div");
  const chosen = () => ruleset(form.elements.ruleset.value);
  const options = h("div", { class: "seek-options" }, optionsFields(catalog.current.rulesets[0], "seek", {}).main);
  const partner = h("label", { class: "field", hidden: !partnered(catalog.current.rulesets[0]) }, h("span", {}, text("partner")),
    h("input", { name: "partner", maxlength: 40, autocomplete: "off" }));
  const form = h("form", { class: "setup card-panel seek", "aria-labelledby": "seek-title" },
    h("h2", { id: "seek-title" }, text("seekTitle")),
    h("label", { class: "field" }, h("span", {}, text("game")),
      h("select", { name: "ruleset", onchange: () => {
        options.replaceChildren(...optionsFields(chosen(), "seek", {}).main);
        partner.hidden = !partnered(chosen());
      } },
        catalog.current.rulesets.map((entry) => h("option", { value: entry.id }, named(entry.names))))),
    options,
    partner,
    h("label", { class: "field" }, h("span", {}, text("houseAfter")),
      h("select", { name: "house_after" }, HOUSE_AFTER.map((value) => h("option", { value, selected: value === "30" },
        value ? text("seconds", value) : text("never"))))),
    problem,
    h("button", { type: "submit", class: "start" }, text("seekButton")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { ruleset: form.elements.ruleset.value, options: readOptions(form, chosen()), rated: true };
    if (form.elements.house_after.value) body.house_after_seconds = Number(form.elements.house_after.value);
    if (partnered(chosen()) && form.elements.partner.value.trim()) body.partner = form.elements.partner.value.trim();
    try {
      await api("POST", "/v1/arena/seeks", { token: mine.key, body });
      await refresh();
      say(text("seeking", named(ruleset(body.ruleset).names)));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      problem.replaceChildren(problemLine(error.problem && error.problem.code ? error.problem : { detail: error.message }));
    }
  });
  const waiting = seeks.length ? h("ul", { class: "seeks" }, seeks.map((seek) => h("li", { dataset: { seek: seek.id } },
    text("seeking", named(ruleset(seek.ruleset).names)), seek.partner ? ` ${text("besides", seek.partner)}` : "", " ",
    h("button", { type: "button", class: "tool", onclick: async () => {
      await api("DELETE", `/v1/arena/seeks/${encodeURIComponent(seek.id)}`, { token: mine.key });
      await refresh();
      say(text("seekStopped"));
    } }, text("stopSeeking"))))) : null;
  return h("section", { class: "account-seek" }, form, waiting);
}

/** What an event of the account's stream says to its person; a match that started is kept and opened. */
function heard(event, say) {
  if (event.type === "match_started") {
    kept.keepToken(event.game, event.token);
    say(text("matchStarted", named(ruleset(event.ruleset).names), event.players.map((player) => player.name).join(", ")));
    location.hash = `#/${event.ruleset}/${event.game}`;
  } else if (event.type === "match_finished") {
    const change = event.rating_change ? ` · ${text("rating")} ${decimal(event.rating.rating)} (${decimal(event.rating_change, true)})` : "";
    say(`${text("lastMatch")}: ${text("outcomes")[event.outcome]}${change}`);
  } else if (event.type === "seek_expired") {
    say(text("seekExpired"));
  }
}

/** The account page: the account's public page, its seeks, and its events followed until `signal` aborts. */
export async function accountPage(signal) {
  const mine = account.kept();
  if (!mine) {
    show(createForm(() => accountPage(signal)));
    return;
  }
  const notice = h("p", { class: "notice", role: "status", "aria-live": "polite" });
  const say = (words) => { notice.textContent = words; };
  const render = async () => {
    const [page, seeks] = await Promise.all([
      api("GET", `/v1/accounts/${encodeURIComponent(mine.name)}`, { signal }),
      api("GET", "/v1/arena/seeks", { token: mine.key, signal }),
    ]);
    if (signal.aborted) return;
    show(h("section", { class: "account", dataset: { account: page.name } },
      h("h1", {}, `${page.name} · ${text("kinds")[page.kind]}`),
      notice,
      h("p", {}, text("gamesPlayed", page.games_played)),
      seekSection(mine, seeks.seeks, render, say),
      ratingsTable(page),
      recentTable(page)));
  };
  try {
    await render();
    await followArena({
      key: mine.key, after: account.seen(), signal,
      onEvent: async (number, event) => {
        account.keepSeen(number);
        heard(event, say);
        if (event.type !== "match_started" && !signal.aborted) await render();
      },
    });
  } catch (error) {
    if (!(error instanceof Refusal) || signal.aborted) throw error;
    if (error.status === 404 || error.status === 401) {
      account.forget(); // the service no longer knows this account: take another
      return accountPage(signal);
    }
    show(h("section", { class: "account" }, problemLine(error.problem && error.problem.code ? error.problem : { detail: error.message })));
  }
}
