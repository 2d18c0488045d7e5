"""The catalog, creating games, and seeing them (DESIGN.md: resources; rules of the road)."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path

import fakeredis
import pytest
from redis import Redis

from service import create_app
from service.api import ARGUMENT_LOCATIONS, invalid_request
from service.resources import rulesets
from service.store import Commit
from service.texts import FIELD_MESSAGES, FieldMessage
from tests.api import FlaskClient
from tests.conftest import drain, make_settings
from tests.support import card_codes_in

TWO_HUMANS = [{"name": "Ayşe"}, {"name": "Bora"}]


SEED_TYPE = FieldMessage(FIELD_MESSAGES["seed_type"])
EN, TR = SEED_TYPE.texts["en"], SEED_TYPE.texts["tr"]


@pytest.fixture
def app(any_app):
    """The app on fakeredis and on a real redis-server: every test here runs on both."""
    return any_app


@pytest.fixture
def api(client):
    return FlaskClient(client)


def new_whist(api, **body):
    answer = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="fixed", **body)
    assert answer.status == 201, answer.body
    tokens = {entry["seat"]: entry["token"] for entry in answer.body["tokens"]}
    return answer.body["id"], tokens


# --- catalog -----------------------------------------------------------------------------------


def test_catalog_lists_german_whist_with_names_seats_options_and_levels(api):
    catalog = api.request("GET", "/v1/rulesets").body
    whist = next(entry for entry in catalog["rulesets"] if entry["id"] == "german-whist")
    assert whist["names"] == {"en": "German Whist", "tr": "Alman Whisti"}
    assert whist["seat_count"] == 2 and len(whist["seats"]) == 2
    options = {option["code"]: option for option in whist["options"]}
    assert set(options) == {"scoring", "count_all_tricks", "no_trump", "misere", "target"}
    assert options["scoring"]["allowed"] == ["tricks", "over-six"] and options["scoring"]["default"] == "tricks"
    assert options["target"]["type"] == "integer" and options["target"]["minimum"] == 0
    assert {"en", "tr"} <= set(options["misere"]["names"])
    assert "random" in [level["level"] for level in whist["levels"]]
    assert {suit["code"] for suit in catalog["suits"]} == {"C", "D", "H", "S"}
    assert next(rank for rank in catalog["ranks"] if rank["code"] == "Q")["names"] == {"en": "Queen", "tr": "Kız"}


@pytest.mark.parametrize("ruleset, sides", [("german-whist", [[0], [1]]), ("sixty-six", [[0], [1]]), ("partnership-batak", [[0, 2], [1, 3]])])
def test_the_catalog_and_every_view_say_the_ruleset_s_sides(api, ruleset, sides):
    """Who plays with whom comes from the ruleset, in every game: a frontend never guesses it from a game's own fields."""
    entry = next(entry for entry in api.request("GET", "/v1/rulesets").body["rulesets"] if entry["id"] == ruleset)
    assert entry["sides"] == sides
    created = api.create(ruleset=ruleset).body
    assert api.view(created["id"]).body["sides"] == sides
    assert api.view(created["id"], created["tokens"][0]["token"]).body["sides"] == sides


def refusals_of(api, ruleset, language="en"):
    catalog = api.request("GET", "/v1/rulesets", headers={"Accept-Language": language}).body
    entry = next(entry for entry in catalog["rulesets"] if entry["id"] == ruleset)
    return {refusal["code"]: refusal for refusal in entry["refusals"]}


def test_the_catalog_lists_every_refusal_of_a_ruleset_with_its_kind_status_and_meaning(api):
    refusals = refusals_of(api, "german-whist")
    assert list(refusals) == [
        "unknown_option", "invalid_option", "malformed_action", "game_over", "unknown_seat", "not_your_turn",
        "illegal_action", "card_not_in_hand", "must_follow_suit",
    ]
    assert refusals["must_follow_suit"] == {
        "code": "must_follow_suit", "kind": "illegal", "status": 422, "meaning": "a player holding the suit led must follow it"
    }
    assert refusals["not_your_turn"] == {"code": "not_your_turn", "kind": "not_your_turn", "status": 409, "meaning": "the seat may not act now"}
    assert refusals["unknown_option"]["status"] == 400 and refusals["unknown_option"]["kind"] == "bad_setup"
    assert refusals["malformed_action"]["status"] == 400 and refusals["malformed_action"]["kind"] == "malformed"
    assert {"must_beat", "bid_too_low", "dummy_cannot_act"} <= set(refusals_of(api, "partnership-batak"))
    assert {"talon_closed", "declare_not_allowed"} <= set(refusals_of(api, "sixty-six"))


