"""Whole matches over HTTP with random legal actions for every seat, under every option.

Every answer is checked for leaks against the true state (read from the store, white-box), and
refused probes are sent along the way: each must answer problem+json with its code and change
nothing.
"""

from __future__ import annotations

import itertools
import random

import pytest

from engine import registry
from engine import Action
from engine.ruleset import replay
from tests.api import FlaskClient
from tests.support import card_codes_in, concealed_cards

WHIST_OPTIONS = [
    dict(zip(("scoring", "count_all_tricks", "no_trump", "misere"), values))
    for values in itertools.product(("tricks", "over-six"), (False, True), (False, True), (False, True))
]
SIXTY_SIX_OPTIONS = [
    dict(zip(("variant", "marriages", "trump_exchange", "open_scores", "no_talon", "exhausted_talon"), values))
    for values in itertools.product(
        ("sixty-six", "schnapsen"), (True, False), (True, False), (False, True), (False, True), ("last-trick", "last-trick-ten")
    )
    if not (values[0] == "schnapsen" and values[5] == "last-trick-ten")
]
BATAK_OPTIONS = [
    {"trump_lead_before_broken": lead, "target": target} for lead in (False, True) for target in (21, 31, 51)
] + [{"trump_lead_before_broken": lead, "target": 21} for lead in (False, True)]
#: (ruleset, options): German Whist, 192 single deals over every option combination and 8 matches
#: to a target; Sixty-Six, a whole match under every valid option combination of both variants;
#: Batak, a whole match under every option combination, four human seats
MATCHES = (
    [("german-whist", options) for options in WHIST_OPTIONS for _ in range(12)]
    + [("german-whist", {**options, "target": target}) for options, target in zip(WHIST_OPTIONS[::2], (10, 20) * 4)]
    + [("sixty-six", {**options, "target": (5, 7, 9, 11)[index % 4]}) for index, options in enumerate(SIXTY_SIX_OPTIONS)]
    + [("partnership-batak", options) for options in BATAK_OPTIONS]
)
#: chance of passing when a pass is legal: uniformly random Batak bids mostly fail, and a match of
#: failed contracts may never reach its target
PASS_CHANCE = 0.85
CHUNK = 5
#: chance of probing with refused requests before an action
PROBE_CHANCE = 0.25
#: actions of every type; any that is not legal at a moment must be refused with a rule's code
PROBE_ACTIONS = [
    {"type": "pass"},
    {"type": "bid", "value": 8},
    {"type": "trump", "suit": "H"},
    {"type": "exchange"},
    {"type": "close"},
    {"type": "declare"},
    {"type": "marriage", "card": "KH"},
    {"type": "marriage", "card": "QS"},
    {"type": "marriage", "card": "KH", "declare": True},
]
#: Sixty-Six: a marriage that claims 66 is taken whenever offered, so that every match under
#: marriages posts some; a claim alone or a close only with this chance, as random ones mostly
#: end a deal early or rule marriages out
SELDOM_CHANCE = 0.2
SELDOM = ({"type": "declare"}, {"type": "close"})


