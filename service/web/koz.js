// The Koz web table: a page for people, built on the public API only (the catalog, games, seat
// tokens, the event stream or long-poll views, actions, hints and history), as any other
// frontend would.
// Every action element carries `data-action`, the exact JSON it posts, taken verbatim from the
// view's `legal_actions`; so an action shape this page has never seen still gets a button.
"use strict";

// --- texts -----------------------------------------------------------------------------------
// The game's own texts (game, option, option value, seat, level, suit and card names) come from the
// catalog; these are the page's.

const TEXTS = {
  tr: {
    switchTo: "English", tagline: "Bilgisayara karşı kâğıt oyunları", playComputer: "Bilgisayarla Oyna",
    yourName: "Adın", you: "Sen", level: "Bilgisayar seviyesi", start: "BAŞLA", seed: "Deste tohumu (isteğe bağlı)",
    more: "Diğer seçenekler", home: "Ana sayfa", loading: "Yükleniyor…", yourTurn: "Sıra sende",
    turnOf: (name) => `Sıra: ${name}`, thinking: "bilgisayar düşünüyor…", eitherMay: "66 ilanı: sen ya da rakip",
    trump: "Koz", noTrump: "Kozsuz", faceUp: "Açık kart", stock: "Deste", talon: "Talon", talonClosed: "kapalı",
    closedBy: (name) => `kapatan: ${name}`, trumpCard: "Koz kartı", cards: (n) => `${n} kart`, tricks: "Löve",
    score: "Puan", target: "Hedef", singleDeal: "tek el", deal: (n) => `${n}. el`, dealer: "Dağıtan", points: "Kart puanı",
    phase: (n) => `${n}. aşama`, auction: "İhale", pass: "Pas", bid: (n) => `${n} söyle`, contract: "Söz",
    declarer: "İhaleci", openHand: "Açık el", trumpChoice: (suit) => `Koz: ${suit}`, chooseTrump: "Kozu seç",
    lastTrick: "Son löve", showLastTrick: "Son löveyi göster", hideLastTrick: "Son löveyi gizle", previous: "önceki löve",
    winner: (name) => `alan: ${name}`, hint: "İpucu", hintIs: (what) => `İpucu: ${what}`, hintWait: "İpucu: bekle, sırayı rakibe bırak",
    refused: "Sunucu reddetti", exchange: "Koz değiş", close: "Talonu kapat", declare: "66!",
    marriage: (points, card) => `Evlilik ${points}: ${card}`, marriageDeclare: (points, card) => `Evlilik ${points} + 66!: ${card}`,
    pending: "evlilik puanı bekliyor", finished: "Maç bitti", youWon: "Kazandın!", youLost: "Kaybettin.", drawn: "Berabere.",
    winners: (names) => `Kazanan: ${names}`, history: "Maç geçmişi", reveal: "Dağıtılan kartlar", newGame: "Yeni oyun",
    lastDeal: (n) => `${n}. elin sonucu`, made: "Söz tutuldu", failed: "Söz tutmadı", sweep: "13 löve",
    reasons: { claim: "66 ilanı", false_claim: "yanlış 66 ilanı", closer_failed: "kapatan 66'ya ulaşamadı",
      last_trick: "son löve", more_points: "daha çok puan", drawn: "berabere" },
    stockOrder: "Deste sırası", computer: "Bilgisayar", team: "Takım", us: "biz", total: "Toplam",
    targetZero: "0: tek el", error: "Bir hata oldu", retry: "Yeniden dene", unknownGame: "Bu oyun bulunamadı.",
  },
  en: {
    switchTo: "Türkçe", tagline: "Card games against the computer", playComputer: "Play the computer",
    yourName: "Your name", you: "You", level: "Computer level", start: "START", seed: "Deal seed (optional)",
    more: "More options", home: "Home", loading: "Loading…", yourTurn: "Your turn",
    turnOf: (name) => `Turn: ${name}`, thinking: "the computer is thinking…", eitherMay: "Claim 66: you or your opponent",
    trump: "Trump", noTrump: "No trump", faceUp: "Face-up card", stock: "Stock", talon: "Talon", talonClosed: "closed",
    closedBy: (name) => `closed by ${name}`, trumpCard: "Trump card", cards: (n) => `${n} cards`, tricks: "Tricks",
    score: "Score", target: "Target", singleDeal: "single deal", deal: (n) => `Deal ${n}`, dealer: "Dealer", points: "Card points",
    phase: (n) => `phase ${n}`, auction: "Auction", pass: "Pass", bid: (n) => `Bid ${n}`, contract: "Contract",
    declarer: "Declarer", openHand: "Open hand", trumpChoice: (suit) => `Trump: ${suit}`, chooseTrump: "Name trump",
    lastTrick: "Last trick", showLastTrick: "Show last trick", hideLastTrick: "Hide last trick", previous: "previous trick",
    winner: (name) => `won by ${name}`, hint: "Hint", hintIs: (what) => `Hint: ${what}`, hintWait: "Hint: wait, leave it to your opponent",
    refused: "The server refused", exchange: "Exchange trump", close: "Close the talon", declare: "66!",
    marriage: (points, card) => `Marriage ${points}: ${card}`, marriageDeclare: (points, card) => `Marriage ${points} + 66!: ${card}`,
    pending: "marriage points pending", finished: "Match over", youWon: "You won!", youLost: "You lost.", drawn: "A draw.",
    winners: (names) => `Won by ${names}`, history: "Match history", reveal: "The deals as dealt", newGame: "New game",
    lastDeal: (n) => `Deal ${n} result`, made: "Contract made", failed: "Contract failed", sweep: "all 13 tricks",
    reasons: { claim: "66 claimed", false_claim: "false claim", closer_failed: "the closer missed 66",
      last_trick: "last trick", more_points: "more points", drawn: "drawn" },
    stockOrder: "Stock order", computer: "Computer", team: "Team", us: "us", total: "Total",
    targetZero: "0: a single deal", error: "Something went wrong", retry: "Try again", unknownGame: "There is no such game.",
  },
};

