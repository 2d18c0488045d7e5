"""The card-set masks the rules and the search strategies play on."""

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import STANDARD, Deck, Rank, cards, highest, lowest, mask_of, members
from engine import batak
from engine.sixty_six import DECK as SIXTY_SIX_DECK
from engine.sixty_six import denied_by_reply, follower_cards

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


@given(st.sampled_from([STANDARD, SIXTY_SIX_DECK]), st.integers(-1, 3), st.data())
def test_a_card_takes_the_trick_with_a_stronger_card_of_its_suit_or_a_trump_over_a_side_suit(deck, trump, data):
    win, card = data.draw(st.lists(st.integers(0, len(deck.cards) - 1), min_size=2, max_size=2, unique=True))
    same_suit = deck.suit(card) == deck.suit(win)
    takes = card > win if same_suit else trump >= 0 and deck.suit(card) == trump
    assert bool(deck.beaters[trump][win] >> card & 1) == takes


@given(st.sampled_from([STANDARD, SIXTY_SIX_DECK]), st.integers(-1, 3), st.data())
def test_a_trick_is_won_by_the_card_that_beat_every_card_before_it_and_its_place_is_where_it_was_played(deck, trump, data):
    trick = data.draw(st.lists(st.integers(0, len(deck.cards) - 1), min_size=1, max_size=4, unique=True))
    place = 0
    for offset in range(1, len(trick)):
        if deck.beaters[trump][trick[place]] >> trick[offset] & 1:
            place = offset
    assert deck.winning(trick, trump) == (trick[place], place)


def test_a_trick_not_led_yet_has_no_winner():
    assert STANDARD.winning([], 0) == (-1, -1)


@given(st.integers(0, (1 << 24) - 1), st.integers(0, 23), st.integers(0, 3))
def test_a_sixty_six_reply_denies_only_cards_its_follower_could_not_hold(hand, lead, trump):
    """With the talon closed, whatever a follower plays, the cards it is then known not to hold
    are none of its hand's."""
    hand &= ~(1 << lead)
    for reply in members(follower_cards(hand, lead, trump, talon_open=False)):
        assert not hand & denied_by_reply(lead, reply, trump), reply


@given(st.integers(0, (1 << 52) - 1), st.lists(st.integers(0, 51), min_size=1, max_size=3, unique=True), st.integers(0, 3), st.booleans())
def test_a_batak_card_denies_only_cards_its_player_could_not_hold(hand, trick, trump, may_lead_trump):
    """Whatever a seat plays by the rules, the cards it is then known not to hold are none of its hand's."""
    hand &= ~mask_of(trick)
    led, (win, _) = trick[0] // 13, batak.winning(0, trick, trump)
    for card in members(batak.legal_mask(hand, led, win, trump, may_lead_trump)):
        assert not hand & batak.denied_by_card(card, led, win, trump, may_lead_trump), card
    for card in members(batak.legal_mask(hand, -1, -1, trump, may_lead_trump)):
        assert not hand & batak.denied_by_card(card, -1, -1, trump, may_lead_trump), card


#: decks whose selectors look up a suit at a time (13 and 7 cards a suit) and two suits at a time (6 and 3)
SELECTOR_DECKS = [
    STANDARD,
    Deck((Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING)),
    SIXTY_SIX_DECK,
    Deck((Rank.JACK, Rank.QUEEN, Rank.KING)),
]


@given(st.sampled_from(SELECTOR_DECKS), st.data())
def test_a_selector_gives_the_items_of_a_masks_cards_in_the_canonical_order(deck, data):
    select = deck.selector([card.code for card in deck.cards])
    for numbers in data.draw(st.lists(st.sets(st.integers(0, len(deck.cards) - 1)), max_size=5)):
        mask = mask_of(numbers)
        assert select(mask) == tuple(card.code for card in sorted(deck.card_tuple(mask)))
