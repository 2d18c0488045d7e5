"""The deals the experts sample for the cards they cannot see never contradict what is public:
at random points of random matches, every sampled deal gives the seat its own cards and what it
was shown (the open hand, a marriage's partner, the trump card taken or under the talon), puts
no card where a failure to follow, to win or to trump showed it cannot be, and hands each seat
and the stock exactly as many cards as they hold; and the real deal meets the same constraints
(what the players infer is sound)."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import members
from engine.players.batak import DealSampler, Knowledge
from engine.players.german_whist import SUIT_MASKS, Sampler, read_knowledge
from engine.players.sixty_six import read, sample
from engine.shuffle import SeededRandom
from tests.test_players import decision_points

SAMPLES = 8
EXAMPLES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@EXAMPLES
@given(st.integers(0, 10**6), st.sampled_from([{}, {"variant": "schnapsen"}, {"no_talon": True}]))
def test_sixty_six_samples_keep_to_public_information(number, options):
    for state, info in itertools.islice(decision_points("sixty-six", options, f"sampling-{number}"), 0, None, 3):
        knowledge = read(info)
        seat, other = info.seat, 1 - info.seat
        lead = knowledge.lead
        # the real deal meets the constraints: nothing barred is held, the known cards are
        assert not state.hands[other] & knowledge.barred
        assert state.hands[other] & knowledge.opponent_known == knowledge.opponent_known
        real_hidden = state.hands[other] | sum(1 << card for card in state.talon)
        rng = SeededRandom(f"s{number}", "sampling")
        for _ in range(SAMPLES):
            dealt = sample(knowledge, rng)
            assert dealt.hands[seat] == state.hands[seat]
            opponent = dealt.hands[other] & ~(1 << lead if lead is not None else 0)
            assert opponent.bit_count() == state.hands[other].bit_count()
            assert opponent & knowledge.opponent_known == knowledge.opponent_known
            assert not opponent & knowledge.barred
            if knowledge.talon_open:
                assert dealt.talon[-1] == state.trump_card  # the trump card's place
                assert len(dealt.talon) - 1 == len(state.talon)
                assert opponent | sum(1 << card for card in dealt.talon[:-1]) == real_hidden
            elif state.talon:  # closed: the face-down cards are the opponent's or out of play
                assert not opponent & ~real_hidden
            else:
                assert opponent == state.hands[other]  # nothing else is hidden: exact


@EXAMPLES
@given(st.integers(0, 10**6))
def test_german_whist_samples_keep_to_public_information(number):
    for state, info in itertools.islice(decision_points("german-whist", {}, f"sampling-{number}", limit=60), 0, None, 3):
        table = read_knowledge(info)
        if table.face_up < 0:
            continue  # phase 2: every card is known, nothing is sampled
        other = 1 - info.seat
        pool = table.unseen & ~table.opponent_known & ~(1 << table.face_up)
        hidden = table.opponent_size - table.opponent_known.bit_count()
        real_unknown = state.hands[other] & ~table.opponent_known
        if table.led >= 0:
            pool &= ~(1 << table.led)
        # the real deal meets the caps the opponent's showing out set
        for suit, cap in enumerate(table.caps):
            assert cap < 0 or (real_unknown & SUIT_MASKS[suit]).bit_count() <= cap
        assert state.hands[other] & table.opponent_known == table.opponent_known
        sampler = Sampler(pool, hidden, table.caps)
        rng = SeededRandom(f"s{number}", "sampling")
        for _ in range(SAMPLES):
            unknown, stock = sampler.draw(rng)
            assert unknown.bit_count() == hidden == real_unknown.bit_count()
            assert not unknown & ~pool and not unknown & table.opponent_known
            assert len(stock) == len(state.stock) - 1  # the face-up card stays where it lies
            assert unknown | sum(1 << card for card in stock) == real_unknown | sum(1 << card for card in state.stock[1:])
            for suit, cap in enumerate(table.caps):
                assert cap < 0 or (unknown & SUIT_MASKS[suit]).bit_count() <= cap


@EXAMPLES
@given(st.integers(0, 10**6))
def test_batak_samples_keep_to_public_information(number):
    for state, info in itertools.islice(decision_points("partnership-batak", {}, f"sampling-{number}", limit=80), 0, None, 4):
        knowledge = Knowledge.of(info)
        for seat in range(4):
            assert not state.hands[seat] & knowledge.excluded[seat]  # the rules' inferences are sound
        rng = SeededRandom(f"s{number}", "sampling")
        sampler = DealSampler(knowledge, rng)
        for _ in range(SAMPLES):
            hands = sampler.sample()
            assert sum(hands[seat].bit_count() for seat in range(4)) == sum(hand.bit_count() for hand in state.hands)
            for seat in range(4):
                assert hands[seat].bit_count() == state.hands[seat].bit_count()
                assert not hands[seat] & knowledge.excluded[seat]
                assert not hands[seat] & sum(knowledge.played)
                if knowledge.known[seat]:  # its own hand, the open hand
                    assert hands[seat] == state.hands[seat]
            assert set(members(hands[0] | hands[1] | hands[2] | hands[3])) == set(members(sum(state.hands)))