def test_a_refusal_s_meaning_is_the_game_s_own_and_in_the_language_asked_for(api):
    """One code, said as each game puts it: what a wrong kind of action is where only cards are played."""
    assert refusals_of(api, "german-whist")["illegal_action"]["meaning"] == "German Whist has only play actions"
    assert refusals_of(api, "german-whist", "tr")["illegal_action"]["meaning"] == "Alman Whist'te yalnızca kart oynanır"
    assert refusals_of(api, "sixty-six")["illegal_action"]["meaning"] == "Sixty-Six has no actions of this kind"
    assert refusals_of(api, "sixty-six")["must_follow_suit"]["meaning"] == "with the talon closed or exhausted, the follower must follow suit"
    assert refusals_of(api, "partnership-batak", "tr")["not_declarer"]["meaning"] == "kozu yalnızca ihaleci söyler"


def test_a_refused_action_is_answered_with_the_status_the_catalog_lists_for_its_code(api):
    refusals = refusals_of(api, "german-whist")
    created = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}], seed="catalog").body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    (seat,) = api.view(created["id"]).body["to_act"]
    other_hand = api.view(created["id"], tokens[1 - seat]).body["hand"]
    refused = [
        api.act(created["id"], {"type": "play", "card": other_hand[0]}, tokens[1 - seat]),  # out of turn
        api.act(created["id"], {"type": "play", "card": other_hand[0]}, tokens[seat]),  # not in the hand
        api.act(created["id"], {"type": "play"}, tokens[seat]),  # no card
        api.act(created["id"], {"type": "bid", "value": 8}, tokens[seat]),  # a kind German Whist has not
    ]
    assert [answer.code for answer in refused] == ["not_your_turn", "card_not_in_hand", "malformed_action", "illegal_action"]
    assert [answer.status for answer in refused] == [refusals[answer.code]["status"] for answer in refused] == [409, 422, 400, 422]
    made = api.create(ruleset="german-whist", options={"no_such_option": True})
    assert (made.status, made.code) == (refusals["unknown_option"]["status"], "unknown_option")


# --- create ------------------------------------------------------------------------------------


def test_create_answers_201_with_location_seats_and_a_token_per_human_seat(api):
    answer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"bot": "random"}])
    assert answer.status == 201
    assert answer.headers["Location"] == f"/v1/games/{answer.body['id']}"
    assert [entry["seat"] for entry in answer.body["tokens"]] == [0]
    assert len(answer.body["tokens"][0]["token"]) >= 40
    assert answer.body["seats"][0] == {
        "index": 0, "label": {"en": "Player 1", "tr": "1. Oyuncu"}, "name": "Ayşe", "bot": None, "human": True, "open": False, "left": False
    }
    assert answer.body["seats"][1]["bot"] == "random"
    assert answer.body["options"]["scoring"] == "tricks"


def test_create_without_seats_is_the_standard_table_against_the_computer(api):
    answer = api.create(ruleset="german-whist")
    assert [seat["human"] for seat in answer.body["seats"]] == [True, False]
    assert len(answer.body["tokens"]) == 1


def test_explicit_seed_deals_the_same_hands(api):
    first_id, first_tokens = new_whist(api)
    second_id, second_tokens = new_whist(api)
    assert api.view(first_id, first_tokens[0]).body["hand"] == api.view(second_id, second_tokens[0]).body["hand"]


def test_integer_seed_is_the_same_as_its_text(api):
    by_int = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed=42).body
    by_text = api.create(ruleset="german-whist", seats=TWO_HUMANS, seed="42").body
    hands = [api.view(game["id"], game["tokens"][0]["token"]).body["hand"] for game in (by_int, by_text)]
    assert hands[0] == hands[1]


def test_all_computer_game_plays_itself_to_the_end(api):
    answer = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}], options={"target": 20})
    assert answer.status == 201 and answer.body["tokens"] == []
    view = api.finished_view(answer.body["id"])
    assert view["status"] == "finished" and view["winners"] and max(view["scores"]) >= 20


