// The peer's rules, checked on boardgame.io's own local client: what bench/api.py --peer compares
// Koz with must be German Whist (RULES.md) and must hide what Koz hides.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { Client } = require('boardgame.io/client');
const { GermanWhist, legalCards, trickWinner, playCard, PERSON, COMPUTER } = require('../game');

function game(seed) {
  const client = Client({ game: { ...GermanWhist, seed }, playerID: PERSON, numPlayers: 2 });
  client.start();
  return client;
}

/** A position made by hand: the person to follow `led` holding `hand`. */
function position(hand, led, stock = ['2C', '3C', '4C', '5C']) {
  return {
    hands: { [PERSON]: hand, [COMPUTER]: ['9S', '8S'] },
    stock,
    trump: 'H',
    trick: [{ seat: COMPUTER, card: led }],
    lastTrick: [],
    leader: COMPUTER,
    tricksWon: { [PERSON]: 0, [COMPUTER]: 0 },
    phaseTwoTricks: { [PERSON]: 0, [COMPUTER]: 0 },
  };
}

test('the follower must follow suit when able', () => {
  assert.deepStrictEqual(legalCards(position(['AS', 'KD', '2S'], '7S'), PERSON), ['AS', '2S']);
});

test('a follower void in the suit led may play any card', () => {
  assert.deepStrictEqual(legalCards(position(['KD', '2H'], '7S'), PERSON), ['KD', '2H']);
});

test('the highest trump wins, else the highest card of the suit led', () => {
  assert.strictEqual(trickWinner([{ seat: '1', card: 'AS' }, { seat: '0', card: '2H' }], 'H'), '0');
  assert.strictEqual(trickWinner([{ seat: '1', card: '7S' }, { seat: '0', card: 'AD' }], 'H'), '1');
  assert.strictEqual(trickWinner([{ seat: '1', card: '7S' }, { seat: '0', card: '8S' }], 'H'), '0');
});

test('the winner takes the face-up card and the loser draws the next', () => {
  const G = position(['AS', 'KD'], '7S', ['QC', '3D', '4C']);
  playCard(G, PERSON, 'AS');
  assert.ok(G.hands[PERSON].includes('QC'));
  assert.ok(G.hands[COMPUTER].includes('3D'));
  assert.deepStrictEqual(G.stock, ['4C']);
  assert.strictEqual(G.leader, PERSON);
});

test('a card that does not follow suit is refused with INVALID_MOVE and changes nothing', () => {
  for (let seed = 0; seed < 50; seed += 1) {
    const client = game(`refusal-${seed}`);
    const { G } = client.getState();
    if (G.trick.length === 0) continue; // the person leads: every card is legal
    const illegal = G.hand.filter((card) => !G.legal.includes(card));
    if (!illegal.length) continue;
    const before = client.getState()._stateID;
    client.moves.play(illegal[0]);
    assert.strictEqual(client.getState()._stateID, before);
    assert.deepStrictEqual(client.getState().G.hand, G.hand);
    return;
  }
  assert.fail('no seed put the person to follow with an illegal card');
});

test('a whole deal: 26 tricks, no card lost, the person always to act, nothing hidden shown', () => {
  const client = game('whole-deal');
  let moves = 0;
  while (!client.getState().ctx.gameover) {
    const { G } = client.getState();
    const tricksDone = G.tricksWon[PERSON] + G.tricksWon[COMPUTER];
    assert.strictEqual(G.toAct, PERSON);
    assert.strictEqual(G.hand.length + G.otherHandSize + G.stockSize + G.trick.length + 2 * tricksDone, 52);
    assert.ok(!('hands' in G) && !('stock' in G), 'the view holds no other hand and no stock');
    client.moves.play(G.legal[0]);
    moves += 1;
    assert.ok(moves <= 26);
  }
  const { gameover } = client.getState().ctx;
  assert.strictEqual(gameover.tricks[PERSON] + gameover.tricks[COMPUTER], 13);
  assert.strictEqual(moves, 26); // the person plays one card to every trick
});
