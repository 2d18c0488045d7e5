"""The arena: accounts, matchmaking, ratings and leaderboards, on top of the games' own operations.

- :mod:`.accounts`: accounts (a unique name, a kind, a key answered once and kept hashed);
- :mod:`.store`: the arena's keys in Redis and the scripts that change them;
- :mod:`.pairing`: who plays whom (pure: rating closeness widening with the time waited);
- :mod:`.ratings`: OpenSkill ratings, and a match's result recorded exactly once;
- :mod:`.matchmaker`: the worker's part: pairing seeks into games, settling finished matches;
- :mod:`.events`: each account's event stream (match started and finished, seek expired, challenges).

A game of the arena is an ordinary game made by :meth:`service.games.Games.create`: its seats are
played with their seat tokens through the game API, so any bot written for it plays arena games.
"""