const SUIT_SYMBOLS = { S: "♠", H: "♥", C: "♣", D: "♦" };
const SUIT_ORDER = ["S", "H", "C", "D"]; // alternating colours, as a hand is held
const RANK_ORDER = "AKQJT98765432";
const TEAM_NAMES = [{ tr: "Kuzey-Güney", en: "North-South" }, { tr: "Doğu-Batı", en: "East-West" }];
const LONG_POLL_SECONDS = 25;
const STREAM_PATH = "/v1/games/{game_id}/events";
const FOUR_SEAT_POSITIONS = ["bottom", "right", "top", "left"]; // the viewer, then the others in play order round the table

const page = {
  lang: localStorage.getItem("koz:lang") || "tr",
  catalog: null,
  game: null, // {id, token, view, follow: AbortController, history, showLastTrick, hint, problem}
};

// --- small helpers ---------------------------------------------------------------------------

function text(key, ...args) {
  const value = TEXTS[page.lang][key];
  return typeof value === "function" ? value(...args) : value;
}

function named(names) {
  return names ? names[page.lang] || names.en : "";
}

/** An element: h("button", {class: "x", onclick: f}, "label", child, ...). Text is never parsed as HTML. */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function ruleset(id) {
  return page.catalog.rulesets.find((entry) => entry.id === id);
}

function cardName(code) {
  return named(page.catalog.cards.find((entry) => entry.code === code).names);
}

function suitName(code) {
  return named(page.catalog.suits.find((entry) => entry.code === code).names);
}

function cardFace(code, extra = {}) {
  const rank = code[0] === "T" ? "10" : code[0];
  const red = code[1] === "H" || code[1] === "D";
  return h("span", { class: `face${red ? " red" : ""}`, ...extra }, h("span", { class: "rank" }, rank), h("span", { class: "suit" }, SUIT_SYMBOLS[code[1]]));
}

/** A card shown, not played: an image with its name. */
function shownCard(code, className = "card") {
  return h("span", { class: className, role: "img", "aria-label": cardName(code), title: cardName(code) }, cardFace(code));
}

function sortedBySuit(cards, rulesetId) {
  const ranks = (ruleset(rulesetId).ranks || []).join("") || RANK_ORDER; // a game may rank its cards its own way
  const key = (card) => SUIT_ORDER.indexOf(card[1]) * 100 + ranks.indexOf(card[0]);
  return [...cards].sort((a, b) => key(a) - key(b));
}

function sameAction(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

class Refusal extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

async function api(method, path, { token, body, headers = {}, signal } = {}) {
  // problems come back in the page's language; codes stay the same
  const request = { method, headers: { Accept: "application/json", "Accept-Language": page.lang, ...headers }, signal };
  if (token) request.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    request.headers["Content-Type"] = "application/json";
    request.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, request);
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Refusal(response.status, data);
  return data;
}

function newKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`;
}

// --- routing: #/ home, #/<ruleset> its table's set-up, #/<ruleset>/<game id> the table ------------

async function route() {
  stopFollowing();
  const [rulesetId, gameId] = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  document.documentElement.lang = page.lang;
  document.getElementById("language").textContent = text("switchTo");
  document.getElementById("home-link").setAttribute("aria-label", text("home"));
  if (!page.catalog) page.catalog = await api("GET", "/v1/rulesets");
  const found = rulesetId && ruleset(rulesetId);
  document.getElementById("game-title").textContent = found ? named(found.names) : "";
  document.title = found ? `${named(found.names)} · Koz` : "Koz";
  if (!found) return showHome();
  if (!gameId) return showSetup(found);
  return openGame(found, gameId);
}

function show(...children) {
  const main = document.getElementById("main");
  main.replaceChildren(...children);
}

function showHome() {
  show(
    h("section", { class: "home" },
      h("p", { class: "tagline" }, text("tagline")),
      h("nav", { class: "games" },
        page.catalog.rulesets.map((entry) =>
          h("a", { class: "game-button", href: `#/${entry.id}` }, named(entry.names))))));
}

// --- "Bilgisayarla Oyna": name, options from the catalog, computer level, BAŞLA ---------------

/** How an allowed value reads: the catalog's label for it where it has one, else the value. */
function valueLabel(option, value) {
  const label = option.labels.find((entry) => entry.value === value);
  return label ? named(label.names) : String(value);
}

function optionInput(option) {
  const id = `option-${option.code}`;
  const label = named(option.names);
  if (option.type === "boolean") {
    return h("label", { class: "check", title: option.description },
      h("input", { type: "checkbox", id, name: option.code, checked: option.default === true }), label);
  }
  let input;
  if (option.allowed) {
    input = h("select", { id, name: option.code },
      option.allowed.map((value) => h("option", { value: String(value), selected: value === option.default }, valueLabel(option, value))));
  } else {
    input = h("input", { id, name: option.code, type: option.type === "integer" ? "number" : "text", value: String(option.default),
      min: option.minimum, max: option.maximum, "aria-describedby": option.code === "target" ? `${id}-note` : undefined });
  }
  return h("label", { class: "field", title: option.description }, h("span", {}, label), input,
    option.code === "target" && !option.allowed ? h("small", { id: `${id}-note` }, text("targetZero")) : null);
}

function readOptions(form, entry) {
  const options = {};
  for (const option of entry.options) {
    const input = form.elements[option.code];
    if (option.type === "boolean") options[option.code] = input.checked;
    else if (option.type === "integer") options[option.code] = Number(input.value);
    else options[option.code] = input.value;
  }
  return options;
}

function showSetup(entry) {
  const levels = entry.levels.map((level) => h("option", { value: level.level, selected: level.level === "basic" }, named(level.names)));
  const mainOptions = entry.options.filter((option) => ["target", "variant", "trump_lead_before_broken"].includes(option.code));
  const moreOptions = entry.options.filter((option) => !mainOptions.includes(option));
  const problem = h("p", { class: "problem", role: "alert", hidden: true });
  const form = h("form", { class: "setup card-panel", "aria-labelledby": "setup-title" },
    h("h2", { id: "setup-title" }, text("playComputer")),
    h("label", { class: "field" }, h("span", {}, text("yourName")),
      h("input", { name: "player", maxlength: 40, placeholder: text("you"), autocomplete: "nickname" })),
    mainOptions.map(optionInput),
    h("label", { class: "field" }, h("span", {}, text("level")), h("select", { name: "level" }, levels)),
    h("details", {}, h("summary", {}, text("more")), moreOptions.map(optionInput),
      h("label", { class: "field" }, h("span", {}, text("seed")), h("input", { name: "seed", maxlength: 128 }))),
    problem,
    h("button", { type: "submit", class: "start" }, text("start")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const level = form.elements.level.value;
    const human = { name: form.elements.player.value.trim() || text("you") };
    // you sit at seat 0 (with four seats: your partner opposite at seat 2, the opponents beside)
    const seats = Array.from({ length: entry.seat_count }, (_, seat) => (seat === 0 ? human : { bot: level }));
    const body = { ruleset: entry.id, options: readOptions(form, entry), seats };
    if (form.elements.seed.value.trim()) body.seed = form.elements.seed.value.trim();
    try {
      const created = await api("POST", "/v1/games", { body });
      localStorage.setItem(`koz:token:${created.id}`, created.tokens[0].token);
      location.hash = `#/${entry.id}/${created.id}`;
    } catch (error) {
      problem.hidden = false;
      problem.textContent = `${text("refused")}: ${error.message}`;
    }
  });
  show(form);
}

// --- following a game: each answer, then the event stream or long-polls until the match is over

function stopFollowing() {
  if (page.game && page.game.follow) page.game.follow.abort();
  page.game = null;
}

async function openGame(entry, gameId) {
  const game = { id: gameId, entry, token: localStorage.getItem(`koz:token:${gameId}`), view: null,
    follow: new AbortController(), showLastTrick: false, hint: null, problem: null, history: null };
  page.game = game;
  show(h("p", { class: "loading" }, text("loading")));
  try {
    await accept(game, await api("GET", `/v1/games/${gameId}`, { token: game.token, signal: game.follow.signal }));
  } catch (error) {
    if (error.name === "AbortError") return;
    if (!(error instanceof Refusal)) throw error;
    return show(h("p", { class: "problem", role: "alert" }, error.status === 404 ? text("unknownGame") : error.message));
  }
  follow(game);
}