def test_computer_seat_moves_as_soon_as_it_is_its_turn(api):
    for seed in range(6):
        answer = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"bot": "random"}], seed=seed)
        view = api.view(answer.body["id"], answer.body["tokens"][0]["token"]).body
        assert view["to_act"] == [0]
        assert answer.body["version"] == (1 if view["trick"]["cards"] else 0)


@pytest.mark.parametrize(
    "body, code, status",
    [
        ({"ruleset": "chess"}, "unknown_ruleset", 400),
        ({"ruleset": "german-whist", "options": {"jokers": True}}, "unknown_option", 400),
        ({"ruleset": "german-whist", "options": {"scoring": "points"}}, "invalid_option", 400),
        ({"ruleset": "german-whist", "options": {"target": -5}}, "invalid_option", 400),
        ({"ruleset": "german-whist", "seats": [{"name": "solo"}]}, "invalid_seats", 400),
        ({"ruleset": "german-whist", "seats": [{"name": "P"}, {"bot": "grandmaster"}]}, "unknown_level", 400),
        ({"ruleset": "german-whist", "seed": ""}, "invalid_request", 400),
        ({"ruleset": "german-whist", "seed": 1.5}, "invalid_request", 400),
        ({"ruleset": "german-whist", "seats": [{"name": "x" * 41}, {"name": "P"}]}, "invalid_request", 400),
        ({"ruleset": "german-whist", "colour": "red"}, "invalid_request", 400),
        ({}, "invalid_request", 400),
    ],
)
def test_bad_creation_is_refused_with_a_problem(api, body, code, status):
    answer = api.request("POST", "/v1/games", json_body=body)
    assert (answer.status, answer.code) == (status, code)
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.body["type"] == f"urn:koz:problem:{code}" and answer.body["detail"]


@pytest.mark.parametrize(
    "seat, named",
    [
        ({"name": "A", "bot": "basic"}, "bot"),
        ({"name": "A", "open": True}, "open"),
        ({}, "_schema"),
        ({"name": None, "bot": None, "open": False}, "_schema"),
    ],
    ids=["a person and a computer", "a person and open", "no form", "every form null or false"],
)
def test_a_seat_takes_exactly_one_form_and_the_refusal_names_the_field(api, seat, named):
    answer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, seat])
    assert (answer.status, answer.code) == (400, "invalid_request")
    assert list(answer.body["errors"]["seats"]["1"]) == [named]
    assert "'seats'" in answer.body["detail"] and "'name'" in answer.body["detail"] and "'bot'" in answer.body["detail"]


@pytest.mark.parametrize(
    "messages, errors, english, turkish",
    [
        ({"json": {"seed": [SEED_TYPE]}}, {"seed": [SEED_TYPE]}, f"'seed': {EN}", f"'seed': {TR}"),
        (
            {"query": {"wait": [SEED_TYPE], "after": ["plain words"]}},
            {"wait": [SEED_TYPE], "after": ["plain words"]},
            f"'wait': {EN} (and 1 more)",
            f"'wait': {TR} (ve 1 alan daha)",
        ),
        ({"json": {"_schema": [SEED_TYPE]}}, {"_schema": [SEED_TYPE]}, f"the request: {EN}", f"istek: {TR}"),
        ({"id": ["plain words"]}, {"id": ["plain words"]}, "'id': plain words", "'id': plain words"),
        ({"action": {"card": {"0": [SEED_TYPE]}}}, {"action": {"card": {"0": [SEED_TYPE]}}}, f"'action': {EN}", f"'action': {TR}"),
        (["whole"], {"_schema": ["whole"]}, "the request: whole", "istek: whole"),
        ({"json": ["whole"]}, {"_schema": ["whole"]}, "the request: whole", "istek: whole"),
        ({}, {}, "the request is not valid", "istek geçersiz"),
    ],
    ids=["a field", "two fields in the query", "the whole body", "words without Turkish", "nested", "a list", "a list in a location", "none"],
)
def test_an_invalid_request_is_said_by_its_first_field_or_as_the_whole_request(messages, errors, english, turkish):
    problem = invalid_request(messages)
    assert (problem.status, problem.code, problem.extra) == (400, "invalid_request", {"errors": errors})
    assert problem.detail_in("en") == english
    assert problem.detail_in("tr") == turkish


