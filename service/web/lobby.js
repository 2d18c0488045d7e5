// Before the table: the forms that set up a game (against the computer, or with friends), the
// waiting room with its invitation links, joining by a link, and the open tables of the lobby.

import { api, serverNow } from "./api.js";
import { catalog, h, levelName, ruleset, valueLabel } from "./dom.js";
import { problemLine } from "./table.js";
import { named, text } from "./words.js";

const MAIN_OPTIONS = ["target", "variant", "trump_lead_before_broken"];
const SECONDS_PER_ACTION = [10, 20, 30, 60, 120, 300];
const BANKS = [0, 30, 60, 120, 300, 600];

// --- what the browser keeps: seat tokens, join codes, the last name and options -----------------

export const kept = {
  token: (gameId) => localStorage.getItem(`koz:token:${gameId}`),
  keepToken: (gameId, token) => localStorage.setItem(`koz:token:${gameId}`, token),
  invitations: (gameId) => JSON.parse(localStorage.getItem(`koz:invitations:${gameId}`) || "null"),
  keepInvitations: (gameId, codes) => localStorage.setItem(`koz:invitations:${gameId}`, JSON.stringify(codes)),
  forget: (gameId) => ["token", "invitations"].forEach((what) => localStorage.removeItem(`koz:${what}:${gameId}`)),
  name: () => localStorage.getItem("koz:name") || "",
  keepName: (name) => localStorage.setItem("koz:name", name),
  choices: (rulesetId) => JSON.parse(localStorage.getItem(`koz:choices:${rulesetId}`) || "{}"),
  keepChoices: (rulesetId, choices) => localStorage.setItem(`koz:choices:${rulesetId}`, JSON.stringify(choices)),
};

// --- home ---------------------------------------------------------------------------------------

export function homePage() {
  return h("section", { class: "home" },
    h("h1", { class: "tagline" }, text("tagline")),
    h("nav", { class: "games", "aria-label": text("home") },
      catalog.current.rulesets.map((entry) => h("a", { class: "game-button", href: `#/${entry.id}` }, named(entry.names))),
      h("a", { class: "game-button secondary", href: "#/tables" }, text("openTables")),
      h("a", { class: "game-button secondary", href: "#/leaderboard" }, text("leaderboard"))));
}

// --- setting up a game ----------------------------------------------------------------------------

function optionInput(option, form, choices) {
  const id = `${form}-option-${option.code}`;
  const label = named(option.names);
  const chosen = option.code in choices ? choices[option.code] : option.default;
  if (option.type === "boolean") {
    return h("label", { class: "check", title: option.description },
      h("input", { type: "checkbox", id, name: option.code, checked: chosen === true }), label);
  }
  let input;
  if (option.allowed) {
    input = h("select", { id, name: option.code },
      option.allowed.map((value) => h("option", { value: String(value), selected: value === chosen }, valueLabel(option, value))));
  } else {
    input = h("input", { id, name: option.code, type: option.type === "integer" ? "number" : "text", value: String(chosen),
      min: option.minimum, max: option.maximum, "aria-describedby": option.code === "target" ? `${id}-note` : undefined });
  }
  return h("label", { class: "field", title: option.description }, h("span", {}, label), input,
    option.code === "target" && !option.allowed ? h("small", { id: `${id}-note` }, text("targetZero")) : null);
}

/** The options a form shows (a form may show some only: the others take their defaults). */
export function readOptions(form, entry) {
  const options = {};
  for (const option of entry.options) {
    const input = form.elements[option.code];
    if (!input) continue;
    if (option.type === "boolean") options[option.code] = input.checked;
    else if (option.type === "integer") options[option.code] = Number(input.value);
    else options[option.code] = input.value;
  }
  return options;
}

function nameField(form) {
  return h("label", { class: "field" }, h("span", {}, text("yourName")),
    h("input", { name: "player", id: `${form}-player`, maxlength: 40, placeholder: text("you"), autocomplete: "nickname", value: kept.name() }));
}