/** Whether the service offers the event stream: its OpenAPI document lists it. */
async function streamOffered() {
  if (page.streamOffered === undefined) {
    try {
      const spec = await api("GET", "/openapi.json");
      page.streamOffered = Boolean(spec.paths && spec.paths[STREAM_PATH]);
    } catch (error) {
      page.streamOffered = false;
    }
  }
  return page.streamOffered;
}

/** Follow the game: by its event stream where the service has one, else (or once the stream
 * fails) by long-polls. Both end when the match is over. */
async function follow(game) {
  if (await streamOffered()) {
    try {
      await followStream(game);
    } catch (error) {
      if (error.name === "AbortError" || page.game !== game) return;
    }
  }
  await followByLongPoll(game);
}

/** Read the Server-Sent Events stream with fetch (EventSource cannot send the seat's token);
 * each `view` message is the seat's new view. Returns when the stream ends. */
async function followStream(game) {
  const headers = { Accept: "text/event-stream", "Accept-Language": page.lang };
  if (game.token) headers.Authorization = `Bearer ${game.token}`;
  const response = await fetch(`/v1/games/${game.id}/events?after=${game.view.version}`, { headers, signal: game.follow.signal });
  if (!response.ok || !response.body) throw new Refusal(response.status, await response.json().catch(() => null));
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
      if (message.event === "view") await accept(game, JSON.parse(message.data));
    }
  }
}

/** One Server-Sent Events message: its event name and data (comments and ids are not needed here). */
function parseMessage(block) {
  const message = { event: "message", data: [] };
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue; // a comment: the heartbeat
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") message.event = value;
    else if (field === "data") message.data.push(value);
  }
  return { event: message.event, data: message.data.join("\n") };
}

async function followByLongPoll(game) {
  while (page.game === game && game.view.status === "active") {
    try {
      const path = `/v1/games/${game.id}?wait=${LONG_POLL_SECONDS}&after=${game.view.version}`;
      const view = await api("GET", path, { token: game.token, signal: game.follow.signal });
      if (game.problem && game.problem.whileFollowing) {
        game.problem = null;
        render(game);
      }
      await accept(game, view);
    } catch (error) {
      if (error.name === "AbortError" || page.game !== game) return;
      game.problem = { ...(error.problem && error.problem.code ? error.problem : { detail: error.message }), whileFollowing: true };
      render(game);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // the service is away: try again shortly
    }
  }
}

/** Take a view if it is newer than the one shown. */
async function accept(game, view) {
  if (page.game !== game || (game.view && view.version <= game.view.version && game.view.status === view.status)) return;
  const dealChanged = !game.view || game.view.deal !== view.deal;
  game.view = view;
  game.hint = null;
  if (dealChanged || view.status === "finished") {
    // one history read at a time, each going on from where the last one ended
    game.historyRead = (game.historyRead || Promise.resolve()).then(() => loadHistory(game));
    try {
      await game.historyRead;
    } catch (error) {
      // the game goes on without it: the deals' table catches up at the next deal
      if (error.name === "AbortError") throw error;
      game.historyRead = null;
    }
  }
  render(game);
}

/** The deal results so far (and, once the match is over, the reveal) from the history. */
async function loadHistory(game) {
  const history = game.history || { after: -1, results: [], reveal: null };
  for (;;) {
    const path = `/v1/games/${game.id}/history?after=${history.after}&limit=1000`;
    const pageOfEvents = await api("GET", path, { token: game.token, signal: game.follow.signal });
    history.results.push(...pageOfEvents.events.filter((event) => event.type === "deal_result"));
    history.reveal = pageOfEvents.reveal;
    // pages hold whole versions: the next one starts where this one ended
    history.after = pageOfEvents.next_after === null ? pageOfEvents.version : pageOfEvents.next_after;
    if (pageOfEvents.next_after === null) break;
  }
  game.history = history;
}

async function act(game, actionJson) {
  if (game.acting) return; // one action at a time: a double click posts once
  game.acting = true;
  game.problem = null;
  try {
    const view = await api("POST", `/v1/games/${game.id}/actions`, {
      token: game.token, body: actionJson,
      headers: { "If-Match": `W/"${game.view.version}"`, "Idempotency-Key": newKey() },
    });
    await accept(game, view);
  } catch (error) {
    if (page.game !== game) return;
    game.problem = error.problem && error.problem.code ? error.problem : { detail: error.message };
    // the refusal changed nothing: show the reason beside the game as it now is
    try {
      const view = await api("GET", `/v1/games/${game.id}`, { token: game.token });
      if (view.version > game.view.version) { game.view = view; game.hint = null; }
    } catch (ignored) { /* the refusal is what matters */ }
    render(game);
  } finally {
    game.acting = false;
    if (page.game === game) render(game);
  }
}

