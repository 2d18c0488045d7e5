"""Koz in English and Turkish: every text in both languages, no English left in a Turkish one,
and the language a request asks for in its problems and in the catalog; codes never change."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import fakeredis
import marshmallow as ma
import pytest

from engine import actions, registry, rules, sixty_six
from engine.cards import Card
from engine.players import base as players
from engine.players import level_names
from engine.ruleset import COMMON_REFUSALS, GAME_NOT_OVER
from engine.texts import LANGUAGES, card_name
from service import texts
from service.api import HTTP_ERROR_CODES
from service.app import create_app
from service.schemas import KIND_SCHEMAS
from service.errors import STATUS_OF
from service.http_server import SERVER_REFUSALS
from tests.api import FlaskClient
from tests.conftest import make_settings

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
SHARED_WORDS |= {"authorization", "bearer", "idempotency-key", "if-match", "last-event-id", "expect", "http", "utf-8"}
SHARED_WORDS |= {"declare", "true", "false", "null"}


def every_text():
    """(where, text) for every text Koz shows: refusals, messages, options, labels, service details."""
    for refusal in (*COMMON_REFUSALS, GAME_NOT_OVER, registry.UNKNOWN_RULESET, players.UNKNOWN_LEVEL):
        yield from ((f"engine refusal {refusal.code}", text) for text in refusal.texts())
    yield "option message integer_range", rules.INTEGER_RANGE
    # the words Sixty-Six's refusals put in their sentences
    yield from ((f"sixty-six talon {name}", text) for name, text in sixty_six.TALON_STATES.items())
    yield from ((f"sixty-six forbidden {kind.type}", text) for kind, text in sixty_six.FORBIDDEN_MOVES.items())
    yield from ((f"sixty-six leader's {kind.type} {part}", text) for kind, words in sixty_six.LEADERS_MOVES.items() for part, text in words.items())
    for ruleset in registry.all_rulesets():
        yield from ((f"{ruleset.id} refusal {refusal.code}", text) for refusal in ruleset.refusals for text in refusal.texts())
        yield from ((f"{ruleset.id} label {code}", names) for code, names in ruleset.table_labels.items())
        for option in ruleset.options:
            yield f"{ruleset.id} option {option.code}", option.names
            yield f"{ruleset.id} option {option.code} description", option.description
            yield from ((f"{ruleset.id} option {option.code} = {value}", names) for value, names in option.labels.items())
    yield from (("service detail " + name, text) for name, text in texts.DETAILS.items())
    yield from (("field message " + name, text) for name, text in texts.FIELD_MESSAGES.items())
    spoken = {(message.texts["en"], message.texts["tr"]): message.texts for message in request_messages()}
    yield from ((f"field message {english}", text) for (english, _), text in sorted(spoken.items()))


def request_schemas():
    """Every schema a request is loaded with: each operation's arguments, the kinds of action the
    action schema hands over to, and every schema nested in them."""
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    operations = [getattr(function, "_apidoc", {}).get("arguments", {}) for function in app.view_functions.values()]
    declared = [parameter["schema"] for arguments in operations for parameter in arguments.get("parameters", [])]
    schemas = [schema() if isinstance(schema, type) else schema for schema in declared]  # a class, or one built once
    schemas += KIND_SCHEMAS.values()
    while schemas:
        schema = schemas.pop()
        yield schema
        for field in every_field(schema.fields.values()):
            if isinstance(field, ma.fields.Nested):
                schemas.append(field.schema)


def every_field(fields):
    for field in fields:
        yield field
        yield from every_field(inner for inner in (getattr(field, "inner", None), getattr(field, "value_field", None)) if inner is not None)


def request_messages():
    """Every message the request schemas, their fields and their fields' validators may give."""
    for schema in request_schemas():
        yield from schema.error_messages.values()
        for field in every_field(schema.fields.values()):
            yield from field.error_messages.values()
            for validator in field.validators:
                if isinstance(validator, (ma.validate.Range, ma.validate.Length)):
                    names = [f"message_{bound}" for bound in ("min", "max", "all", "equal")]
                    yield from (getattr(validator, name) for name in names if hasattr(validator, name))
                elif isinstance(validator, ma.validate.Validator):
                    yield validator.error


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