export function optionsFields(entry, form, choices) {
  const main = entry.options.filter((option) => MAIN_OPTIONS.includes(option.code));
  const more = entry.options.filter((option) => !main.includes(option));
  return { main: main.map((option) => optionInput(option, form, choices)), more: more.map((option) => optionInput(option, form, choices)) };
}

/** Post the new game; keep its token (and a private game's join codes) and go to its table. */
async function create(entry, form, body, problem) {
  const name = form.elements.player.value.trim();
  kept.keepName(name);
  kept.keepChoices(entry.id, { ...body.options, level: form.elements.level ? form.elements.level.value : kept.choices(entry.id).level });
  try {
    const created = await api("POST", "/v1/games", { body });
    kept.keepToken(created.id, created.tokens[0].token);
    if (created.status === "waiting") kept.keepInvitations(created.id, created.join_codes);
    location.hash = `#/${entry.id}/${created.id}`;
  } catch (error) {
    problem.hidden = false;
    problem.textContent = `${text("refused")}: ${error.message}`;
  }
}

function computerForm(entry) {
  const choices = kept.choices(entry.id);
  const levels = entry.levels.map((level) => h("option", { value: level.level, selected: level.level === (choices.level || "basic") }, named(level.names)));
  const fields = optionsFields(entry, "computer", choices);
  const problem = h("p", { class: "problem", role: "alert", hidden: true });
  const form = h("form", { class: "setup card-panel", "aria-labelledby": "setup-title" },
    h("h2", { id: "setup-title" }, text("playComputer")),
    nameField("computer"),
    fields.main,
    h("label", { class: "field" }, h("span", {}, text("level")), h("select", { name: "level" }, levels)),
    h("details", {}, h("summary", {}, text("more")), fields.more,
      h("label", { class: "field" }, h("span", {}, text("seed")), h("input", { name: "seed", maxlength: 128 }))),
    problem,
    h("button", { type: "submit", class: "start" }, text("start")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const level = form.elements.level.value;
    const human = { name: form.elements.player.value.trim() || text("you") };
    // you sit at seat 0 (with four seats: your partner opposite at seat 2, the opponents beside)
    const seats = Array.from({ length: entry.seat_count }, (_, seat) => (seat === 0 ? human : { bot: level }));
    const body = { ruleset: entry.id, options: readOptions(form, entry), seats };
    if (form.elements.seed.value.trim()) body.seed = form.elements.seed.value.trim();
    create(entry, form, body, problem);
  });
  return form;
}

function friendsForm(entry) {
  const choices = kept.choices(entry.id);
  const fields = optionsFields(entry, "friends", choices);
  const seatChoice = (seat) => h("label", { class: "field" }, h("span", {}, named(entry.seats[seat].names)),
    h("select", { name: `seat-${seat}` }, h("option", { value: "open" }, text("friend")),
      entry.levels.map((level) => h("option", { value: level.level }, text("computerAt", named(level.names))))));
  const select = (name, values, words, chosen) => h("select", { name }, values.map((value) => h("option", { value, selected: value === chosen }, words(value))));
  const problem = h("p", { class: "problem", role: "alert", hidden: true });
  const form = h("form", { class: "friends card-panel", "aria-labelledby": "friends-title" },
    h("h2", { id: "friends-title" }, text("playFriends")),
    nameField("friends"),
    fields.main,
    h("fieldset", { class: "seats" }, h("legend", {}, `${text("seatsTitle")} · ${text("yourSeat")}: ${named(entry.seats[0].names)}`),
      entry.seats.slice(1).map((seat) => seatChoice(seat.index))),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", checked: true }), text("privateTable")),
    h("fieldset", { class: "clock-choice" }, h("legend", {}, text("timed")),
      h("label", { class: "field" }, h("span", {}, text("perAction")),
        select("seconds", ["", ...SECONDS_PER_ACTION.map(String)], (value) => (value ? text("seconds", value) : text("untimed")), "")),
      h("label", { class: "field" }, h("span", {}, text("bank")), select("bank", BANKS.map(String), (value) => text("seconds", value), "0")),
      h("label", { class: "field" }, h("span", {}, text("onTimeout")),
        select("on_timeout", ["computer", "forfeit"], (value) => text(value === "computer" ? "timeoutComputer" : "timeoutForfeit"), "computer"))),
    h("details", {}, h("summary", {}, text("more")), fields.more),
    problem,
    h("button", { type: "submit", class: "start" }, text("createTable")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const me = { name: form.elements.player.value.trim() || text("you") };
    const seats = entry.seats.map((seat) => {
      if (seat.index === 0) return me;
      const chosen = form.elements[`seat-${seat.index}`].value;
      return chosen === "open" ? { open: true } : { bot: chosen };
    });
    const body = { ruleset: entry.id, options: readOptions(form, entry), seats, private: form.elements.private.checked };
    if (form.elements.seconds.value) {
      body.clock = { seconds_per_action: Number(form.elements.seconds.value), bank: Number(form.elements.bank.value), on_timeout: form.elements.on_timeout.value };
    }
    create(entry, form, body, problem);
  });
  return form;
}