async function askHint(game) {
  try {
    const hint = await api("GET", `/v1/games/${game.id}/hint`, { token: game.token });
    if (hint.version === game.view.version) game.hint = hint;
  } catch (error) {
    game.problem = error.problem && error.problem.code ? error.problem : { detail: error.message };
  }
  render(game);
}

// --- the table -------------------------------------------------------------------------------

function seatName(view, seat) {
  const entry = view.seats[seat];
  if (seat === view.seat) return entry.name || text("you");
  if (entry.name) return entry.name;
  const level = page.game.entry.levels.find((candidate) => candidate.level === entry.bot);
  return view.seats.length === 4 ? named(entry.label) : `${text("computer")}${level ? ` (${named(level.names)})` : ""}`;
}

/** What goes beside a seat's name: its place at a table of four or a computer's level. */
function seatLabel(view, seat) {
  const entry = view.seats[seat];
  const level = page.game.entry.levels.find((candidate) => candidate.level === entry.bot);
  if (view.seats.length === 4) return entry.name ? named(entry.label) : level ? named(level.names) : "";
  return "";
}

function actionLabel(view, action) {
  switch (action.type) {
    case "play": return cardName(action.card);
    case "pass": return text("pass");
    case "bid": return text("bid", action.value);
    case "trump": return text("trumpChoice", suitName(action.suit));
    case "exchange": return text("exchange");
    case "close": return text("close");
    case "declare": return text("declare");
    case "marriage": {
      const points = action.card[1] === view.trump ? 40 : 20;
      return text(action.declare ? "marriageDeclare" : "marriage", points, cardName(action.card));
    }
    default: // an action this page does not know yet: its own words
      return Object.entries(action).map(([key, value]) => (key === "type" ? value : `${key} ${value}`)).join(" ");
  }
}

/** A button that posts one legal action, verbatim. */
function actionButton(game, action, { content, className = "action" } = {}) {
  const json = JSON.stringify(action);
  const hinted = game.hint && game.hint.action && sameAction(game.hint.action, action);
  // disabled while an action is posted: the stream may show the computers' replies (and your
  // turn again) before the post answers, and a click then would be dropped
  return h("button", { type: "button", class: `${className}${hinted ? " hinted" : ""}`, dataset: { action: json }, disabled: Boolean(game.acting),
    "aria-label": actionLabel(game.view, action), onclick: () => act(game, json) }, content || actionLabel(game.view, action));
}

/** A row of cards: each legal play is a button posting it, the others are shown disabled. */
function cardRow(game, cards, { label } = {}) {
  const legal = new Map(game.view.legal_actions.filter((action) => action.type === "play").map((action) => [action.card, action]));
  // while none of these cards may be played (an auction, another's turn) they are shown plainly, not greyed
  const waiting = cards.some((card) => legal.has(card)) ? "" : " waiting";
  return h("div", { class: `cards${waiting}`, role: "group", "aria-label": label },
    sortedBySuit(cards, game.view.ruleset).map((card) => {
      const action = legal.get(card);
      if (action) return actionButton(game, action, { content: cardFace(card), className: "card playable" });
      return h("button", { type: "button", class: "card", disabled: true, "aria-label": cardName(card), title: cardName(card) }, cardFace(card));
    }));
}

function whoseTurn(view) {
  if (view.status !== "active") return null;
  if (view.turn !== undefined && view.turn !== null) return view.turn;
  return view.to_act.length === 1 ? view.to_act[0] : null;
}

function turnBanner(game) {
  const view = game.view;
  if (view.status !== "active") return null;
  const mine = view.legal_actions.length > 0;
  let words;
  if (view.to_act.length > 1) words = text("eitherMay");
  else if (mine) words = text("yourTurn");
  else words = `${text("turnOf", seatName(view, whoseTurn(view)))} · ${text("thinking")}`;
  if (mine && view.turn !== undefined && view.turn !== null && view.turn !== view.seat) {
    words = `${text("yourTurn")} (${text("openHand")}: ${seatName(view, view.turn)})`;
  }
  return h("p", { class: `turn${mine ? " mine" : ""}`, role: "status" }, words);
}

function positionOf(view, seat) {
  const me = view.seat === null ? 0 : view.seat;
  const offset = (seat - me + view.seats.length) % view.seats.length;
  return view.seats.length === 4 ? FOUR_SEAT_POSITIONS[offset] : offset === 0 ? "bottom" : "top";
}

