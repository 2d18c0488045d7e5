"""The HTTP resources, one module each (routes and schemas)."""

from . import actions, games, health, history, rulesets

BLUEPRINTS = [rulesets.blp, games.blp, actions.blp, history.blp, health.blp]
