// The load for bench/api.py --peer boardgameio, the same shape as Koz's: CLIENTS people, each in a
// game of its own against the random computer, each playing a legal card as soon as it is to act; a
// new match when one ends. One sample = a person's move until this client holds the authoritative
// state with the person to act again (or the deal over).
//   node driver.js URL CLIENTS SECONDS SEED   -> one line of JSON: {"moves": n, "seconds": s, "latencies_ms": [...]}
'use strict';

const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { GermanWhist, PERSON } = require('./game');

const [url, clients, seconds, seed] = process.argv.slice(2);

// a small seeded generator, so that runs pick the same cards
function generator(start) {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function post(path, body) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

/** A new match with this client in the person's seat, started and synced. */
async function newMatch() {
  const { matchID } = await post('/games/german-whist/create', { numPlayers: 2 });
  const { playerCredentials } = await post(`/games/german-whist/${matchID}/join`, { playerID: PERSON, playerName: 'bench' });
  const client = Client({ game: GermanWhist, multiplayer: SocketIO({ server: url }), matchID, playerID: PERSON, credentials: playerCredentials });
  const synced = new Promise((resolve) => {
    const unsubscribe = client.subscribe((state) => {
      if (state && state.isConnected !== false && state._stateID !== undefined && state.G && state.G.hand) {
        unsubscribe();
        resolve();
      }
    });
  });
  client.start();
  await synced;
  return client;
}

/** Sends one move and resolves with the authoritative state that follows it. */
function move(client, card) {
  const before = client.getState()._stateID;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer in 30 s')), 30000);
    const unsubscribe = client.subscribe((state) => {
      if (state && state._stateID > before) {
        clearTimeout(timer);
        unsubscribe();
        resolve(state);
      }
    });
    client.moves.play(card);
  });
}

async function person(number, until, latencies) {
  const random = generator(Number(seed) * 1000 + number);
  let client = await newMatch();
  while (performance.now() < until) {
    const state = client.getState();
    if (state.ctx.gameover) {
      client.stop();
      client = await newMatch();
      continue;
    }
    const legal = state.G.legal;
    if (!legal.length) throw new Error(`the person has no card to play: ${JSON.stringify(state.G)}`);
    const started = performance.now();
    await move(client, legal[Math.floor(random() * legal.length)]);
    latencies.push(performance.now() - started);
  }
  client.stop();
}

async function main() {
  const latencies = [];
  const started = performance.now();
  const until = started + Number(seconds) * 1000;
  await Promise.all(Array.from({ length: Number(clients) }, (_, number) => person(number, until, latencies)));
  const elapsed = (performance.now() - started) / 1000;
  // exit once the whole line is written: a pipe takes 64 KiB at once, and exiting at once cut the rest
  process.stdout.write(JSON.stringify({ moves: latencies.length, seconds: elapsed, latencies_ms: latencies }) + '\n', () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