function trickCards(trick) {
  const bySeat = new Map();
  if (trick) for (const played of trick.cards) bySeat.set(played.seat, played.card);
  return bySeat;
}

function seatCell(game, seat, current, previous) {
  const view = game.view;
  const turn = whoseTurn(view) === seat;
  const tags = [];
  if (view.dealer === seat) tags.push(text("dealer"));
  if (view.declarer === seat) tags.push(`${text("declarer")} ${view.contract}`);
  const played = current.get(seat) || previous.get(seat);
  return h("div", { class: `seat ${positionOf(view, seat)}${turn ? " to-play" : ""}`, "data-seat": seat },
    h("div", { class: "who" },
      h("strong", {}, seatName(view, seat)),
      h("span", { class: "label" }, seatLabel(view, seat)),
      tags.map((tag) => h("span", { class: "tag" }, tag))),
    h("div", { class: "counts" }, `${text("cards", view.hand_sizes[seat])} · ${text("tricks")} ${view.tricks_won[seat]}`),
    h("div", { class: `played${current.get(seat) ? "" : " previous"}` }, played ? shownCard(played) : null));
}

function centre(game) {
  const view = game.view;
  const parts = [];
  parts.push(h("div", { class: "fact" }, h("span", {}, text("trump")),
    view.trump ? h("strong", { class: `suit-name${"HD".includes(view.trump) ? " red" : ""}` }, `${SUIT_SYMBOLS[view.trump]} ${suitName(view.trump)}`)
      : h("strong", {}, view.options.no_trump ? text("noTrump") : "–")));
  if (view.face_up !== undefined) {
    parts.push(h("div", { class: "fact" }, h("span", {}, text("faceUp")), view.face_up ? shownCard(view.face_up, "card small") : "–"));
    parts.push(h("div", { class: "fact" }, h("span", {}, text("stock")), h("strong", {}, text("cards", view.stock_size))));
  }
  if (view.talon_size !== undefined) {
    parts.push(h("div", { class: "fact" }, h("span", {}, text("trumpCard")), view.trump_card ? shownCard(view.trump_card, "card small") : "–"));
    parts.push(h("div", { class: "fact" }, h("span", {}, text("talon")),
      h("strong", {}, view.talon_closed ? `${text("talonClosed")} (${text("closedBy", seatName(view, view.closed_by))})` : text("cards", view.talon_size))));
  }
  return h("div", { class: "centre" }, parts);
}

function tableArea(game) {
  const view = game.view;
  const current = trickCards(view.trick);
  // between tricks the last one stays on the table, faded, until the next lead
  const previous = current.size === 0 ? trickCards(view.last_trick) : new Map();
  return h("div", { class: `table seats-${view.seats.length}` },
    view.seats.map((_, seat) => seatCell(game, seat, current, previous)),
    centre(game));
}

function scoreboard(game) {
  const view = game.view;
  const target = view.options.target;
  const targetText = target ? String(target) : text("singleDeal");
  let rows;
  if (view.teams) {
    rows = view.teams.map((team, index) => h("tr", { class: team.includes(view.seat) ? "ours" : "" },
      h("th", { scope: "row" }, `${named(TEAM_NAMES[index])}${team.includes(view.seat) ? ` (${text("us")})` : ""}`),
      h("td", {}, String(view.team_tricks[index])),
      h("td", { "data-score-team": index }, String(view.scores[team[0]]))));
  } else {
    rows = view.seats.map((_, seat) => h("tr", { class: seat === view.seat ? "ours" : "" },
      h("th", { scope: "row" }, seatName(view, seat),
        view.pending_marriage && view.pending_marriage[seat] ? h("small", {}, ` (${text("pending")})`) : null),
      h("td", {}, view.tricks_by_phase ? `${view.tricks_won[seat]} (${view.tricks_by_phase[seat].join("+")})` : String(view.tricks_won[seat])),
      view.points ? h("td", { "data-points-seat": seat }, String(view.points[seat])) : null,
      h("td", { "data-score-seat": seat }, String(view.scores[seat]))));
  }
  return h("table", { class: "scores" },
    h("caption", {}, `${text("deal", view.deal)}${view.phase ? ` · ${text("phase", view.phase)}` : ""} · ${text("target")}: ${targetText}`),
    h("thead", {}, h("tr", {}, h("th", {}, view.teams ? text("team") : ""), h("th", {}, text("tricks")),
      view.points ? h("th", {}, text("points")) : null, h("th", {}, text("score")))),
    h("tbody", {}, rows));
}