@pytest.mark.parametrize("where, text", list(every_text()), ids=lambda value: value if isinstance(value, str) else "")
def test_a_trick_is_one_word_in_turkish_lo_ve(where, text):
    # "el" is a hand or a deal; a trick is "löve" (or the cards "yerde", on the table), never counted in "el"
    if words(text["en"]) & {"trick", "tricks"}:
        turkish = text["tr"].lower()
        assert "löve" in turkish or "yerde" in turkish
        assert not re.search(r"\b(\d+|az|çok) el\b", turkish)


def test_every_problem_the_service_raises_has_a_text_and_a_turkish_title():
    raised = []
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem" and len(node.args) >= 3:
                status, code, detail = node.args[:3]
                raised.append((status, code, detail))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refused" and len(node.args) >= 2:
                code, detail = node.args[:2]
                assert code.value in STATUS_OF, code.value  # a refusal of the domain has its status in the one table
                raised.append((ast.Constant(STATUS_OF[code.value]), code, detail))
    assert len(raised) > 20
    for status, code, detail in raised:
        assert not isinstance(status, ast.Constant) or status.value in texts.TURKISH_TITLES
        if isinstance(detail, ast.Constant):
            assert detail.value in texts.DETAILS, code.value
    assert {code for status, code in HTTP_ERROR_CODES.items() if status != 500} <= set(texts.DETAILS)
    assert set(HTTP_ERROR_CODES) <= set(texts.TURKISH_TITLES)


def test_every_message_a_request_schema_may_give_is_written_in_every_language():
    messages = list(request_messages())
    assert all(isinstance(message, texts.FieldMessage) for message in messages), [m for m in messages if not isinstance(m, texts.FieldMessage)]
    # ... and no Turkish is kept for a message no field gives
    assert {message.texts["tr"] for message in messages} == set(texts.TURKISH_FIELD_MESSAGES.values())


def test_every_refusal_of_the_http_server_itself_has_a_text_and_a_turkish_title():
    for status, (code, detail) in SERVER_REFUSALS.items():
        assert detail in texts.DETAILS and status in texts.TURKISH_TITLES, code


def test_every_refusal_code_of_every_ruleset_is_explained_in_both_languages():
    for ruleset in registry.all_rulesets():
        for code, refusal in ruleset.catalogue.items():
            assert all(set(text) == set(LANGUAGES) for text in refusal.texts()), (ruleset.id, code)


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
            {"ruleset": "german-whist", "seats": [{"name": "P"}]},
            {},
            400,
            "invalid_seats",
            "Alman Whisti oyununda 2 koltuk var, ama 1 koltuk verildi",
        ),
        ("POST", "/v1/games", {"ruleset": 3}, {}, 400, "invalid_request", "'ruleset': Geçerli bir metin değil."),
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
    assert misere["names"]["tr"] == "Misère (az löve alan kazanır)" and misere["description"].startswith("Az löve alan kazanır")
    english_misere = next(option for option in english["rulesets"][0]["options"] if option["code"] == "misere")
    assert english_misere["description"].startswith("Fewest tricks win")
    assert {"code": "QS", "names": {"en": "Queen of Spades", "tr": "Maça Kızı"}} in turkish.body["cards"]


def messages_of(errors):
    """Every message of a problem's ``errors``, at any depth."""
    if isinstance(errors, dict):
        return [message for value in errors.values() for message in messages_of(value)]
    return list(errors)


