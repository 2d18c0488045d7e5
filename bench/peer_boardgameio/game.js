// A minimal German Whist (RULES.md, `german-whist`, one deal, default options) for boardgame.io 0.50:
// the peer that bench/api.py --peer boardgameio measures Koz against. Seat "0" is a person; seat "1"
// is a random computer whose card the server plays inside the person's move, as a boardgame.io game
// with a house player would. Every state the person receives has the person to act (or the deal over).
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const SUITS = ['C', 'D', 'H', 'S'];
const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'];
const PERSON = '0';
const COMPUTER = '1';

const suitOf = (card) => card[1];
const rankOf = (card) => RANKS.indexOf(card[0]);
const other = (seat) => (seat === PERSON ? COMPUTER : PERSON);

/** The cards `seat` may play: any when leading, else the suit led when it holds one. */
function legalCards(G, seat) {
  const hand = G.hands[seat];
  if (G.trick.length === 0) return hand.slice();
  const led = suitOf(G.trick[0].card);
  const following = hand.filter((card) => suitOf(card) === led);
  return following.length ? following : hand.slice();
}

/** The seat whose card takes a trick of two: the higher trump, else the higher card of the suit led. */
function trickWinner(trick, trump) {
  const [lead, follow] = trick;
  const beats =
    suitOf(follow.card) === suitOf(lead.card)
      ? rankOf(follow.card) > rankOf(lead.card)
      : suitOf(follow.card) === trump;
  return beats ? follow.seat : lead.seat;
}

function toAct(G) {
  return G.trick.length === 0 ? G.leader : other(G.trick[0].seat);
}

/** Plays `card` for `seat`; when the trick is complete, its winner takes the face-up card and the loser draws. */
function playCard(G, seat, card) {
  G.hands[seat] = G.hands[seat].filter((held) => held !== card);
  G.trick.push({ seat, card });
  if (G.trick.length < 2) return;
  const winner = trickWinner(G.trick, G.trump);
  G.tricksWon[winner] += 1;
  if (G.stock.length > 0) {
    G.hands[winner].push(G.stock.shift()); // the face-up card, seen by both
    G.hands[other(winner)].push(G.stock.shift()); // the next, seen by the loser only
  } else {
    G.phaseTwoTricks[winner] += 1;
  }
  G.lastTrick = G.trick;
  G.trick = [];
  G.leader = winner;
}

/** The computer's cards until the person is to act again or the deal is over. */
function computerReplies(G, random) {
  while (toAct(G) === COMPUTER && G.hands[COMPUTER].length > 0) {
    const choices = legalCards(G, COMPUTER);
    playCard(G, COMPUTER, choices[Math.floor(random.Number() * choices.length)]);
  }
}

function setup({ random }) {
  const deck = random.Shuffle(SUITS.flatMap((suit) => RANKS.map((rank) => rank + suit)));
  const G = {
    hands: { [PERSON]: deck.slice(0, 13), [COMPUTER]: deck.slice(13, 26) },
    stock: deck.slice(26),
    trump: suitOf(deck[26]),
    trick: [],
    lastTrick: [],
    leader: random.Die(2) === 1 ? PERSON : COMPUTER,
    tricksWon: { [PERSON]: 0, [COMPUTER]: 0 },
    phaseTwoTricks: { [PERSON]: 0, [COMPUTER]: 0 },
  };
  computerReplies(G, random);
  return G;
}

const GermanWhist = {
  name: 'german-whist',
  minPlayers: 2,
  maxPlayers: 2,
  setup,
  // only the person acts over the network; the computer plays inside the person's move
  turn: { order: { first: () => 0, next: () => 0 } },
  moves: {
    play: {
      move: ({ G, playerID, random }, card) => {
        if (playerID !== PERSON || toAct(G) !== PERSON || !legalCards(G, PERSON).includes(card)) return INVALID_MOVE;
        playCard(G, PERSON, card);
        computerReplies(G, random);
      },
      client: false, // the computer's reply is the server's: the person waits for the authoritative state
    },
  },
  endIf: ({ G }) =>
    G.hands[PERSON].length === 0 && G.hands[COMPUTER].length === 0
      ? { winner: G.phaseTwoTricks[PERSON] > G.phaseTwoTricks[COMPUTER] ? PERSON : COMPUTER, tricks: G.phaseTwoTricks }
      : undefined,
  // each player sees its own hand and the face-up card; never the other hand or the stock below
  playerView: ({ G, playerID }) => ({
    hand: G.hands[playerID] || [],
    otherHandSize: G.hands[other(playerID || PERSON)].length,
    faceUp: G.stock.length ? G.stock[0] : null,
    stockSize: G.stock.length,
    trump: G.trump,
    trick: G.trick,
    lastTrick: G.lastTrick,
    leader: G.leader,
    toAct: toAct(G),
    legal: playerID === PERSON && toAct(G) === PERSON ? legalCards(G, PERSON) : [],
    tricksWon: G.tricksWon,
    phaseTwoTricks: G.phaseTwoTricks,
  }),
};

module.exports = { GermanWhist, legalCards, trickWinner, playCard, PERSON, COMPUTER };
