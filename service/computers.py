"""The computer players' decisions, beside the worker that makes their moves.

A computer that decides without searching (``random``, ``basic``) replies to a person's action
within the action's request, before its one commit (:meth:`Computers.reply_in_request`). Any
other computer move, an expert's above all, is the workers': a commit that leaves a computer to
move records it as due (in the same script); a worker
(:mod:`service.worker`) claims the due games in batches and makes each move through
:meth:`Computers.play_computers`, one compare-and-set per game, written together. A computer
decides from its own seat's information only: its view, and for a strategy that reads them the
current deal's events as its seat saw them, replayed from the log when the game does not hold
them. The expert's hint to a human seat and a timed-out seat's move decide the same way.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from redis.exceptions import RedisError

from engine import Action, Event
from engine.players import Budget, SeatInfo, level_names, player, standard_level, strongest_level

from .refusals import Refused
from .game import Game
from .metrics import DECISION_SECONDS
from .offload import off_the_loop
from .replay import apply_logged
from .repository import Repository
from .store import Legacy, Stored
from .tokens import require_token

log = logging.getLogger(__name__)

#: a worker's batch of computer moves is written once its thinking has taken this long, so that
#: an expert's long decision does not hold up the quick moves decided before it
BATCH_THINKING_SECONDS = 0.02
#: the level that plays a timed-out seat's one action under ``on_timeout: "computer"``
TIMEOUT_LEVEL = "basic"


@dataclass
class Played:
    """What a batch of computer moves did: the games whose move was committed, and those found
    with no computer move to make, by the version they were read at (None: gone)."""

    written: set[str]
    idle: dict[str, int | None]


class Computers:
    """The computer players' decisions, and the worker's batches of their moves."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository

    def decide(self, game: Game, seat: int, level: str) -> Action:
        """What a computer player of ``level`` would do for ``seat``, from that seat's information only."""
        return self.decision(game, seat, level)()

    def decision(self, game: Game, seat: int, level: str) -> Callable[[], Action]:
        """:meth:`decide` in two steps: this call reads what the seat knows (from the store);
        calling its answer thinks, with no I/O, within the decision ceiling."""
        ruleset, state = game.ruleset, game.state
        chooser = player(level, ruleset.id)
        if chooser.reads_view:
            view, knowledge = ruleset.view(state, seat), ruleset.knowledge(state, seat)
        else:
            view, knowledge = {"legal_actions": [action.to_json() for action in ruleset.legal_actions(state, seat)]}, None
        events = self.events_seen_by(game, seat) if chooser.reads_events else ()
        info = SeatInfo(ruleset.id, seat, game.options, view, events, knowledge)
        settings = self.repository.settings
        budget = Budget(seconds=settings.bot_expert_seconds, ceiling=settings.bot_decision_ceiling, timer=time.perf_counter)
        seed = f"{game.seed}:{game.version}:{seat}"
        timer = DECISION_SECONDS.labels(game.ruleset.id, level)

        def think() -> Action:
            with timer.time():
                return chooser.choose(info, seed, budget)

        return think

    def events_seen_by(self, game: Game, seat: int) -> tuple[Mapping[str, Any], ...]:
        """The current deal's events as ``seat`` saw them."""
        if game.deal_events is None:
            game.deal_events = self._replay_deal(game)
        seen = (event.for_viewer(seat) for event in game.deal_events)
        return tuple(event for event in seen if event is not None)

    def _replay_deal(self, game: Game) -> list[Event]:
        """The current deal's events, replayed from the deal's base: one deal's work, however
        long the match."""
        base = game.deal_base
        assert base is not None  # only a match that is over has none, and no one decides in it
        stored_length = game.log_length - len(game.appended)
        log = self.repository.store.log(game.id, base.offset)[: stored_length - base.offset] + bytes(game.appended)
        if base.state is None:
            state, opening = game.ruleset.new_game(game.options, game.seed)
            events = list(opening)
        else:
            state, events = game.ruleset.load(base.state), []
        for state, caused in apply_logged(game.ruleset, state, log):
            events += caused
        starts = [index for index, event in enumerate(events) if event.data["type"] == "deal"]
        return events[starts[-1] :]

    def reply_in_request(self, game: Game) -> int:
        """Make the moves of the computers to act now that decide without searching (``random``,
        ``basic``: a few milliseconds each), up to the settings' ``replies_in_request``, as a
        worker would make them (from the seat's own information, with the same seed), so that a
        person's action and these replies are one commit and one answer. A computer that searches
        (the expert) stops them: it never thinks in a request, and its move falls due for the
        workers, as do the moves past the cap. A game with nobody to answer to plays none here.
        How many moves were made."""
        made = 0
        while made < self.repository.settings.replies_in_request and game.has_human:
            seat = game.computer_to_act()
            level = game.seats[seat].bot if seat is not None else None
            if seat is None or level is None or player(level, game.ruleset.id).think_seconds > 0:
                break
            try:
                game.act(seat, self.decide(game, seat, level))  # a refused move changes nothing
            except Exception:  # a failed decision must not lose the person's action: the workers try it
                log.exception("the computer move in game %s failed in a request", game.id)
                break
            made += 1
        return made

    def time_out(self, game: Game) -> None:
        """The seat to act let its deadline pass: forfeit, or one action by a computer."""
        seat = game.time_out()
        if seat is not None:
            level = TIMEOUT_LEVEL if TIMEOUT_LEVEL in level_names(game.ruleset.id) else standard_level(game.ruleset.id)
            game.act(seat, self.decide(game, seat, level))

    def hint(self, game_id: str, token: str | None) -> tuple[Game, int, Action]:
        """The expert's suggestion for the caller's seat, decided from that seat's information.
        The thinking runs off the request loop, so that other requests go on meanwhile."""
        game = self.repository.load(game_id)
        seat = game.acting_seat(require_token(token))
        if game.over:
            raise Refused("game_over", "game_over")
        if seat not in game.ruleset.to_act(game.state):
            raise game.ruleset.turn_refusal(game.state, seat)
        return game, seat, off_the_loop(self.decision(game, seat, strongest_level(game.ruleset.id)))

    # --- the worker's batches -------------------------------------------------------------

    def play_computers(self, game_ids: Sequence[str]) -> Played:
        """Make the move of the computer seat whose turn it is in each game, if any (a worker's
        batch of jobs): read in one round trip, decided one after the other, written together (one
        round trip, and one sync of Redis's append-only file for them all). Another worker making
        the same move first makes this one's commit fail: a move is never applied twice. A game
        whose move cannot be made is logged and skipped (as idle): it would fail on every worker."""
        moves: list[tuple[Game, int]] = []
        played = Played(set(), {})
        thinking_since = time.monotonic()
        for game_id, stored in zip(game_ids, self.repository.store.load_many(list(game_ids))):
            try:
                move = self._computer_move(game_id, stored)
            except RedisError:
                raise  # the batch stays claimed: the worker takes it back, or it falls due again
            except Exception:
                log.exception("the computer move in game %s failed", game_id)
                move = None
            if move is not None:
                moves.append(move)
            else:
                played.idle[game_id] = stored.version if stored is not None else None
            if moves and time.monotonic() - thinking_since > BATCH_THINKING_SECONDS:
                # long thinking (experts) does not hold up the moves decided before it
                self._commit_moves(moves, played)
                moves, thinking_since = [], time.monotonic()
        self._commit_moves(moves, played)
        return played

    def _computer_move(self, game_id: str, stored: Stored | Legacy | None) -> tuple[Game, int] | None:
        """The game with its computer's move applied, and the version it was read at; None if
        no computer is to move (or the game is gone)."""
        if stored is None:
            return None
        game = self.repository.from_stored(game_id, stored) if isinstance(stored, Stored) else self.repository.load(game_id)
        seat = game.computer_to_act()
        if seat is None:
            return None
        level = game.seats[seat].bot
        assert level is not None  # computer_to_act names only computer seats
        action = self.decide(game, seat, level)
        start = game.version
        game.act(seat, action)
        return game, start

    def _commit_moves(self, moves: list[tuple[Game, int]], played: Played) -> None:
        """:meth:`Repository.commit` for the moves of a batch, in one round trip."""
        store = self.repository.store
        writes = [self.repository.prepare(game, start) for game, start in moves]
        for (game, _), commit in zip(moves, store.commit_all(writes) if writes else []):
            if commit.written:
                game.committed()
                played.written.add(game.id)