LONG_KEY = "k" * 300
GAMES = "/v1/games"
ACTIONS = "/v1/games/nope/actions"
SIXTY_SIX = {"ruleset": "sixty-six"}
ONE_OF_KINDS = ", ".join(actions.KINDS)
ONE_OF_LEVELS = ", ".join(level_names())
CONTROL_CHARACTER = "a name has no control, format, private-use or unassigned characters"


#: a bad request of each kind: the field (dotted into nested ones), marshmallow's or Koz's
#: English message, and its Turkish
BAD_FIELDS = [
    ("POST", GAMES, {"seats": [{"name": "P"}, {"name": "P"}]}, {}, "ruleset", "Missing data for required field.", "Bu alan gerekli."),
    ("POST", GAMES, {"ruleset": None}, {}, "ruleset", "Field may not be null.", "Bu alan null olamaz."),
    ("POST", GAMES, {"ruleset": ["sixty-six"]}, {}, "ruleset", "Not a valid string.", "Geçerli bir metin değil."),
    ("POST", GAMES, {**SIXTY_SIX, "colour": 1}, {}, "colour", "Unknown field.", "Bilinmeyen alan."),
    ("POST", GAMES, ["sixty-six"], {}, "_schema", "Invalid input type.", "Geçersiz girdi türü."),
    ("POST", GAMES, {**SIXTY_SIX, "seats": {}}, {}, "seats", "Not a valid list.", "Geçerli bir liste değil."),
    ("POST", GAMES, {**SIXTY_SIX, "seats": []}, {}, "seats", "Length must be between 1 and 4.", "Uzunluğu 1 ile 4 arasında olmalı."),
    ("POST", GAMES, {**SIXTY_SIX, "seats": [{"name": ""}, {"name": "P"}]}, {}, "seats.0.name",
     "Length must be between 1 and 40.", "Uzunluğu 1 ile 40 arasında olmalı."),
    ("POST", GAMES, {**SIXTY_SIX, "seats": [{"name": "A\u0007"}, {"name": "P"}]}, {}, "seats.0.name",
     CONTROL_CHARACTER, "bir adda denetim, biçim, özel kullanım ya da atanmamış karakter olmaz"),
    ("POST", GAMES, {**SIXTY_SIX, "seats": [{"open": "yes"}, {"name": "P"}]}, {}, "seats.0.open",
     "Not a valid boolean.", "Geçerli bir mantıksal değer değil: true ya da false olmalı."),
    ("POST", GAMES, {**SIXTY_SIX, "seats": [3, {"name": "P"}]}, {}, "seats.0._schema", "Invalid input type.", "Geçersiz girdi türü."),
    ("POST", GAMES, {**SIXTY_SIX, "clock": {"seconds_per_action": 0}}, {}, "clock.seconds_per_action",
     "Must be greater than or equal to 1 and less than or equal to 86400.", "1 ile 86400 arasında olmalı."),
    ("POST", GAMES, {**SIXTY_SIX, "clock": {"seconds_per_action": 30, "bank": 1.5}}, {}, "clock.bank",
     "Not a valid integer.", "Geçerli bir tam sayı değil."),
    ("POST", GAMES, {**SIXTY_SIX, "clock": {"seconds_per_action": 30, "on_timeout": "wait"}}, {}, "clock.on_timeout",
     "Must be one of: computer, forfeit.", "Şunlardan biri olmalı: computer, forfeit."),
    ("POST", GAMES, {**SIXTY_SIX, "clock": 30}, {}, "clock._schema", "Invalid input type.", "Geçersiz girdi türü."),
    ("POST", GAMES, {**SIXTY_SIX, "seed": 1.5}, {}, "seed", "a seed is a string or an integer", "tohum bir metin ya da tam sayı olur"),
    ("POST", GAMES, {**SIXTY_SIX, "seed": ""}, {}, "seed", "a seed has 1 to 128 characters", "tohum 1 ile 128 karakter arasında olur"),
    ("GET", GAMES + "?status=open", None, {}, "status", "Must be one of: waiting.", "Şunlardan biri olmalı: waiting."),
    ("GET", GAMES + "?status=waiting&before=soon", None, {}, "before", "Not a valid number.", "Geçerli bir sayı değil."),
    ("GET", GAMES + "/nope?wait=nan", None, {}, "wait",
     "Special numeric values (nan or infinity) are not permitted.", "Özel sayı değerleri (nan ya da sonsuz) kabul edilmez."),
    ("GET", GAMES + "/nope?after=-2", None, {}, "after", "Must be greater than or equal to -1.", "En az -1 olmalı."),
    ("GET", GAMES + "/nope/history?limit=100000", None, {}, "limit",
     "Must be greater than or equal to 1 and less than or equal to 1000.", "1 ile 1000 arasında olmalı."),
    ("POST", ACTIONS, {"card": "QS"}, {}, "type", "Missing data for required field.", "Bu alan gerekli."),
    ("POST", ACTIONS, {"type": "dance"}, {}, "type", f"Must be one of: {ONE_OF_KINDS}.", f"Şunlardan biri olmalı: {ONE_OF_KINDS}."),
    ("POST", ACTIONS, {"type": "play", "card": "ZZ"}, {}, "card", "String does not match expected pattern.", "Beklenen biçimde değil."),
    ("POST", ACTIONS, {"type": "play", "card": "QS"}, {"Idempotency-Key": LONG_KEY}, "Idempotency-Key",
     "1 to 200 characters", "1 ile 200 karakter arası"),
    ("POST", GAMES + "/nope/leave", {"level": "grandmaster"}, {}, "level",
     f"Must be one of: {ONE_OF_LEVELS}.", f"Şunlardan biri olmalı: {ONE_OF_LEVELS}."),
    ("POST", GAMES + "/nope/seats/1", {"name": 7}, {}, "name", "Not a valid string.", "Geçerli bir metin değil."),
]


