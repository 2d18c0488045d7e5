// The Koz web table: a page for people, built on the public API only (the catalog, games, seats,
// the lobby, seat tokens, the event stream or long-poll views, actions, hints, history, leaving,
// rematch), as any other frontend would. This module routes and runs a game's life at the page;
// the others draw it (table.js, lobby.js), talk to the API (api.js) and hold the words (words.js).
//
// Routes: #/ home · #/tables the open tables · #/leaderboard[/<ruleset>] the arena's leaderboard (arena.js) ·
// #/account this browser's arena account: its page, seeking a match (account.js) ·
// #/<ruleset> its set-up · #/<ruleset>/<game> the table (the seat of the token kept in this browser, else a
// spectator's) · …/watch a spectator's · …/join/<seat>[/<code>] an invitation.

import { Refusal, api, follow, newKey, offers, readHistory } from "./api.js";
import { accountPage } from "./account.js";
import { leaderboardPage } from "./arena.js";
import { announce, catalog, h, ruleset, show } from "./dom.js";
import { homePage, joinPage, kept, openTablesPage, setupPage, waitingRoom } from "./lobby.js";
import { over, seatName, tableSection, tickClocks, turnWords } from "./table.js";
import { language, named, setLanguage, text } from "./words.js";

const LOBBY_REFRESH_MS = 5000;

/** What is on the page now: a game followed, or the lobby refreshed; `stop` ends either. */
let current = { stop: () => {} };

async function route() {
  current.stop();
  current = { stop: () => {} };
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  document.documentElement.lang = language.current;
  document.getElementById("language").textContent = text("switchTo");
  document.getElementById("home-link").setAttribute("aria-label", `Koz · ${text("home")}`);
  document.getElementById("account-link").textContent = text("myAccount");
  if (!catalog.current) catalog.current = await api("GET", "/v1/rulesets");
  if (parts[0] === "tables") return openTables();
  if (parts[0] === "leaderboard") return leaderboard(parts[1]);
  if (parts[0] === "account") return arenaAccount();
  const entry = parts[0] && ruleset(parts[0]);
  title(entry ? named(entry.names) : "");
  if (!entry) return show(homePage());
  if (!parts[1]) return show(setupPage(entry));
  if (parts[2] === "join") return join(entry, parts[1], Number(parts[3]), parts[4]);
  return openGame(parts[1], { watch: parts[2] === "watch" });
}

function title(words) {
  document.getElementById("game-title").textContent = words;
  document.title = words ? `${words} · Koz` : "Koz";
}

function problemPage(words) {
  show(h("section", { class: "card-panel" }, h("p", { class: "problem", role: "alert" }, words),
    h("a", { class: "game-button", href: "#/" }, text("goHome"))));
}

// --- the open tables, refreshed without a reload -------------------------------------------------

async function openTables() {
  title(text("openTables"));
  let timer = null;
  let stopped = false;
  current.stop = () => { stopped = true; clearTimeout(timer); };
  const refresh = async () => {
    try {
      const lobby = await api("GET", "/v1/games?status=waiting&limit=50");
      if (!stopped) show(openTablesPage(lobby, (game, seat) => { location.hash = `#/${game.ruleset}/${game.id}/join/${seat}`; }));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      if (!stopped) problemPage(error.message);
    }
    if (!stopped) timer = setTimeout(refresh, LOBBY_REFRESH_MS);
  };
  await refresh();
}

// --- the arena's leaderboard --------------------------------------------------------------------------

async function leaderboard(rulesetId) {
  title(text("leaderboard"));
  let stopped = false;
  current.stop = () => { stopped = true; };
  const page = await leaderboardPage(rulesetId);
  if (!stopped) show(page);
}

// --- this browser's arena account ----------------------------------------------------------------------

async function arenaAccount() {
  title(text("myAccount"));
  const following = new AbortController();
  current.stop = () => following.abort();
  await accountPage(following.signal);
}

// --- an invitation: a name, then the seat ----------------------------------------------------------

async function join(entry, gameId, seat, code) {
  if (kept.token(gameId)) {
    location.replace(`#/${entry.id}/${gameId}`); // already seated here: to the table
    return;
  }
  let view;
  try {
    view = await api("GET", `/v1/games/${gameId}`);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return problemPage(error.status === 404 ? text("unknownGame") : error.message);
  }
  const sit = async (name) => {
    try {
      const body = code ? { name, code } : { name };
      const taken = await api("POST", `/v1/games/${gameId}/seats/${seat}`, { body });
      kept.keepToken(gameId, taken.token);
      location.hash = `#/${entry.id}/${gameId}`;
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const now = await api("GET", `/v1/games/${gameId}`).catch(() => view);
      show(joinPage(now, seat, sit, error.problem));
    }
  };
  show(joinPage(view, seat, sit, null));
}

