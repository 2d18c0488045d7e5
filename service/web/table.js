// The table: seats round the felt, the trick, the game's public facts, your hand with its legal
// cards, the actions, scores, auction, clocks, and the result with its history and reveal.
// Every action element carries `data-action`, the exact JSON it posts, taken verbatim from the
// view's `legal_actions`; so an action shape this page has never seen still gets a button.

import { serverNow } from "./api.js";
import { cardName, h, levelName, ruleset, suitName } from "./dom.js";
import { TEAM_NAMES, named, text } from "./words.js";

const SUIT_SYMBOLS = { S: "♠", H: "♥", C: "♣", D: "♦" };
const SUIT_ORDER = ["S", "H", "C", "D"]; // alternating colours, as a hand is held
const RANK_ORDER = "AKQJT98765432";
const FOUR_SEAT_POSITIONS = ["bottom", "right", "top", "left"]; // the viewer, then the others in play order round the table

export function over(view) {
  return ["finished", "forfeited", "abandoned"].includes(view.status);
}

/** The view's sides (who plays with whom), as every game's view says them. */
function sides(view) {
  return view.sides;
}

/** Sides of more than one seat (of a view, or a catalog entry): the scores are kept per side. */
export function partnered(view) {
  return sides(view).some((side) => side.length > 1);
}

function sideName(view, side) {
  const found = sides(view);
  const index = found.findIndex((members) => members.includes(side[0]));
  if (found.length === 2 && found[0].length === 2) return named(TEAM_NAMES[index]); // North-South, East-West
  return side.map((seat) => seatName(view, seat)).join(", ");
}

function sideOf(view, seat) {
  return sides(view).find((side) => side.includes(seat));
}

// --- cards -------------------------------------------------------------------------------------