function auctionPanel(game) {
  const view = game.view;
  if (!view.auction) return null;
  const bids = view.auction.bids.map((call) => h("li", {}, h("span", {}, seatName(view, call.seat)), " ",
    h("strong", {}, call.bid === null ? text("pass") : String(call.bid))));
  const outcome = view.declarer !== null && view.declarer !== undefined
    ? h("p", {}, `${text("declarer")}: ${seatName(view, view.declarer)} · ${text("contract")} ${view.contract}`) : null;
  return h("section", { class: "auction panel", "aria-label": text("auction") },
    h("h3", {}, text("auction")), h("ol", {}, bids), outcome);
}

function openHandPanel(game) {
  const view = game.view;
  if (!view.open_hand || (view.open_hand.seat === view.seat)) return null;
  return h("section", { class: "open-hand panel", "aria-label": `${named(view.open_hand.label)} · ${text("openHand")}` },
    h("h3", {}, seatName(view, view.open_hand.seat), h("span", { class: "badge" }, text("openHand"))),
    cardRow(game, view.open_hand.cards, { label: `${named(view.open_hand.label)} · ${text("openHand")}` }));
}

function myHand(game) {
  const view = game.view;
  if (!view.hand || (view.status === "finished" && view.hand.length === 0)) return null;
  const open = view.open_hand && view.open_hand.seat === view.seat;
  return h("section", { class: "hand panel", "aria-label": seatName(view, view.seat) },
    h("h3", {}, seatName(view, view.seat), open ? h("span", { class: "badge" }, text("openHand")) : null),
    cardRow(game, view.hand, { label: seatName(view, view.seat) }));
}

function actionsBar(game) {
  const view = game.view;
  const others = view.legal_actions.filter((action) => action.type !== "play");
  const controls = [];
  if (view.auction && view.auction.open === false && others.some((action) => action.type === "trump")) {
    controls.push(h("span", { class: "prompt" }, text("chooseTrump")));
  }
  for (const action of others) controls.push(actionButton(game, action, { className: `action ${action.type}` }));
  if (view.legal_actions.length) {
    controls.push(h("button", { type: "button", class: "tool", onclick: () => askHint(game) }, text("hint")));
  }
  if (view.last_trick) {
    controls.push(h("button", { type: "button", class: "tool", "aria-pressed": String(game.showLastTrick),
      onclick: () => { game.showLastTrick = !game.showLastTrick; render(game); } },
      game.showLastTrick ? text("hideLastTrick") : text("showLastTrick")));
  }
  return h("div", { class: "actions" }, controls);
}

function hintLine(game) {
  if (!game.hint) return null;
  return h("p", { class: "hint", role: "status" },
    game.hint.action ? text("hintIs", actionLabel(game.view, game.hint.action)) : text("hintWait"));
}

function problemLine(game) {
  if (!game.problem) return null;
  const problem = game.problem;
  return h("p", { class: "problem", role: "alert" }, `${text("refused")}: ${problem.detail || problem.title}`,
    problem.code ? h("code", {}, ` (${problem.code})`) : null);
}

function lastTrickPanel(game) {
  const view = game.view;
  if (!game.showLastTrick || !view.last_trick) return null;
  return h("section", { class: "last-trick panel", "aria-label": text("lastTrick") },
    h("h3", {}, text("lastTrick"), view.last_trick.winner !== null ? ` · ${text("winner", seatName(view, view.last_trick.winner))}` : ""),
    h("ol", {}, view.last_trick.cards.map((played) => h("li", {}, shownCard(played.card, "card small"), " ", seatName(view, played.seat)))));
}

function dealSummary(view, result) {
  const parts = [];
  if (result.reason) {
    const claimant = result.claimed_by !== null && result.claimed_by !== undefined && !result.deemed_claim ? ` (${seatName(view, result.claimed_by)})` : "";
    parts.push((text("reasons")[result.reason] || result.reason) + claimant);
  }
  if (result.contract !== undefined) {
    parts.push(`${text("declarer")} ${seatName(view, result.declarer)} · ${text("contract")} ${result.contract} · ${text("trump")} ${SUIT_SYMBOLS[result.trump]}`);
    parts.push(`${text("tricks")} ${result.team_tricks.join("–")}`);
    parts.push(result.made ? text("made") : text("failed"));
    if (result.sweep !== null && result.sweep !== undefined) parts.push(`${named(TEAM_NAMES[result.sweep])}: ${text("sweep")}`);
  } else if (result.tricks) {
    parts.push(`${text("tricks")} ${result.tricks.join("–")}`);
  }
  if (result.points && result.reason) parts.push(`${text("points")} ${result.points.join("–")}`);
  return parts.join(" · ");
}

