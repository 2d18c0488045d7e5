"""The HTTP resources, one module each (routes and schemas)."""

from . import actions, games, health, hints, history, rulesets, seats

BLUEPRINTS = [rulesets.blp, games.blp, actions.blp, history.blp, hints.blp, seats.blp, health.blp]