function cardFace(code, extra = {}) {
  const rank = code[0] === "T" ? "10" : code[0];
  const red = code[1] === "H" || code[1] === "D";
  // drawn by the style sheet from data-glyph: the card's name is its aria-label, and speech
  // input then hears no other text in it
  return h("span", { class: `face${red ? " red" : ""}`, "aria-hidden": "true", ...extra },
    h("span", { class: "rank", dataset: { glyph: rank } }), h("span", { class: "suit", dataset: { glyph: SUIT_SYMBOLS[code[1]] } }));
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

// --- seats and turns -----------------------------------------------------------------------------

export function seatName(view, seat) {
  const entry = view.seats[seat];
  if (seat === view.seat) return entry.name || text("you");
  if (entry.name) return entry.name;
  if (entry.open || view.seats.length === 4) return named(entry.label);
  return `${text("computer")}${entry.bot ? ` (${levelName(ruleset(view.ruleset), entry.bot)})` : ""}`;
}

/** What goes beside a seat's name: its place at a table of four, a computer's level, a seat left. */
function seatLabel(view, seat) {
  const entry = view.seats[seat];
  if (entry.left) return text("leftTag");
  if (entry.open) return text("openSeat");
  if (view.seats.length !== 4) return entry.bot && entry.name ? levelName(ruleset(view.ruleset), entry.bot) : "";
  return entry.name ? named(entry.label) : entry.bot ? levelName(ruleset(view.ruleset), entry.bot) : "";
}

function whoseTurn(view) {
  if (view.status !== "active") return null;
  if (view.turn !== undefined && view.turn !== null) return view.turn;
  return view.to_act.length === 1 ? view.to_act[0] : null;
}

/** Whose turn it is, in words; also what the live region says. */
export function turnWords(view) {
  if (view.status !== "active") return "";
  const mine = view.legal_actions.length > 0;
  if (view.to_act.length > 1) return text("eitherMay");
  if (mine && view.turn !== undefined && view.turn !== null && view.turn !== view.seat) {
    return `${text("yourTurn")} (${text("openHand")}: ${seatName(view, view.turn)})`;
  }
  if (mine) return text("yourTurn");
  const seat = whoseTurn(view);
  if (seat === null) return "";
  const entry = view.seats[seat];
  return entry.bot ? `${text("turnOf", seatName(view, seat))} · ${text("thinking")}` : text("waitingFor", seatName(view, seat));
}

function turnBanner(game) {
  const view = game.view;
  if (view.status !== "active") return null;
  return h("p", { class: `turn${view.legal_actions.length ? " mine" : ""}`, role: "status" }, turnWords(view), clockLine(view));
}

// --- the turn clock: the view's deadlines against the server's time ----------------------------

function formatSeconds(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The countdown of the seat to act and its bank; `tickClocks` moves it on each second. */
function clockLine(view) {
  if (!view.clock) return null;
  const seat = view.clock.deadlines.findIndex((deadline) => deadline !== null);
  if (seat < 0) return null;
  return h("span", { class: "clock", dataset: { deadline: view.clock.deadlines[seat], bank: view.clock.banks[seat] },
    "aria-label": text("clockOf", seatName(view, seat)) }, clockText(view.clock.deadlines[seat], view.clock.banks[seat]));
}

function clockText(deadline, bank) {
  // the deadline includes the bank: the action's own time runs out first, then the bank's
  const left = (Date.parse(deadline) - serverNow()) / 1000;
  const own = Math.max(0, left - bank);
  return ` ⏱ ${formatSeconds(own)}${bank > 0 ? ` · ${text("bankLeft", formatSeconds(Math.min(bank, left)))}` : ""}`;
}

export function tickClocks() {
  for (const clock of document.querySelectorAll(".clock[data-deadline]")) {
    clock.textContent = clockText(clock.dataset.deadline, Number(clock.dataset.bank));
  }
}

// --- actions ------------------------------------------------------------------------------------

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
  return h("button", { type: "button", class: `${className}${hinted ? " hinted" : ""}`, dataset: { action: json, focus: json },
    disabled: Boolean(game.acting), "aria-label": actionLabel(game.view, action), onclick: () => game.on.act(json) },
  content || actionLabel(game.view, action));
}

/** A row of cards: each legal play is a button posting it; the others are shown, not pressable. */
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

// --- the felt -----------------------------------------------------------------------------------

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
  return h("div", { class: `seat ${positionOf(view, seat)}${turn ? " to-play" : ""}${view.seats[seat].left ? " left-seat" : ""}`, "data-seat": seat },
    h("div", { class: "who" },
      h("strong", {}, seatName(view, seat)),
      h("span", { class: "label" }, seatLabel(view, seat)),
      turn ? h("span", { class: "tag turn-tag" }, "▶") : null,
      tags.map((tag) => h("span", { class: "tag" }, tag))),
    h("div", { class: "counts" }, h("span", {}, text("cards", view.hand_sizes[seat])), " · ",
      h("span", {}, `${text("tricks")} ${view.tricks_won[seat]}`)),
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
  if (partnered(view)) {
    rows = sides(view).map((side, index) => h("tr", { class: side.includes(view.seat) ? "ours" : "" },
      h("th", { scope: "row" }, `${sideName(view, side)}${side.includes(view.seat) ? ` (${text("us")})` : ""}`),
      h("td", {}, String(side.reduce((tricks, seat) => tricks + view.tricks_won[seat], 0))),
      h("td", { "data-score-team": index }, String(view.scores[side[0]]))));
  } else {
    rows = view.seats.map((_, seat) => h("tr", { class: seat === view.seat ? "ours" : "" },
      h("th", { scope: "row" }, seatName(view, seat),
        view.pending_marriage && view.pending_marriage[seat] ? h("small", {}, ` (${text("pending")})`) : null),
      h("td", {}, view.tricks_by_phase ? `${view.tricks_won[seat]} (${view.tricks_by_phase[seat].join("+")})` : String(view.tricks_won[seat])),
      view.points ? h("td", { "data-points-seat": seat }, String(view.points[seat])) : null,
      h("td", { "data-score-seat": seat }, String(view.scores[seat]))));
  }
  return h("table", { class: "scores" },
    h("caption", {}, `${over(view) ? "" : `${text("deal", view.deal)}${view.phase ? ` · ${text("phase", view.phase)}` : ""} · `}${text("target")}: ${targetText}`),
    h("thead", {}, h("tr", {}, h("th", {}, partnered(view) ? text("team") : ""), h("th", {}, text("tricks")),
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
    h("h2", {}, text("auction")), h("ol", {}, bids), outcome);
}

function openHandPanel(game) {
  const view = game.view;
  if (!view.open_hand || view.open_hand.seat === view.seat || !view.open_hand.cards.length || over(view)) return null;
  return h("section", { class: "open-hand panel", "aria-label": `${named(view.open_hand.label)} · ${text("openHand")}` },
    h("h2", {}, seatName(view, view.open_hand.seat), h("span", { class: "badge" }, text("openHand"))),
    cardRow(game, view.open_hand.cards, { label: `${named(view.open_hand.label)} · ${text("openHand")}` }));
}

function myHand(game) {
  const view = game.view;
  if (!view.hand || (over(view) && view.hand.length === 0)) return null;
  const open = view.open_hand && view.open_hand.seat === view.seat;
  return h("section", { class: "hand panel", "aria-label": seatName(view, view.seat) },
    h("h2", {}, seatName(view, view.seat), open ? h("span", { class: "badge" }, text("openHand")) : null),
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
    controls.push(h("button", { type: "button", class: "tool", dataset: { focus: "hint" }, onclick: () => game.on.hint() }, text("hint")));
  }
  if (view.last_trick && !over(view)) {
    controls.push(h("button", { type: "button", class: "tool", "aria-pressed": String(game.showLastTrick), dataset: { focus: "last-trick" },
      onclick: () => game.on.toggleLastTrick() }, game.showLastTrick ? text("hideLastTrick") : text("showLastTrick")));
  }
  return h("div", { class: "actions" }, controls);
}

/** Leaving the seat to a computer, or taking it back: below the hand, away from the game's actions. */
function seatBar(game) {
  const view = game.view;
  if (view.seat === null || view.status !== "active") return null;
  const left = view.seats[view.seat].left;
  return h("div", { class: "seat-bar" }, h("button", { type: "button", class: "tool", dataset: { focus: left ? "take-back" : "leave" },
    onclick: () => (left ? game.on.takeBack() : game.on.leave()) }, left ? text("takeBack") : text("leave")));
}

function hintLine(game) {
  if (!game.hint) return null;
  return h("p", { class: "hint", role: "status" },
    game.hint.action ? text("hintIs", actionLabel(game.view, game.hint.action)) : text("hintWait"));
}

export function problemLine(problem) {
  if (!problem) return null;
  return h("p", { class: "problem", role: "alert" }, `${text("refused")}: ${problem.detail || problem.title}`,
    problem.code ? h("code", {}, ` (${problem.code})`) : null);
}

function noticeLine(game) {
  const view = game.view;
  if (view.seat === null) return h("p", { class: "notice" }, text("spectating"));
  if (view.seats[view.seat].left && view.status === "active") return h("p", { class: "notice" }, text("youLeft"));
  if (game.notice) return h("p", { class: "notice" }, game.notice);
  return null;
}

function trickList(view, trick) {
  return h("ol", {}, trick.cards.map((played) => h("li", {}, shownCard(played.card, "card small"), " ", seatName(view, played.seat))));
}

function lastTrickPanel(game) {
  const view = game.view;
  if (!game.showLastTrick || !view.last_trick || over(view)) return null;
  return h("section", { class: "last-trick panel", "aria-label": text("lastTrick") },
    h("h2", {}, text("lastTrick"), view.last_trick.winner !== null ? ` · ${text("winner", seatName(view, view.last_trick.winner))}` : ""),
    trickList(view, view.last_trick));
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

function dealWinners(view, result) {
  // a deal played in teams has no winner of its own: each team scores
  if (!result.winners) return null;
  if (!result.winners.length) return text("drawn");
  return text("winners", [...new Set(result.winners.map((seat) => sideName(view, sideOf(view, seat))))].join(", "));
}

/** A deal just over: its last trick and its result stay in sight until the player moves on. */
function dealEndPanel(game) {
  if (!game.dealEnd) return null;
  const { trick, result } = game.dealEnd;
  const view = game.view;
  return h("section", { class: "deal-end panel", "aria-label": text("dealOver", result.deal) },
    h("h2", {}, text("dealOver", result.deal)),
    trick ? h("div", { class: "final-trick" }, h("h3", {}, text("lastTrick"),
      trick.winner !== null ? ` · ${text("winner", seatName(view, trick.winner))}` : ""), trickList(view, trick)) : null,
    h("p", {}, [dealWinners(view, result), dealSummary(view, result)].filter(Boolean).join(" · ")),
    h("button", { type: "button", class: "tool", dataset: { focus: "move-on" }, onclick: () => game.on.moveOn() }, text("moveOn")));
}

function lastDealPanel(game) {
  const view = game.view;
  if (!view.last_deal || over(view) || game.dealEnd) return null;
  const result = view.last_deal;
  return h("section", { class: "last-deal panel" }, h("h2", {}, text("lastDeal", result.deal)),
    h("p", {}, [dealWinners(view, result), dealSummary(view, result)].filter(Boolean).join(" · ")));
}

/** How the match ended, in words: the winners, a forfeit by the clock, or an abandoned match. */
function verdict(game) {
  const view = game.view;
  if (view.status === "abandoned") return { title: text("finished"), words: text("abandoned") };
  const mine = view.seat !== null && view.winners.includes(view.seat);
  const outcome = view.seat === null ? "" : view.winners.length === 0 ? text("drawn") : mine ? text("youWon") : text("youLost");
  if (view.status === "forfeited") {
    const timeout = [...game.history.events].reverse().find((event) => event.type === "timeout" && event.on_timeout === "forfeit");
    const losers = timeout ? sideName(view, sideOf(view, timeout.seat)) : "";
    return { title: `${text("finished")}${outcome ? `: ${outcome}` : ""}`, words: text("forfeited", losers) };
  }
  const names = [...new Set(view.winners.map((seat) => sideName(view, sideOf(view, seat))))].join(", ");
  return { title: `${text("finished")}${outcome ? `: ${outcome}` : ""}`, words: names ? text("winners", names) : text("drawn") };
}

function resultPanel(game) {
  const view = game.view;
  if (!over(view)) return null;
  const { title, words } = verdict(game);
  const rematch = game.rematchView;
  const asked = rematch ? rematch.seats.filter((seat) => !seat.open && !seat.bot).map((seat) => seat.name) : [];
  const person = view.seat !== null && view.status !== "abandoned";
  return h("section", { class: "result panel" },
    h("h2", {}, title),
    h("p", { class: "verdict" }, words),
    asked.length ? h("p", { class: "rematch-asked" }, text("rematchAsked", asked.join(", "))) : null,
    h("div", { class: "actions" },
      person ? h("button", { type: "button", class: "game-button rematch", dataset: { focus: "rematch" }, onclick: () => game.on.rematch() }, text("rematch")) : null,
      h("a", { class: "game-button", href: `#/${view.ruleset}` }, text("newGame"))));
}

function historyPanel(game) {
  const view = game.view;
  const results = game.history.events.filter((event) => event.type === "deal_result");
  if (!results.length) return null;
  const columns = partnered(view) ? sides(view).map((side) => sideName(view, side)) : view.seats.map((_, seat) => seatName(view, seat));
  const perColumn = (values) => (partnered(view) ? sides(view).map((side) => values[side[0]]) : values);
  const signed = (value) => `${value >= 0 ? "+" : ""}${value}`;
  return h("details", { class: "history panel", open: over(view) },
    h("summary", {}, text("history")),
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), columns.map((column) => h("th", { scope: "col" }, column)), h("th", { scope: "col" }, text("summary")))),
      h("tbody", {}, results.map((result) => h("tr", {},
        h("td", {}, String(result.deal)),
        perColumn(result.scores).map((score, index) => h("td", {}, `${score} (${signed(perColumn(result.game_points || result.points)[index])})`)),
        h("td", { class: "summary" }, dealSummary(view, result)))))));
}