export function setupPage(entry) {
  return h("div", { class: "setups" }, h("h1", { class: "visually-hidden" }, named(entry.names)), computerForm(entry), friendsForm(entry));
}

// --- the waiting room ---------------------------------------------------------------------------

function invitationLink(view, seat, code) {
  return `${location.origin}/#/${view.ruleset}/${view.id}/join/${seat}${code ? `/${encodeURIComponent(code)}` : ""}`;
}

/** A link with a button that copies it (or, where the clipboard is refused, selects it). */
function copyable(link, label, className) {
  const input = h("input", { class: `link ${className}`, readonly: true, value: link, "aria-label": label });
  const button = h("button", { type: "button", class: "tool", onclick: async () => {
    try {
      await navigator.clipboard.writeText(link);
      button.textContent = text("copied");
    } catch (error) {
      input.select();
    }
  } }, text("copy"));
  return h("div", { class: "copyable" }, input, button);
}

export function waitingRoom(game) {
  const view = game.view;
  const created = kept.invitations(view.id); // kept by the browser that created the game
  const codes = created || [];
  const mine = view.seat !== null;
  // a rematch keeps each person's seat open, under their name, until they ask too
  const rematch = view.seats.some((seat) => seat.open && seat.name);
  return h("section", { class: "waiting-room card-panel", "data-status": view.status, "data-version": view.version },
    h("h1", {}, `${text("waitingRoom")} · ${named(ruleset(view.ruleset).names)}`),
    h("p", { role: "status" }, rematch ? text("rematchWaiting") : text("waitingHint")),
    problemLine(game.problem),
    view.clock ? h("p", { class: "clock-terms" }, `${text("timed")}: ${text("perAction")} ${text("seconds", view.clock.seconds_per_action)} · `
      + `${text("bank")} ${text("seconds", view.clock.bank || 0)} · ${text("onTimeout")}: `
      + `${text(view.clock.on_timeout === "forfeit" ? "timeoutForfeit" : "timeoutComputer")}`) : null,
    h("ul", { class: "seat-list" }, view.seats.map((seat) => {
      const code = codes.find((entry) => entry.seat === seat.index);
      const who = seat.open ? (seat.name ? `${seat.name} · ${text("notYet")}` : text("openSeat"))
        : seat.bot ? text("computerAt", levelName(ruleset(view.ruleset), seat.bot)) : seat.name;
      return h("li", { "data-seat": seat.index, class: seat.open ? "open" : "taken" },
        h("strong", {}, named(seat.label)), " ", h("span", { class: "who" }, who),
        seat.open && !seat.name && mine ? copyable(invitationLink(view, seat.index, code && code.code), text("invitation", named(seat.label)), "invitation") : null);
    })),
    h("h2", {}, text("watchLink")),
    copyable(`${location.origin}/#/${view.ruleset}/${view.id}/watch`, text("watchLink"), "watch"),
    // the creator (who keeps the invitations) may withdraw them, where the service can
    mine && created && game.canWithdraw ? h("button", { type: "button", class: "action withdraw", onclick: () => game.on.withdraw() }, text("withdraw")) : null);
}