def test_every_operation_reads_its_arguments_where_a_refusal_is_told_by_field(app):
    """A refusal names the fields of the body or query it refused, unnested from where webargs read
    them: an operation reading its arguments elsewhere would be refused by location instead."""
    read_from = {
        argument["in"]
        for view in app.view_functions.values()
        for argument in getattr(view, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    }
    assert read_from == ARGUMENT_LOCATIONS


@pytest.mark.parametrize("seat", [{"name": "A", "bot": None, "open": False}, {"name": None, "bot": "basic"}, {"open": True, "name": None}])
def test_a_seat_may_send_its_other_forms_as_null_or_false(api, seat):
    assert api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, seat]).status == 201


def test_the_lobby_lists_waiting_games_without_a_status_parameter(api):
    waiting = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"open": True}]).body["id"]
    listed = api.request("GET", "/v1/games")
    assert listed.status == 200 and waiting in [game["id"] for game in listed.body["games"]]
    assert api.request("GET", "/v1/games?status=finished").code == "invalid_request"


def test_bad_option_names_the_option_and_its_allowed_values(api):
    body = api.create(ruleset="german-whist", options={"scoring": "points"}).body
    assert body["option"] == "scoring" and body["allowed"] == ["tricks", "over-six"]
    assert "scoring" in body["detail"] and "over-six" in body["detail"]


def test_malformed_json_body_is_refused(client):
    response = client.post("/v1/games", data="{nope", content_type="application/json")
    assert response.status_code == 400 and response.get_json()["code"] == "malformed_json"


def test_body_that_is_not_json_is_refused(client):
    response = client.post("/v1/games", data="ruleset=german-whist", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and response.get_json()["code"] == "unsupported_media_type"


def test_oversized_body_is_refused(client):
    response = client.post("/v1/games", data=json.dumps({"ruleset": "german-whist", "seed": "x" * 20000}), content_type="application/json")
    assert response.status_code == 413 and response.get_json()["code"] == "payload_too_large"


# --- view --------------------------------------------------------------------------------------


def test_seat_view_shows_its_hand_and_legal_actions(api):
    game_id, tokens = new_whist(api)
    views = [api.view(game_id, tokens[seat]).body for seat in (0, 1)]
    (acting,) = views[0]["to_act"]
    assert views[acting]["legal_actions"] and not views[1 - acting]["legal_actions"]
    assert all(len(view["hand"]) == 13 for view in views)
    assert set(views[0]["hand"]).isdisjoint(views[1]["hand"])
    assert [view["seat"] for view in views] == [0, 1]
    for key in ("id", "ruleset", "options", "version", "status", "seats", "to_act", "scores", "winners", "trick", "last_trick", "last_deal", "trump"):
        assert key in views[0]


def test_spectator_view_has_public_information_only(api):
    game_id, tokens = new_whist(api)
    spectator = api.view(game_id).body
    assert spectator["seat"] is None and spectator["hand"] is None and spectator["legal_actions"] == []
    hands = set(api.view(game_id, tokens[0]).body["hand"]) | set(api.view(game_id, tokens[1]).body["hand"])
    assert spectator["version"] == 0 and len(hands) == 26
    assert card_codes_in(spectator) == {spectator["face_up"]}
    assert not hands & card_codes_in(spectator)


def test_view_is_private_and_carries_its_version_as_etag(api):
    game_id, tokens = new_whist(api)
    answer = api.view(game_id, tokens[0])
    assert answer.headers["ETag"] == f'W/"{answer.body["version"]}"'
    assert answer.headers["Vary"] == "Authorization"
    assert answer.headers["Cache-Control"] == "private, no-cache"  # a shared cache keeps no seat's hand, and every use asks again


def test_if_none_match_with_the_current_version_answers_304(api):
    game_id, tokens = new_whist(api)
    etag = api.view(game_id, tokens[0]).headers["ETag"]
    assert api.view(game_id, tokens[0], **{"If-None-Match": etag}).status == 304
    assert api.view(game_id, tokens[0], **{"If-None-Match": 'W/"999"'}).status == 200


def test_unknown_game_is_404(api):
    answer = api.view("0123456789abcdef")
    assert (answer.status, answer.code) == (404, "unknown_game")


@pytest.mark.parametrize(
    "header, error",
    [
        ("Bearer not-a-real-token", "invalid_token"),
        ("Bearer ", "invalid_request"),
        ("Basic dXNlcjpwYXNz", "invalid_request"),
        ("token-without-scheme", "invalid_request"),
    ],
)
def test_bad_token_is_401_not_a_spectator_view(api, header, error):
    """A token not known is invalid_token; a header that is not a bearer token at all is a malformed request (RFC 6750, 3.1)."""
    game_id, _ = new_whist(api)
    answer = api.view(game_id, Authorization=header)
    assert (answer.status, answer.code) == (401, "invalid_token")
    assert answer.headers["WWW-Authenticate"] == f'Bearer error="{error}"'


@pytest.mark.parametrize("written", ["Bearer {}", "bearer  {}  ", "BEARER {}"])
def test_a_token_is_read_whatever_the_scheme_s_case_and_the_spaces_around_it(api, written):
    game_id, tokens = new_whist(api)
    answer = api.view(game_id, Authorization=written.format(tokens[0]))
    assert answer.status == 200 and answer.body["seat"] == 0


def test_long_poll_returns_when_the_wait_ends_without_a_change(api):
    game_id, tokens = new_whist(api)
    version = api.view(game_id).body["version"]
    answer = api.request("GET", f"/v1/games/{game_id}?wait=0.3&after={version}")
    assert answer.status == 200 and answer.body["version"] == version


def test_long_poll_returns_at_once_when_the_version_has_passed(backend):
    # a wait of 300 s (the most a request may ask): answering long before it ends shows it did not wait
    app = create_app(make_settings(max_wait_seconds=300), redis=backend)
    api = FlaskClient(app.test_client())
    game_id, tokens = new_whist(api)
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: answers.put(api.request("GET", f"/v1/games/{game_id}?wait=300&after=-1", token=tokens[0])), daemon=True).start()
    answer = answers.get(timeout=120)
    assert answer.status == 200 and answer.body == api.view(game_id, tokens[0]).body and answer.body["version"] == 0
    app.extensions["koz"].announcements.stop()