function revealPanel(game) {
  const view = game.view;
  const reveal = game.history.reveal;
  if (!over(view) || !reveal) return null;
  return h("details", { class: "reveal panel", open: true },
    h("summary", {}, `${text("reveal")} · ${text("seedWord")} ${reveal.seed}`),
    reveal.deals.map((deal, index) => h("div", { class: "dealt" },
      h("h3", {}, `${text("deal", index + 1)} · ${text("dealer")}: ${seatName(view, deal.dealer)}${deal.trump_card ? ` · ${text("trumpCard")}` : ""}`,
        deal.trump_card ? shownCard(deal.trump_card, "card tiny") : null),
      deal.hands.map((hand, seat) => h("p", { class: "dealt-hand" }, h("span", { class: "who" }, seatName(view, seat)),
        sortedBySuit(hand, view.ruleset).map((card) => shownCard(card, "card tiny")))),
      deal.stock.length ? h("p", { class: "dealt-hand" }, h("span", { class: "who" }, text("stockOrder")),
        deal.stock.map((card) => shownCard(card, "card tiny"))) : null)));
}

function watchLine(view) {
  if (view.seat === null || over(view)) return null;
  const link = `${location.origin}/#/${view.ruleset}/${view.id}/watch`;
  return h("p", { class: "watch-line" }, h("a", { href: link, class: "watch-link" }, text("watchLink")));
}

export function tableSection(game) {
  const view = game.view;
  return h("div", { class: "game", "data-version": view.version, "data-status": view.status },
    h("h1", { class: "visually-hidden" }, named(ruleset(view.ruleset).names)),
    turnBanner(game),
    resultPanel(game),
    problemLine(game.problem),
    noticeLine(game),
    h("div", { class: "board" },
      h("div", { class: "play-area" },
        openHandPanel(game),
        tableArea(game),
        dealEndPanel(game),
        actionsBar(game),
        hintLine(game),
        myHand(game),
        seatBar(game)),
      h("aside", { class: "side", "aria-label": text("score") },
        scoreboard(game),
        auctionPanel(game),
        lastTrickPanel(game),
        lastDealPanel(game),
        watchLine(view))),
    historyPanel(game),
    revealPanel(game));
}