@pytest.mark.parametrize("method, path, body, headers, field, english, turkish", BAD_FIELDS, ids=[case[4] + ": " + case[5] for case in BAD_FIELDS])
def test_a_turkish_request_gets_turkish_field_messages(api, method, path, body, headers, field, english, turkish):
    answers = {
        language: api.request(method, path, json_body=body, headers={"Accept-Language": language, **headers}) for language in ("en", "tr")
    }
    assert {answer.code for answer in answers.values()} == {"invalid_request"}
    assert answers["tr"].headers["Content-Language"] == "tr"
    said = {language: answer.body["errors"] for language, answer in answers.items()}
    for key in field.split("."):
        said = {language: errors[key] for language, errors in said.items()}
    assert (said["en"], said["tr"]) == ([english], [turkish])
    for message in messages_of(answers["tr"].body["errors"]):
        prose = message.partition("biri olmalı:")[0]  # the values listed after it are codes
        assert message not in messages_of(answers["en"].body["errors"]) and words(prose).isdisjoint(ENGLISH_WORDS), message
    assert answers["tr"].body["detail"] != answers["en"].body["detail"]


def test_a_malformed_if_match_is_explained_field_by_field_in_turkish(api, whist):
    game_id, token, _ = whist
    answer = api.act(game_id, {"type": "play", "card": "QS"}, token, **{"If-Match": "12", "Accept-Language": "tr"})
    assert answer.body["errors"] == {"If-Match": ['"*" ya da W/"12" gibi varlık etiketleri']}


# --- words that say what happened ----------------------------------------------------------------


@pytest.mark.parametrize(
    "body, english, turkish",
    [
        ({"ruleset": "german-whist", "options": {"target": 5000}}, "an integer from 0 to 1000", "0 ile 1000 arasında bir tam sayı"),
        ({"ruleset": "partnership-batak", "seats": [{"name": "P"}]}, "a list of 4 seats", "4 koltukluk bir liste"),
    ],
)
def test_the_allowed_values_described_in_words_are_in_the_language_asked(api, body, english, turkish):
    assert api.create(**body).body["allowed"] == english
    answer = api.request("POST", "/v1/games", json_body=body, headers={"Accept-Language": "tr"})
    assert answer.status == 400 and answer.body["allowed"] == turkish