@pytest.mark.parametrize("query", ["wait=-1&after=0", "wait=abc", "after=-2", "wait=1000&after=0"])
def test_bad_long_poll_parameters_are_refused(api, query):
    game_id, _ = new_whist(api)
    answer = api.request("GET", f"/v1/games/{game_id}?{query}")
    assert (answer.status, answer.code) == (400, "invalid_request")


# --- plumbing ----------------------------------------------------------------------------------


def test_whether_a_hook_or_view_is_a_coroutine_is_asked_once_per_function(app, client, monkeypatch):
    import flask.app

    assert client.get("/healthz").status_code == 200
    asked: list[object] = []
    original = flask.app.iscoroutinefunction
    monkeypatch.setattr(flask.app, "iscoroutinefunction", lambda func: asked.append(func) or original(func))
    answer = client.get("/healthz")
    assert (answer.status_code, answer.headers["Access-Control-Allow-Origin"]) == (200, "*")  # every hook still ran
    assert "X-Request-ID" in answer.headers
    assert asked == []

    def once() -> str:
        return "once"

    assert app.ensure_sync(once) is once and asked == [once]
    assert app.ensure_sync(once) is once and asked == [once]


CORS_REQUESTS = [
    (method, path, headers)
    for method, path in [("GET", "/healthz"), ("GET", "/v1/games/unknown"), ("GET", "/nowhere"), ("POST", "/v1/games"), ("DELETE", "/v1/games/x")]
    for headers in [{}, {"Origin": "https://cards.example"}, {"Origin": "null", "Access-Control-Request-Private-Network": "true"}]
] + [
    ("OPTIONS", "/v1/games/x/actions", {"Origin": "o", "Access-Control-Request-Method": method, "Access-Control-Request-Headers": asked})
    for method in ["POST", "PUT", ""]
    for asked in ["Authorization, Content-Type", "X-Other", ""]
] + [("OPTIONS", "/healthz", {}), ("OPTIONS", "/v1/games", {"Access-Control-Request-Private-Network": "true"})]


