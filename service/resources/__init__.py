"""The HTTP resources, one module each (routes and schemas)."""

from . import accounts, actions, arena, challenges, events, games, health, hints, history, play, rulesets, seats

BLUEPRINTS = [
    rulesets.blp,
    games.blp,
    actions.blp,
    history.blp,
    events.blp,
    play.blp,
    hints.blp,
    seats.blp,
    accounts.blp,
    arena.blp,
    challenges.blp,
    health.blp,
]
