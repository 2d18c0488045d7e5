"""The card-set masks the search strategies play on."""

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import STANDARD, Deck, Rank, cards, highest, lowest, mask_of, members

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
    assert STANDARD.mask(["2C", "AS"]) == STANDARD.mask(cards("2C AS")) == 1 | 1 << 51


def test_a_deck_numbers_each_suit_from_its_weakest_card_and_lists_cards_in_the_canonical_order():
    sixty_six = Deck((Rank.NINE, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.TEN, Rank.ACE))
    assert [sixty_six.number[card] for card in cards("9C TC AC JD")] == [0, 4, 5, 7]
    assert sixty_six.codes(sixty_six.mask(["AC", "JD", "TC", "9C"])) == ["9C", "TC", "AC", "JD"]
    assert sixty_six.above[sixty_six.number[cards("KS")[0]]] == sixty_six.mask(["TS", "AS"])