def test_every_answer_carries_the_cors_headers_flask_cors_gives(monkeypatch):
    """The headers set at once on simple requests' answers are flask-cors's, as are those it still
    sets itself (preflights, private network access, errors): the same as an app where flask-cors
    does it all."""
    fast = create_app(make_settings(), redis=fakeredis.FakeRedis()).test_client()
    monkeypatch.setattr("service.app.answer_simple_requests_at_once", lambda app: None)
    reference = create_app(make_settings(), redis=fakeredis.FakeRedis()).test_client()

    def cors_headers(client, method: str, path: str, headers: dict[str, str]) -> list[tuple[str, str]]:
        answer = client.open(path, method=method, headers=headers, data=b"{" if method == "POST" else None, content_type="application/json")
        return sorted((name, value) for name, value in answer.headers.items() if name.startswith("Access-Control-") or name == "Vary")

    for method, path, headers in CORS_REQUESTS:
        found = cors_headers(fast, method, path, headers)
        assert found == cors_headers(reference, method, path, headers), (method, path, headers)
        assert method == "OPTIONS" or ("Access-Control-Allow-Origin", "*") in found


#: the request headers a browser may send only once a preflight allows them (Accept-Language and
#: a plain Content-Type are safelisted: sent without asking), and the answer headers a page may
#: read only when they are exposed
CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "Last-Event-ID", "X-Request-ID"]
CORS_EXPOSED_HEADERS = [
    "ETag", "Idempotent-Replayed", "Location", "RateLimit-Limit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset",
    "Retry-After", "Upgrade", "WWW-Authenticate", "X-Request-ID",
]  # fmt: skip
CORS_SAFELISTED_HEADERS = {"Accept-Language", "Content-Language"}


def documented_headers() -> tuple[set[str], set[str]]:
    """The headers the OpenAPI document says a request may carry, and an answer carries."""
    document = json.loads((Path(__file__).parents[1] / "openapi" / "openapi.json").read_text())

    def named(found: dict, kind: str) -> dict:
        return document["components"][kind][found["$ref"].rsplit("/", 1)[-1]] if "$ref" in found else found

    sent, answered = set(), set()
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else operation:
                if named(parameter, "parameters")["in"] == "header":
                    sent.add(named(parameter, "parameters")["name"])
            for response in operation.get("responses", {}).values() if isinstance(operation, dict) else []:
                answered |= set(named(response, "responses").get("headers", {}))
    return sent, answered


def test_cors_preflight_allows_from_any_origin_every_method_and_request_header_the_api_reads(client):
    asked = ", ".join([*CORS_ALLOWED_HEADERS, "X-Other"])
    response = client.options(
        "/v1/games/abc/actions",
        headers={"Origin": "https://table.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": asked},
    )
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Headers"].split(", ") == CORS_ALLOWED_HEADERS  # not X-Other
    assert response.headers["Access-Control-Allow-Methods"] == "DELETE, GET, OPTIONS, POST"
    assert response.headers["Access-Control-Max-Age"] == "600"  # a browser asks again after ten minutes at most
    sent, _ = documented_headers()
    assert sent <= set(CORS_ALLOWED_HEADERS) | CORS_SAFELISTED_HEADERS


def test_cors_answers_expose_every_header_a_client_reads(api):
    game_id, _ = new_whist(api)
    answer = api.view(game_id, Origin="https://table.example")
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert answer.headers["Access-Control-Expose-Headers"].split(", ") == CORS_EXPOSED_HEADERS
    _, answered = documented_headers()
    assert answered <= set(CORS_EXPOSED_HEADERS) | CORS_SAFELISTED_HEADERS


