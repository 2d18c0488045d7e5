"""The rules of play, checked in every game over random matches (hypothesis): at every card to
be played, the cards a seat may play are exactly those RULES.md allows, worked out here from the
hand, the trick and the trump alone (by card codes, not the engine's masks), and a card outside
them is refused.

Above all: a seat holding the suit led never plays another (German Whist always, Batak always,
Sixty-Six once the talon is closed or gone); then each game's own duties (Batak: head the trick,
trump when void, no trump lead before trump is broken; Sixty-Six's second phase: win the trick
if able, else trump if able)."""

from __future__ import annotations

import itertools
import random
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Card, Play, RuleError, registry
from tests.support import random_playout

SUITS = "CDHS"  # suit numbers in the engine's order, as a card code writes them
#: ranks from the weakest to the strongest, as RULES.md orders them
FULL_RANKS = "23456789TJQKA"
SIXTY_SIX_RANKS = "9JQKTA"


def suit(code: str) -> str:
    return code[-1]


def strength(code: str, ranks: str) -> int:
    return ranks.index(code[:-1])


def german_whist_plays(hand: set[str], trick: list[str], trump: str | None, **_: Any) -> set[str]:
    if not trick:
        return hand
    following = {card for card in hand if suit(card) == suit(trick[0])}
    return following or hand


def sixty_six_plays(hand: set[str], trick: list[str], trump: str | None, strict: bool, **_: Any) -> set[str]:
    if not trick or not strict:  # the leader, or the follower while the talon is open: any card
        return hand
    (led,) = trick
    following = {card for card in hand if suit(card) == suit(led)}
    if following:
        winning = {card for card in following if strength(card, SIXTY_SIX_RANKS) > strength(led, SIXTY_SIX_RANKS)}
        return winning or following
    trumps = {card for card in hand if suit(card) == trump}
    return trumps or hand


def batak_plays(hand: set[str], trick: list[str], trump: str | None, trump_broken: bool, trump_lead_allowed: bool, **_: Any) -> set[str]:
    if not trick:
        if trump_broken or trump_lead_allowed:
            return hand
        return {card for card in hand if suit(card) != trump} or hand
    led = suit(trick[0])
    following = {card for card in hand if suit(card) == led}
    if following:
        trumped = led != trump and any(suit(card) == trump for card in trick)
        if trumped:
            return following
        best = max(strength(card, FULL_RANKS) for card in trick if suit(card) == led)
        return {card for card in following if strength(card, FULL_RANKS) > best} or following
    trumps = {card for card in hand if suit(card) == trump}
    if trumps:
        best_trump = max((strength(card, FULL_RANKS) for card in trick if suit(card) == trump), default=-1)
        return {card for card in trumps if strength(card, FULL_RANKS) > best_trump} or trumps
    return hand


german_whist_options = st.fixed_dictionaries(
    {"no_trump": st.booleans(), "count_all_tricks": st.booleans(), "target": st.sampled_from([0, 10])}
)
batak_options = st.fixed_dictionaries({"target": st.sampled_from([21, 31]), "trump_lead_before_broken": st.booleans()})
sixty_six_options = st.sampled_from(
    [
        {"variant": variant, "no_talon": no_talon, "marriages": marriages, "target": 5}
        for variant, no_talon, marriages in itertools.product(("sixty-six", "schnapsen"), (False, True), (True, False))
    ]
)
OPTIONS = {"german-whist": german_whist_options, "partnership-batak": batak_options, "sixty-six": sixty_six_options}
EXPECTED = {"german-whist": german_whist_plays, "partnership-batak": batak_plays, "sixty-six": sixty_six_plays}


#: random play rarely ends a Batak match (a random declarer goes down): the first deals suffice
DEALS_CHECKED = 3