def test_taking_a_seat_that_was_never_open_says_who_plays_it_not_that_someone_took_it(api):
    created = api.create(ruleset="partnership-batak", seats=[{"name": "Ayşe"}, {"open": True}, {"bot": "basic"}, {"open": True}]).body
    computer = api.request("POST", f"/v1/games/{created['id']}/seats/2", json_body={})
    assert (computer.status, computer.code) == (409, "seat_taken")
    assert computer.body["detail"] == "seat 2 was never open: a computer plays it"
    person = api.request("POST", f"/v1/games/{created['id']}/seats/0", json_body={})
    assert person.body["detail"] == "seat 0 was never open: its player received its token when the game was made"
    assert api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={}).status == 200
    taken = api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={}, headers={"Accept-Language": "tr"})
    assert (taken.code, taken.body["detail"]) == ("seat_taken", "1. koltuk artık boş değil: biri oturdu")


def test_a_missing_join_code_asks_for_it_and_a_wrong_one_says_it_is_wrong(api):
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}], private=True).body
    missing = api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={})
    assert (missing.status, missing.code) == (403, "invalid_join_code")
    assert missing.body["detail"].startswith("seat 1 needs its code: a private game's join code") and "taken" not in missing.body["detail"]
    wrong = api.request("POST", f"/v1/games/{created['id']}/seats/1", json_body={"code": "guess"})
    assert (wrong.code, wrong.body["detail"]) == ("invalid_join_code", "this code does not open seat 1")


@pytest.mark.parametrize(
    "action, english, turkish",
    [
        ({"type": "play"}, "a 'play' action needs card", "'play' hamlesinde eksik alan: card"),
        (
            {"type": "play", "card": "QS", "suit": "S"},
            "a 'play' action has no field suit; its fields are card",
            "'play' hamlesinde suit alanı olmaz; alanları: card",
        ),
        (
            {"type": "pass", "card": "QS"},
            'a \'pass\' action has no field but "type"; got card',
            "'pass' hamlesinde \"type\" dışında alan olmaz; gelen: card",
        ),
    ],
)
def test_a_malformed_action_says_which_field_is_missing_or_unknown(api, whist, action, english, turkish):
    game_id, token, _ = whist
    answer = api.act(game_id, action, token)
    assert (answer.status, answer.code, answer.body["detail"]) == (400, "malformed_action", english)
    assert api.act(game_id, action, token, **{"Accept-Language": "tr"}).body["detail"] == turkish


@pytest.mark.parametrize("variant, card", [("sixty-six", "2S"), ("schnapsen", "9S")])
def test_a_card_not_in_the_game_s_deck_is_said_to_be_not_in_the_deck(api, variant, card):
    created = api.create(ruleset="sixty-six", seats=[{"name": "P"}, {"bot": "random"}], options={"variant": variant}).body
    token = created["tokens"][0]["token"]
    for _ in range(50):  # the computer may lead first
        if api.view(created["id"], token).body["to_act"] == [0]:
            break
        api.request("GET", f"/v1/games/{created['id']}?wait=5&after={api.view(created['id']).body['version']}")
    answer = api.act(created["id"], {"type": "play", "card": card}, token)
    assert (answer.status, answer.code) == (422, "card_not_in_hand")
    assert answer.body["detail"] == f"{card_name(card, 'en')} is not in this game's deck"
    turkish = api.act(created["id"], {"type": "play", "card": card}, token, **{"Accept-Language": "tr"})
    assert turkish.body["detail"] == f"{card_name(card, 'tr')} bu oyunun destesinde yok"
