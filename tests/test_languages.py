"""Koz in English and Turkish: every text in both languages, no English left in a Turkish one,
and the language a request asks for in its problems and in the catalog; codes never change."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine import actions, registry, rules
from engine.cards import Card
from engine.players import base as players
from engine.ruleset import COMMON_MESSAGES, COMMON_REFUSALS
from engine.texts import LANGUAGES, card_name
from service import texts
from service.api import HTTP_ERROR_CODES
from tests.api import FlaskClient

SERVICE = Path(__file__).resolve().parent.parent / "service"

#: English words a Turkish sentence never needs (a sample of the most common ones)
ENGLISH_WORDS = {
    "the",
    "is",
    "are",
    "not",
    "and",
    "or",
    "you",
    "your",
    "must",
    "may",
    "with",
    "of",
    "to",
    "in",
    "on",
    "only",
    "has",
    "have",
    "there",
    "this",
    "game",
    "card",
    "trick",
    "trump",
    "hand",
    "seat",
    "try",
    "again",
    "cannot",
    "when",
    "once",
    "before",
    "after",
    "no",
    "be",
    "by",
    "as",
    "for",
}
#: words Turkish and English share: names, protocols and the game words Turkish players use
SHARED_WORDS = {"json", "unicode", "redis", "koz", "normal", "talon", "whist", "schnapsen", "application"}
#: the codes of the protocol a text may name: headers, fields, values
SHARED_WORDS |= {"authorization", "bearer", "idempotency-key", "if-match", "last-event-id", "declare", "true", "false"}


def every_text():
    """(where, text) for every text Koz shows: refusals, messages, options, labels, service details."""
    yield from (("engine refusal " + code, text) for code, text in COMMON_REFUSALS.items())
    yield from (("engine message " + name, text) for name, text in COMMON_MESSAGES.items())
    yield from (("action message " + name, text) for name, text in actions.MESSAGES.items())
    yield from (("option message " + name, text) for name, text in rules.OPTION_MESSAGES.items())
    yield "unknown ruleset", registry.UNKNOWN_RULESET
    yield "unknown level", players.UNKNOWN_LEVEL
    for ruleset in registry.all_rulesets():
        yield from ((f"{ruleset.id} refusal {code}", text) for code, text in ruleset.refusal_codes.items())
        yield from ((f"{ruleset.id} message {name}", text) for name, text in ruleset.messages.items())
        yield from ((f"{ruleset.id} label {code}", names) for code, names in ruleset.table_labels.items())
        for option in ruleset.options:
            yield f"{ruleset.id} option {option.code}", option.names
            yield f"{ruleset.id} option {option.code} description", option.description
            yield from ((f"{ruleset.id} option {option.code} = {value}", names) for value, names in option.labels.items())
    yield from (("service detail " + name, text) for name, text in texts.DETAILS.items())


def words(text: str) -> set[str]:
    """The words of a text, without its placeholders and quoted codes."""
    # a quote opens after a non-letter (a Turkish suffix follows an apostrophe: "66'yı")
    text = re.sub(r"\{[^}]*\}|\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)|<[^>]*>", " ", text)
    return {word.lower() for word in re.findall(r"[^\W\d_][\w-]*", text) if word.isascii()}


@pytest.mark.parametrize("where, text", list(every_text()), ids=lambda value: value if isinstance(value, str) else "")
def test_every_text_is_written_in_every_language(where, text):
    assert set(text) == set(LANGUAGES) and all(text[language].strip() for language in LANGUAGES)


@pytest.mark.parametrize("where, text", list(every_text()), ids=lambda value: value if isinstance(value, str) else "")
def test_no_english_is_left_in_a_turkish_text(where, text):
    english, turkish = words(text["en"]), words(text["tr"])
    assert turkish.isdisjoint(ENGLISH_WORDS)
    assert not {word for word in english & turkish if len(word) > 3} - SHARED_WORDS
    assert text["tr"] != text["en"] or turkish <= SHARED_WORDS


def test_every_problem_the_service_raises_has_a_text_and_a_turkish_title():
    raised = []
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem" and len(node.args) >= 3:
                status, code, detail = node.args[:3]
                raised.append((status, code, detail))
    assert len(raised) > 20
    for status, code, detail in raised:
        assert not isinstance(status, ast.Constant) or status.value in texts.TURKISH_TITLES
        if isinstance(detail, ast.Constant):
            assert detail.value in texts.DETAILS, code.value
    assert {code for status, code in HTTP_ERROR_CODES.items() if status != 500} <= set(texts.DETAILS)
    assert set(HTTP_ERROR_CODES) <= set(texts.TURKISH_TITLES)


def test_every_refusal_code_of_every_ruleset_is_explained_in_both_languages():
    for ruleset in registry.all_rulesets():
        for code, text in ruleset.refusals().items():
            assert set(text) == set(LANGUAGES), (ruleset.id, code)


def test_cards_are_named_in_the_turkish_possessive():
    assert [card_name(code, "tr") for code in ("QS", "AH", "JC", "TD", "9H", "KD", "2S")] == [
        "Maça Kızı",
        "Kupa Ası",
        "Sinek Valesi",
        "Karo Onlusu",
        "Kupa Dokuzlusu",
        "Karo Papazı",
        "Maça İkilisi",
    ]
    assert Card.parse("QS").names() == {"en": "Queen of Spades", "tr": "Maça Kızı"}


def test_every_listed_value_of_a_string_option_has_a_label():
    for ruleset in registry.all_rulesets():
        for option in ruleset.options:
            if option.type == "string":
                assert set(option.labels) == set(option.allowed), (ruleset.id, option.code)


# --- over HTTP ---------------------------------------------------------------------------


@pytest.fixture
def api(client):
    return FlaskClient(client)


@pytest.fixture
def whist(api):
    """A German Whist game between two humans, and the seat to act with a card it does not hold."""
    answer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="languages")
    tokens = {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}
    view = api.view(answer.body["id"], tokens[answer.body["tokens"][0]["seat"]]).body
    (seat,) = view["to_act"]
    hand = set(api.view(answer.body["id"], tokens[seat]).body["hand"])
    missing = next(code for code in ("QS", "AH", "JC", "TD", "KD", "2S") if code not in hand)
    return answer.body["id"], tokens[seat], missing


def test_a_refused_action_is_explained_in_turkish_when_asked(api, whist):
    game_id, token, missing = whist
    english = api.act(game_id, {"type": "play", "card": missing}, token)
    turkish = api.act(game_id, {"type": "play", "card": missing}, token, **{"Accept-Language": "tr-TR,tr;q=0.9,en;q=0.5"})
    assert english.code == turkish.code == "card_not_in_hand"
    assert english.headers["Content-Language"] == "en" and turkish.headers["Content-Language"] == "tr"
    assert "Accept-Language" in turkish.headers["Vary"]
    assert english.body["detail"] == f"{card_name(missing, 'en')} is not in your hand"
    assert turkish.body["detail"] == f"{card_name(missing, 'tr')} elinizde yok"
    assert (english.body["title"], turkish.body["title"]) == ("Unprocessable Entity", "İşlenemeyen istek")
    assert turkish.body["legal_actions"] == english.body["legal_actions"]


def test_the_lang_parameter_wins_over_accept_language(api, whist):
    game_id, token, missing = whist
    answer = api.request(
        "POST", f"/v1/games/{game_id}/actions?lang=tr", json_body={"type": "play", "card": missing}, token=token, headers={"Accept-Language": "en"}
    )
    assert answer.headers["Content-Language"] == "tr" and answer.body["detail"].endswith("elinizde yok")


def test_a_language_koz_does_not_speak_gets_english(api):
    answer = api.request("GET", "/v1/games/nope", headers={"Accept-Language": "de"})
    assert answer.headers["Content-Language"] == "en" and answer.body["detail"] == "there is no game 'nope' (it may have expired)"
    answer = api.request("GET", "/v1/games/nope?lang=de", headers={"Accept-Language": "tr"})
    assert answer.headers["Content-Language"] == "tr"  # an unknown lang is ignored


DEEP = [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]


@pytest.mark.parametrize(
    "method, path, body, headers, status, code, detail",
    [
        ("GET", "/v1/games/nope", None, {}, 404, "unknown_game", "'nope' diye bir oyun yok (süresi dolmuş olabilir)"),
        ("GET", "/v1/nowhere", None, {}, 404, "not_found", "bu adreste bir şey yok"),
        (
            "POST",
            "/v1/games",
            {"ruleset": "tavla"},
            {},
            400,
            "unknown_ruleset",
            "'tavla' diye bir oyun yok; oyunlar: german-whist, partnership-batak, sixty-six",
        ),
        (
            "POST",
            "/v1/games",
            {"ruleset": "sixty-six", "options": {"target": 8}},
            {},
            400,
            "invalid_option",
            "'target' seçeneği 8 olamaz; olabilecekler: 5, 7, 9, 11",
        ),
        ("POST", "/v1/games", {"ruleset": "german-whist", "options": {"colour": 1}}, {}, 400, "unknown_option", None),
        (
            "POST",
            "/v1/games",
            {"ruleset": "german-whist", "seats": [{}]},
            {},
            400,
            "invalid_seats",
            "Alman Whisti oyununda 2 koltuk var, ama 1 koltuk verildi",
        ),
        ("POST", "/v1/games", {"ruleset": 3}, {}, 400, "invalid_request", "'ruleset' geçersiz"),
        ("POST", "/v1/games/nope/actions", {"type": "play", "card": "QS"}, {}, 401, "missing_token", None),
        ("POST", "/v1/games", DEEP, {}, 400, "json_too_deep", "gövde 16 düzeyden derin iç içe"),
    ],
)
def test_the_services_own_problems_speak_turkish(api, method, path, body, headers, status, code, detail):
    answer = api.request(method, path, json_body=body, headers={"Accept-Language": "tr", **headers})
    assert (answer.status, answer.code, answer.headers["Content-Language"]) == (status, code, "tr")
    assert answer.body["title"] == texts.TURKISH_TITLES[status]
    if detail is not None:
        assert answer.body["detail"] == detail


def test_a_body_that_is_not_json_is_refused_in_turkish(client):
    response = client.post("/v1/games", data="ruleset=sixty-six", content_type="text/plain", headers={"Accept-Language": "tr"})
    assert (response.status_code, response.json["code"]) == (415, "unsupported_media_type")
    assert response.json["detail"] == "gövdeyi application/json olarak gönderin"


def test_a_stale_version_is_explained_in_turkish(api, whist):
    game_id, token, _ = whist
    view = api.view(game_id, token).body
    answer = api.act(game_id, view["legal_actions"][0], token, **{"If-Match": 'W/"999"', "Accept-Language": "tr"})
    assert (answer.status, answer.code) == (412, "stale_version")
    assert answer.body["detail"] == f"oyun {view['version']}. sürümde; If-Match'teki sürümde değil"


def test_the_catalog_describes_options_in_the_language_asked_and_labels_them_in_both(api):
    english = api.request("GET", "/v1/rulesets").body
    turkish = api.request("GET", "/v1/rulesets", headers={"Accept-Language": "tr"})
    assert turkish.headers["Content-Language"] == "tr"
    games = {entry["id"]: entry for entry in turkish.body["rulesets"]}
    options = {(game, option["code"]): option for game, entry in games.items() for option in entry["options"]}
    labels = {key: {label["value"]: label["names"]["tr"] for label in option["labels"]} for key, option in options.items()}
    assert labels["partnership-batak", "target"] == {21: "21 (Hızlı)", 31: "31 (Normal)", 51: "51 (Uzun)"}
    assert set(labels["sixty-six", "exhausted_talon"]) == {"last-trick", "last-trick-ten"}
    assert set(labels["sixty-six", "variant"]) == {"sixty-six", "schnapsen"}
    assert games["partnership-batak"]["labels"] == [{"code": "open_hand", "names": {"en": "Open hand", "tr": "Açık el"}}]
    misere = options["german-whist", "misere"]
    assert misere["names"]["tr"] == "Düşük el" and misere["description"].startswith("Az el alan kazanır")
    english_misere = next(option for option in english["rulesets"][0]["options"] if option["code"] == "misere")
    assert english_misere["description"].startswith("Fewest tricks win")
    assert {"code": "QS", "names": {"en": "Queen of Spades", "tr": "Maça Kızı"}} in turkish.body["cards"]