def test_unknown_route_and_method_answer_problems(client):
    missing = client.get("/v2/nothing")
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
    wrong = client.delete("/v1/rulesets")
    assert wrong.status_code == 405 and wrong.get_json()["code"] == "method_not_allowed"
    # a 405 names the methods the resource has (RFC 9110)
    assert set(wrong.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    assert set(client.patch("/v1/games/0123456789abcdef").headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "DELETE"}


@pytest.mark.parametrize("language, detail", [("en", "the server failed to answer this request"), ("tr", "sunucu bu isteği yanıtlayamadı")])
def test_a_fault_is_answered_500_as_a_problem_that_says_nothing_of_it_and_is_logged_with_its_traceback(
    client, monkeypatch, caplog, language, detail
):
    fault = RuntimeError("the catalog's secret insides")

    def failing_catalog():
        raise fault

    monkeypatch.setattr(rulesets, "catalog", failing_catalog)
    with caplog.at_level("ERROR", logger="service.api"):
        answer = client.get("/v1/rulesets", headers={"Accept-Language": language})
    assert (answer.status_code, answer.content_type) == (500, "application/problem+json")
    body = answer.get_json()
    assert (body["code"], body["detail"]) == ("internal_error", detail)
    assert "secret" not in answer.get_data(as_text=True)
    (logged,) = [record for record in caplog.records if record.name == "service.api"]
    assert logged.getMessage() == "unhandled error on GET /v1/rulesets"
    assert logged.exc_info[1] is fault


@pytest.mark.parametrize(
    "language, title, detail",
    [
        ("en", "Requested Range Not Satisfiable", "The server cannot provide the requested range."),
        ("tr", "İstenen aralık verilemez", "istek yanıtlanamadı"),
    ],
)
def test_a_range_past_a_documentation_file_is_a_416_problem_in_the_language_asked_for(client, language, title, detail):
    """A status the service has no code of its own for (Werkzeug's, answering a static file) is
    still a problem, its code the status's name."""
    answer = client.get("/docs/swagger-ui-bundle.js", headers={"Range": "bytes=99999999-", "Accept-Language": language})
    assert (answer.status_code, answer.content_type, answer.headers["Content-Language"]) == (416, "application/problem+json", language)
    body = answer.get_json()
    assert (body["code"], body["title"], body["detail"]) == ("requested_range_not_satisfiable", title, detail)


def test_health_and_readiness(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ok"}


def test_readiness_fails_with_a_problem_when_redis_is_unreachable():
    app = create_app(make_settings(), redis=Redis.from_url("redis://127.0.0.1:1", socket_connect_timeout=0.2))
    response = app.test_client().get("/readyz")
    assert response.status_code == 503 and response.get_json()["code"] == "storage_unavailable"


def test_documentation_page_is_served_and_shows_koz_s_document(client):
    page = client.get("/docs/")
    assert page.status_code == 200 and b"<title>Koz API</title>" in page.data
    assert b'"url": "/openapi.json"' in page.data  # the document this server serves
    assert client.get("/docs/swagger-ui-bundle.js").status_code == 200


def test_reads_never_write_the_computer_moves_wait_for_a_worker():
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())  # no worker runs
    api = FlaskClient(app.test_client())
    created = api.create(ruleset="german-whist", seats=[{"bot": "random"}, {"bot": "random"}]).body
    assert created["status"] == "active" and created["version"] == 0
    for _ in range(3):
        assert api.view(created["id"]).body["version"] == 0
        assert api.history(created["id"]).body["version"] == 0
    assert drain(app) > 0  # a worker takes the queued move, and each move queues the next
    view = api.view(created["id"]).body
    assert view["status"] == "finished"
    assert [event["version"] for event in api.whole_history(created["id"])["events"] if event["type"] == "action"] == list(
        range(1, view["version"] + 1)
    )


def test_standard_batak_table_is_one_human_at_south_named_sen(api):
    created = api.create(ruleset="partnership-batak").body
    assert [seat["human"] for seat in created["seats"]] == [True, False, False, False]
    assert created["seats"][0]["name"] == "Sen" and created["seats"][0]["label"] == {"en": "South", "tr": "Güney"}
    assert [entry["seat"] for entry in created["tokens"]] == [0]


def test_a_turkish_name_comes_back_as_written(client):
    response = client.post("/v1/games", json={"ruleset": "german-whist", "seats": [{"name": "Ayşe Çağlar"}, {"name": "P"}]})
    assert "Ayşe Çağlar".encode() in response.data


def test_a_game_whose_every_write_finds_its_id_taken_is_503_storage_unavailable_and_nothing_is_stored(app, api, monkeypatch):
    store = app.extensions["koz"].store
    before = set(store.redis.keys("*{*"))  # (a game's keys carry its hash tag)
    monkeypatch.setattr(store, "commit", lambda write: Commit(False, 0))  # each fresh id already in use
    answer = api.create(ruleset="german-whist", seats=[{"name": "Ayşe"}, {"name": "Bora"}])
    assert (answer.status, answer.code) == (503, "storage_unavailable")
    assert set(store.redis.keys("*{*")) == before