// --- joining by an invitation link ----------------------------------------------------------------

/** The words for a seat that cannot be taken, from the view and the server's refusal. */
function whyNot(view, seat, refusal) {
  if (refusal && refusal.code === "invalid_join_code") return text("badCode");
  if (refusal && ["unknown_seat", "not_found"].includes(refusal.code)) return text("noSuchSeat");
  if (refusal && refusal.code === "unknown_game") return text("unknownGame"); // withdrawn, say, or expired
  if (view && !view.seats[seat]) return text("noSuchSeat");
  if (view && view.status !== "waiting") return text("alreadyStarted");
  if ((view && !view.seats[seat].open) || (refusal && refusal.code === "seat_taken")) return text("seatTaken");
  return refusal ? refusal.detail : null;
}

export function joinPage(view, seat, onSit, refusal) {
  const entry = ruleset(view.ruleset);
  const cannot = whyNot(view, seat, refusal);
  const home = h("a", { class: "game-button", href: "#/" }, text("goHome"));
  if (cannot) {
    return h("section", { class: "join card-panel" }, h("h1", {}, text("joinTitle", named(entry.names))),
      h("p", { class: "problem", role: "alert" }, cannot), home);
  }
  const form = h("form", { class: "join card-panel", "aria-labelledby": "join-title" },
    h("h1", { id: "join-title" }, text("joinTitle", named(entry.names))),
    h("p", {}, text("joinAs", named(view.seats[seat].label))),
    h("ul", { class: "seat-list" }, view.seats.filter((other) => !other.open).map((other) => h("li", {}, h("strong", {}, named(other.label)), " ",
      other.bot ? text("computerAt", levelName(entry, other.bot)) : other.name))),
    h("label", { class: "field" }, h("span", {}, text("yourName")),
      h("input", { name: "player", maxlength: 40, placeholder: text("guest"), autocomplete: "nickname", value: kept.name() })),
    h("button", { type: "submit", class: "start" }, text("sit")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = form.elements.player.value.trim();
    kept.keepName(name);
    onSit(name || text("guest"));
  });
  return form;
}

// --- the open tables ------------------------------------------------------------------------------

function waitedFor(createdAt) {
  const seconds = Math.max(0, (serverNow() - Date.parse(createdAt)) / 1000);
  if (seconds < 60) return text("waited", text("justNow"));
  return text("waited", text("minutes", Math.floor(seconds / 60)));
}

function optionsInWords(entry, options) {
  return entry.options.map((option) => `${named(option.names)}: ${option.type === "boolean" ? text(options[option.code] ? "yes" : "no") : valueLabel(option, options[option.code])}`).join(" · ");
}

export function openTablesPage(lobby, onSit) {
  return h("section", { class: "open-tables" },
    h("h1", {}, text("openTables")),
    h("p", { class: "small" }, text("refreshed")),
    lobby.games.length ? null : h("p", {}, text("lobbyEmpty")),
    h("ul", { class: "lobby" }, lobby.games.map((game) => {
      const entry = ruleset(game.ruleset);
      return h("li", { class: "card-panel", "data-game": game.id },
        h("h2", {}, named(entry.names)),
        h("p", { class: "options" }, optionsInWords(entry, game.options)),
        h("p", {}, waitedFor(game.created_at)),
        h("p", {}, game.seats.map((seat) => `${named(seat.label)}: ${seat.open ? text("openSeat")
          : seat.bot ? text("computerAt", levelName(entry, seat.bot)) : seat.name}`).join(" · ")),
        h("div", { class: "actions" },
          game.open_seats.map((seat) => h("button", { type: "button", class: "action sit", "data-seat": seat,
            onclick: () => onSit(game, seat) }, text("sitAt", named(game.seats[seat].label)))),
          h("a", { class: "tool", href: `#/${game.ruleset}/${game.id}/watch` }, text("watch"))));
    })));
}