def plays_to_check(ruleset_id: str, options: dict[str, Any], seed: str, rng_seed: int) -> Iterator[dict[str, Any]]:
    """At every card to be played in the first deals of a random match: who plays, from which
    hand, and what the rules allow there."""
    ruleset = registry.get(ruleset_id)
    deck = ruleset.deck
    trump_broken = False
    before = None
    deals = 0
    for state, _, _, events in random_playout(ruleset, options, seed, random.Random(rng_seed)):
        for event in events:  # a trump played to a completed trick of this deal breaks trump
            if event.data["type"] == "deal":
                trump_broken = False
                deals += 1
            elif event.data["type"] == "trick" and before is not None and before.trump is not None:
                trump_broken |= any(suit(entry["card"]) == SUITS[before.trump] for entry in event.data["cards"])
        before = state
        if deals > DEALS_CHECKED:
            return
        trick = getattr(state, "trick", None)
        if ruleset.result(state) is not None or trick is None or state.trump is None and ruleset_id == "partnership-batak":
            continue
        turn = (trick.leader + len(trick.cards)) % ruleset.seat_count
        actors = ruleset.to_act(state)
        plays = {seat: {action.card.code for action in ruleset.legal_actions(state, seat) if isinstance(action, Play)} for seat in actors}
        if not any(plays.values()):
            continue  # a bid, a trump to name, or a Sixty-Six leader's option: no card yet
        (actor,) = [seat for seat in actors if plays[seat]]
        trump = SUITS[state.trump] if 0 <= state.trump < len(SUITS) else None
        hand = set(deck.codes(state.hands[turn]))
        # Sixty-Six's follower must follow once the talon is closed or gone (or with no talon)
        strict = ruleset_id != "sixty-six" or not (state.talon and state.closing is None)
        allowed = EXPECTED[ruleset_id](
            hand,
            [deck.code(card) for card in trick.cards],
            trump,
            strict=strict,
            trump_broken=trump_broken,
            trump_lead_allowed=options.get("trump_lead_before_broken", False),
        )
        trick_codes = [deck.code(card) for card in trick.cards]
        yield {"state": state, "actor": actor, "hand": hand, "trick": trick_codes, "strict": strict, "allowed": allowed, "offered": plays[actor]}


@pytest.mark.parametrize("ruleset_id", sorted(EXPECTED))
def test_a_seat_plays_exactly_the_cards_the_rules_allow(ruleset_id):
    @settings(max_examples=12)
    @given(OPTIONS[ruleset_id], st.text(min_size=1, max_size=8), st.integers(0, 2**32))
    def check(options, seed, rng_seed):
        ruleset = registry.get(ruleset_id)
        checked = 0
        for point in plays_to_check(ruleset_id, options, seed, rng_seed):
            assert point["offered"] <= point["hand"], "a card offered that is not in the hand to play"
            assert point["offered"] == point["allowed"], (point["hand"], point["trick"], point["state"].trump)
            refused = sorted(point["hand"] - point["allowed"])
            if refused:  # a card the rules forbid is refused, not played
                with pytest.raises(RuleError):
                    ruleset.apply(point["state"], point["actor"], Play(Card.parse(refused[0])))
            checked += 1
        assert checked > 0

    check()


@pytest.mark.parametrize("ruleset_id", sorted(EXPECTED))
def test_a_seat_holding_the_suit_led_never_plays_another(ruleset_id):
    """Over random matches, the cards actually played: whoever holds the suit led follows it
    (in Sixty-Six, once the talon is closed or gone)."""

    @settings(max_examples=12)
    @given(OPTIONS[ruleset_id], st.text(min_size=1, max_size=8), st.integers(0, 2**32))
    def check(options, seed, rng_seed):
        for point in plays_to_check(ruleset_id, options, seed, rng_seed):
            trick = point["trick"]
            if not trick or not point["strict"]:
                continue
            led = suit(trick[0])
            if any(suit(card) == led for card in point["hand"]):
                assert all(suit(card) == led for card in point["offered"]), f"holding {led}, may play {sorted(point['offered'])}"

    check()


@pytest.mark.parametrize("ruleset_id", sorted(EXPECTED))
def test_random_matches_do_reach_followers_who_hold_the_suit_led(ruleset_id):
    """The two properties above are not vacuous: random matches of every game bring followers
    holding the suit led, and (Batak, Sixty-Six's second phase) duties beyond following."""
    options = {"german-whist": {}, "partnership-batak": {"target": 21}, "sixty-six": {"target": 5, "no_talon": True}}[ruleset_id]
    following, narrower = 0, 0
    for point in (point for rng_seed in range(10) for point in plays_to_check(ruleset_id, options, "reach", rng_seed)):
        trick = point["trick"]
        if trick and point["strict"] and any(suit(card) == suit(trick[0]) for card in point["hand"]):
            following += point["allowed"] < point["hand"]
            narrower += point["allowed"] < {card for card in point["hand"] if suit(card) == suit(trick[0])}
    assert following >= 20
    if ruleset_id != "german-whist":
        assert narrower >= 1  # a follower had to head the trick, not merely follow