class Match:
    """One match driven over HTTP, with the app's store at hand for white-box leak checks."""

    def __init__(self, app, ruleset_id: str, options: dict, seed: str) -> None:
        self.api = FlaskClient(app.test_client())
        self.tables = app.extensions["koz"]
        self.ruleset = registry.get(ruleset_id)
        seats = [{"name": f"P{index}"} for index in range(self.ruleset.seat_count)]
        created = self.api.create(ruleset=ruleset_id, options=options, seats=seats, seed=seed)
        assert created.status == 201, created.body
        self.id = created.body["id"]
        self.options = created.body["options"]
        self.tokens = {entry["seat"]: entry["token"] for entry in created.body["tokens"]}
        self.rng = random.Random(seed)  # the actions played
        self.probes = random.Random(f"{seed}-probes")  # when to probe and with what: the match played does not depend on it
        self.claims_offered = self.claims_made = 0  # marriages with declare: true (Sixty-Six)
        self.histories: dict[int | None, list] = {}  # each viewer's history events read so far
        self.history_read = -1  # the version they were read to
        self.loaded = None  # the state as of the last action

    def state(self):
        """The true state, read from the store once per action (refused requests change nothing)."""
        if self.loaded is None:
            self.loaded = self.tables.repository.load(self.id).state
        return self.loaded

    def check_no_leak(self, body, seat):
        """No card ``seat`` may not see now appears in a view or in this deal's events. (Cards of
        earlier deals were played face up then and may be in a hand again now.)"""
        leaked = card_codes_in(body) & concealed_cards(self.ruleset.id, self.state(), seat)
        assert not leaked, f"seat {seat} was shown {sorted(leaked)}"

    def version(self) -> int:
        return self.api.view(self.id).body["version"]

    def refused(self, answer, status, codes):
        assert answer.status == status and answer.code in codes, (answer.status, answer.body)
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert answer.body["detail"]

    def probe(self, view, seat):
        """Send a few requests that must be refused, and check each refusal, and that together
        they changed nothing (a change cannot be undone by a later refusal)."""
        version = view["version"]
        waiting = [other for other in self.tokens if other not in view["to_act"]]
        if waiting:
            other = self.probes.choice(waiting)
            hand = self.api.view(self.id, self.tokens[other]).body["hand"] or ["AS"]
            answer = self.api.act(self.id, {"type": "play", "card": self.probes.choice(hand)}, self.tokens[other])
            self.refused(answer, 409, {"not_your_turn", "dummy_cannot_act", "not_in_auction", "not_declarer"})
        legal = {(a["type"], a.get("card")) for a in view["legal_actions"]}
        illegal = [card for card in view["hand"] if ("play", card) not in legal]
        if illegal:
            answer = self.api.act(self.id, {"type": "play", "card": self.probes.choice(illegal)}, self.tokens[seat])
            self.refused(answer, 422, {answer.code})
            assert answer.body["legal_actions"] == view["legal_actions"]
        unlisted = [action for action in PROBE_ACTIONS if action not in view["legal_actions"]]
        if unlisted:
            answer = self.api.act(self.id, self.probes.choice(unlisted), self.tokens[seat])
            self.refused(answer, 422, {answer.code})
            assert answer.body["legal_actions"] == view["legal_actions"]
        answer = self.api.act(self.id, view["legal_actions"][0], "forged-token")
        self.refused(answer, 401, {"invalid_token"})
        answer = self.api.act(self.id, view["legal_actions"][0], self.tokens[seat], **{"If-Match": f'W/"{version - 1}"'})
        self.refused(answer, 412, {"stale_version"})
        assert self.version() == version, "a refused request changed the game"

    def pick(self, legal):
        """A random legal action (passing more often than not, where passing is legal; claiming
        66 with a marriage where that is offered; claiming alone or closing seldom)."""
        if {"type": "pass"} in legal and self.rng.random() < PASS_CHANCE:
            return {"type": "pass"}
        marriage_claims = [action for action in legal if action.get("declare")]
        if marriage_claims:
            return self.rng.choice(marriage_claims)
        if self.rng.random() >= SELDOM_CHANCE:
            legal = [action for action in legal if action not in SELDOM] or legal
        return self.rng.choice(legal)

    def check_histories(self):
        """Every viewer's history of this deal so far shows it no card it may not see. Each reads
        on from where it read last, as a client following the match would (and as a long match
        must: rereading it whole at every check grows with the square of its length)."""
        version = self.version()
        for seat in [None, *self.tokens]:
            events = self.histories.setdefault(seat, [])
            events += self.api.whole_history(self.id, self.tokens.get(seat), after=self.history_read)["events"]
            deal_starts = [index for index, event in enumerate(events) if event["type"] == "deal"]
            self.check_no_leak(events[deal_starts[-1] :], seat)
        self.history_read = version

    def play(self) -> None:
        step, latest = 0, None  # latest: the view the last action answered with
        while True:
            if step % 4 == 0:  # a spectator's view, checked every few steps
                latest = self.api.view(self.id).body
                self.check_no_leak(latest, None)
            if latest["status"] == "finished":  # (who is to act is public: any view says it)
                break
            seat = self.rng.choice(latest["to_act"])
            view = self.api.view(self.id, self.tokens[seat]).body
            self.check_no_leak(view, seat)
            if self.probes.random() < PROBE_CHANCE:
                self.probe(view, seat)
            if step % 40 == 20:
                self.check_histories()
            action = self.pick(view["legal_actions"])
            answer = self.api.act(self.id, action, self.tokens[seat])
            assert answer.status == 200, answer.body
            self.loaded = None
            self.check_no_leak(answer.body, seat)
            latest = answer.body
            self.claims_offered += any(offered.get("declare") for offered in view["legal_actions"])
            if action.get("declare"):  # the marriage and the claim in one action end the deal
                self.claims_made += 1
                result = answer.body["last_deal"]
                assert result["claimed_by"] == seat and not result["deemed_claim"] and result["marriage_points"][seat] > 0
            step += 1
        self.check_finished()
        if self.ruleset.id == "sixty-six":
            assert self.claims_made > 0 if self.options["marriages"] else self.claims_offered == 0

    def check_finished(self):
        view = self.api.view(self.id).body
        body = self.api.whole_history(self.id)
        events, reveal = body["events"], body["reveal"]
        moves = [(event["seat"], Action.from_json(event["action"])) for event in events if event["type"] == "action"]
        final = replay(self.ruleset, self.options, reveal["seed"], moves)
        assert self.ruleset.result(final).scores == tuple(view["scores"])
        assert list(self.ruleset.result(final).winners) == view["winners"]
        assert self.ruleset.dump(final) == self.ruleset.dump(self.state())


@pytest.mark.parametrize("chunk", range(0, len(MATCHES), CHUNK), ids=lambda start: f"matches-{start}-{start + CHUNK - 1}")
def test_random_legal_play_over_http_finishes_without_leaks_and_every_refusal_explains_itself(app, chunk):
    for number, (ruleset_id, options) in enumerate(MATCHES[chunk : chunk + CHUNK], start=chunk):
        Match(app, ruleset_id, options, seed=f"playthrough-{number}").play()


def test_two_hundred_german_whist_matches_and_every_option_combination_of_the_others_are_played():
    assert sum(ruleset == "german-whist" for ruleset, _ in MATCHES) == 200
    assert len(SIXTY_SIX_OPTIONS) == 48
    combinations = {(lead, target) for lead in (False, True) for target in (21, 31, 51)}
    assert {(o["trump_lead_before_broken"], o["target"]) for o in BATAK_OPTIONS} == combinations
