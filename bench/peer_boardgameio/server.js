// The boardgame.io server for bench/api.py --peer boardgameio:
//   node server.js PORT memory
//   node server.js PORT flatfile DIR
'use strict';

const { Server, FlatFile } = require('boardgame.io/server');
const { GermanWhist } = require('./game');

const [port, storage, dir] = process.argv.slice(2);
const db = storage === 'flatfile' ? new FlatFile({ dir, logging: false }) : undefined; // undefined: in-memory
const server = Server({ games: [GermanWhist], db, origins: ['http://127.0.0.1'] });
server.run({ port: Number(port) }, () => console.log(`ready ${port}`));