// --- a game: its view followed, its history read, what its people do -------------------------------

async function openGame(gameId, { watch }) {
  const game = {
    id: gameId, token: watch ? null : kept.token(gameId), view: null, history: { after: -1, events: [], reveal: null },
    follow: new AbortController(), showLastTrick: false, hint: null, problem: null, notice: null, dealEnd: null, rematchView: null,
  };
  game.on = handlers(game);
  current.stop = () => game.follow.abort();
  current.game = game;
  show(h("p", { class: "loading" }, text("loading")));
  let view;
  try {
    view = await api("GET", `/v1/games/${gameId}`, { token: game.token, signal: game.follow.signal });
    if (game.token && view.seat !== null && view.status === "active" && view.seats[view.seat].left) {
      // back at the table (the link reopened, or a reload): the seat is taken back from the computer
      view = (await api("POST", `/v1/games/${gameId}/seats/${view.seat}`, { token: game.token, signal: game.follow.signal })).view;
    }
    await readHistory(gameId, game.token, game.follow.signal, game.history);
  } catch (error) {
    if (error.name === "AbortError") return;
    if (!(error instanceof Refusal)) throw error;
    return problemPage(error.status === 404 ? (kept.invitations(gameId) ? text("withdrawn") : text("unknownGame")) : error.message);
  }
  title(named(ruleset(view.ruleset).names));
  game.canWithdraw = await offers("delete", "/v1/games/{game_id}");
  await accept(game, view, { first: true });
  await follow({
    gameId, token: game.token, signal: game.follow.signal, after: game.view.version,
    keepGoing: (seen) => !over(seen) || !seen.rematch, // after the end: until a rematch is asked for
    onView: (seen) => accept(game, seen),
    onError: (error) => {
      if (error.status === 404) {
        game.follow.abort();
        return problemPage(text("withdrawn"));
      }
      game.problem = error.problem && error.problem.code ? error.problem : { detail: error.message };
      render(game);
    },
  });
  if (!game.follow.signal.aborted && game.view.rematch) {
    followRematch(game).catch((error) => {
      if (error.name !== "AbortError") throw error; // the page moved on
    });
  }
}

/** Who has asked for the rematch: the next match's seats, as a spectator sees them, until it starts. */
async function followRematch(game) {
  const rematchId = game.view.rematch;
  const seen = await api("GET", `/v1/games/${rematchId}`, { signal: game.follow.signal });
  game.rematchView = seen;
  render(game);
  await follow({
    gameId: rematchId, token: null, signal: game.follow.signal, after: seen.version,
    keepGoing: (view) => view.status === "waiting",
    onView: (view) => { game.rematchView = view; render(game); },
    onError: () => {},
  });
}

/** Take a view if it is newer than the one shown: read the history it adds, say what happened. */
async function accept(game, view, { first = false } = {}) {
  if (current.game !== game || (game.view && view.version <= game.view.version)) return;
  const before = game.view;
  game.view = view;
  game.hint = null;
  let added = [];
  if (!first && view.version > game.history.after) {
    // one history read at a time (a stream's view and an action's answer may come at once), each
    // going on from where the last one ended
    const previous = game.historyRead || Promise.resolve();
    game.historyRead = previous.catch(() => {}).then(() => readHistory(game.id, game.token, game.follow.signal, game.history));
    try {
      added = await game.historyRead;
    } catch (error) {
      if (error.name === "AbortError") throw error; // else the history catches up with the next view
    }
  }
  if (current.game !== game) return;
  tell(game, added);
  render(game);
  if (before && before.status === "waiting" && view.status === "active") announce(named(ruleset(view.ruleset).names));
  announce(turnWords(view));
}

