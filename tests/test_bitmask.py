"""The card-set masks the search strategies play on."""

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import cards
from engine.players.bitmask import deck_mask, highest, lowest, mask_of, members

CARD_NUMBERS = st.sets(st.integers(min_value=0, max_value=51))


@given(CARD_NUMBERS)
def test_a_mask_holds_exactly_its_cards_lowest_first(numbers):
    assert members(mask_of(numbers)) == sorted(numbers)


@given(CARD_NUMBERS.filter(bool))
def test_lowest_and_highest_are_the_ends_of_the_set(numbers):
    assert (lowest(mask_of(numbers)), highest(mask_of(numbers))) == (min(numbers), max(numbers))


def test_an_empty_mask_has_no_highest_card():
    assert highest(0) == -1


def test_deck_masks_number_cards_by_their_index_from_cards_or_codes():
    assert deck_mask(["2C", "AS"]) == deck_mask(cards("2C AS")) == 1 | 1 << 51