function lastDealPanel(game) {
  const view = game.view;
  if (!view.last_deal || view.status !== "active") return null;
  const result = view.last_deal;
  // a deal played in teams has no winner of its own: each team scores
  const winners = !result.winners ? null : result.winners.length
    ? text("winners", [...new Set(result.winners.map((seat) => winnerName(view, seat)))].join(", ")) : text("drawn");
  return h("section", { class: "last-deal panel" }, h("h3", {}, text("lastDeal", result.deal)),
    h("p", {}, [winners, dealSummary(view, result)].filter(Boolean).join(" · ")));
}

function winnerName(view, seat) {
  if (!view.teams) return seatName(view, seat);
  return named(TEAM_NAMES[view.teams.findIndex((team) => team.includes(seat))]);
}

function resultPanel(game) {
  const view = game.view;
  if (view.status !== "finished") return null;
  const won = view.winners.includes(view.seat);
  const verdict = view.winners.length === 0 ? text("drawn") : won ? text("youWon") : text("youLost");
  const names = [...new Set(view.winners.map((seat) => winnerName(view, seat)))].join(", ");
  return h("section", { class: "result panel", role: "status" },
    h("h2", {}, `${text("finished")}: ${verdict}`),
    names ? h("p", {}, text("winners", names)) : null,
    h("a", { class: "game-button", href: `#/${view.ruleset}` }, text("newGame")));
}

function historyPanel(game) {
  const view = game.view;
  const results = game.history ? game.history.results : [];
  if (!results.length) return null;
  const columns = view.teams ? view.teams.map((_, index) => named(TEAM_NAMES[index])) : view.seats.map((_, seat) => seatName(view, seat));
  const perColumn = (values) => (view.teams ? view.teams.map((team) => values[team[0]]) : values);
  return h("details", { class: "history panel", open: view.status === "finished" },
    h("summary", {}, text("history")),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "#"), columns.map((column) => h("th", {}, column)), h("th", {}, ""))),
      h("tbody", {}, results.map((result) => h("tr", {},
        h("td", {}, String(result.deal)),
        perColumn(result.scores).map((score, index) => h("td", {}, `${score} (${perColumn(result.game_points || result.points)[index] >= 0 ? "+" : ""}${perColumn(result.game_points || result.points)[index]})`)),
        h("td", { class: "summary" }, dealSummary(view, result)))))));
}

function revealPanel(game) {
  const view = game.view;
  const reveal = game.history && game.history.reveal;
  if (view.status !== "finished" || !reveal) return null;
  return h("details", { class: "reveal panel", open: true },
    h("summary", {}, `${text("reveal")} · seed ${reveal.seed}`),
    reveal.deals.map((deal, index) => h("div", { class: "dealt" },
      h("h4", {}, `${text("deal", index + 1)} · ${text("dealer")}: ${seatName(view, deal.dealer)}${deal.trump_card ? ` · ${text("trumpCard")}` : ""}`,
        deal.trump_card ? shownCard(deal.trump_card, "card tiny") : null),
      deal.hands.map((hand, seat) => h("p", { class: "dealt-hand" }, h("span", { class: "who" }, seatName(view, seat)),
        sortedBySuit(hand, view.ruleset).map((card) => shownCard(card, "card tiny")))),
      deal.stock.length ? h("p", { class: "dealt-hand" }, h("span", { class: "who" }, text("stockOrder")),
        deal.stock.map((card) => shownCard(card, "card tiny"))) : null)));
}

function render(game) {
  if (page.game !== game || !game.view) return;
  const view = game.view;
  show(
    h("div", { class: "game", "data-version": view.version, "data-status": view.status },
      turnBanner(game),
      resultPanel(game),
      problemLine(game),
      h("div", { class: "board" },
        h("div", { class: "play-area" },
          openHandPanel(game),
          tableArea(game),
          actionsBar(game),
          hintLine(game),
          myHand(game)),
        h("aside", { class: "side" },
          scoreboard(game),
          auctionPanel(game),
          lastTrickPanel(game),
          lastDealPanel(game))),
      historyPanel(game),
      revealPanel(game)));
}

// --- start -----------------------------------------------------------------------------------

document.getElementById("language").addEventListener("click", () => {
  page.lang = page.lang === "tr" ? "en" : "tr";
  localStorage.setItem("koz:lang", page.lang);
  document.documentElement.lang = page.lang;
  document.getElementById("language").textContent = text("switchTo");
  if (page.game && page.game.view) {
    document.getElementById("game-title").textContent = named(page.game.entry.names);
    render(page.game);
  } else {
    page.catalog = null; // its option descriptions are in the language it was asked in
    route();
  }
});
window.addEventListener("hashchange", () => route());
window.addEventListener("unhandledrejection", (event) => {
  // a failure of the page itself, not a refusal: say so on the page (and, as it does, the console)
  show(h("p", { class: "problem", role: "alert" }, `${text("error")}: ${event.reason && event.reason.message}`));
});
route();