/** What the new events say to the people at the table: timeouts, seats left and taken back, the end of a deal. */
function tell(game, events) {
  const view = game.view;
  let lastTrick = null;
  for (const event of events) {
    if (event.type === "trick") lastTrick = event;
    if (event.type === "deal_result" && !over(view)) game.dealEnd = { trick: lastTrick, result: event };
    const name = event.seat !== undefined ? seatName(view, event.seat) : "";
    const words = {
      timeout: event.on_timeout === "computer" ? text("timeoutPlayed", name) : null,
      left: text("leftAnnounce", name),
      rejoined: text("rejoinedAnnounce", name),
      seat_taken: text("tookSeat", event.name),
    }[event.type];
    if (words) {
      game.notice = words;
      announce(words);
    }
  }
}

function render(game) {
  if (current.game !== game || !game.view) return;
  show(game.view.status === "waiting" ? waitingRoom(game) : tableSection(game));
}

function handlers(game) {
  const refused = async (error) => {
    if (!(error instanceof Refusal) && error.name !== "TypeError") throw error;
    game.problem = error.problem && error.problem.code ? error.problem : { detail: error.message };
    announce(`${text("refused")}: ${game.problem.detail || game.problem.code}`);
  };
  return {
    async act(actionJson) {
      if (game.acting) return; // one action at a time: a double click posts once
      game.acting = true;
      game.problem = null;
      game.notice = null;
      game.dealEnd = null;
      try {
        const view = await api("POST", `/v1/games/${game.id}/actions`, {
          token: game.token, body: actionJson, headers: { "If-Match": `W/"${game.view.version}"`, "Idempotency-Key": newKey() },
        });
        await accept(game, view);
      } catch (error) {
        if (current.game !== game) return;
        await refused(error);
        // the refusal changed nothing: show the reason beside the game as it now is
        const view = await api("GET", `/v1/games/${game.id}`, { token: game.token }).catch(() => null);
        if (view) await accept(game, view);
      } finally {
        game.acting = false;
        render(game);
      }
    },
    async hint() {
      try {
        const hint = await api("GET", `/v1/games/${game.id}/hint`, { token: game.token });
        if (hint.version === game.view.version) game.hint = hint;
      } catch (error) {
        await refused(error);
      }
      render(game);
    },
    toggleLastTrick() {
      game.showLastTrick = !game.showLastTrick;
      render(game);
    },
    moveOn() {
      game.dealEnd = null;
      render(game);
    },
    async leave() {
      try {
        await accept(game, await api("POST", `/v1/games/${game.id}/leave`, { token: game.token, body: {} }));
      } catch (error) {
        await refused(error);
        render(game);
      }
    },
    async takeBack() {
      try {
        await accept(game, (await api("POST", `/v1/games/${game.id}/seats/${game.view.seat}`, { token: game.token })).view);
      } catch (error) {
        await refused(error);
        render(game);
      }
    },
    async rematch() {
      const next = game.view.rematch;
      if (next && kept.token(next)) {
        location.hash = `#/${game.view.ruleset}/${next}`; // asked already: to the next match
        return;
      }
      try {
        const made = await api("POST", `/v1/games/${game.id}/rematch`, { token: game.token });
        kept.keepToken(made.id, made.token);
        location.hash = `#/${game.view.ruleset}/${made.id}`;
      } catch (error) {
        await refused(error);
        render(game);
      }
    },
    async withdraw() {
      try {
        await api("DELETE", `/v1/games/${game.id}`, { token: game.token });
        game.follow.abort();
        kept.forget(game.id);
        problemPage(text("withdrawn"));
      } catch (error) {
        await refused(error);
        render(game);
      }
    },
  };
}

// --- start -----------------------------------------------------------------------------------------

document.getElementById("language").addEventListener("click", () => {
  setLanguage(language.current === "tr" ? "en" : "tr");
  document.getElementById("language").textContent = text("switchTo");
  document.getElementById("account-link").textContent = text("myAccount");
  // the catalog's option descriptions are in the language it was asked in: ask again
  const game = current.game;
  if (game && game.view) {
    api("GET", "/v1/rulesets").then((found) => {
      catalog.current = found;
      title(named(ruleset(game.view.ruleset).names));
      render(game);
    });
  } else {
    catalog.current = null;
    route();
  }
});
window.addEventListener("hashchange", () => route());
window.addEventListener("unhandledrejection", (event) => {
  if (event.reason && event.reason.name === "AbortError") {
    event.preventDefault(); // a request of a page left behind, ended on purpose
    return;
  }
  // a failure of the page itself, not a refusal: say so on the page (and, as it does, the console)
  show(h("p", { class: "problem", role: "alert" }, `${text("error")}: ${event.reason && event.reason.message}`));
});
setInterval(tickClocks, 250);
route();
