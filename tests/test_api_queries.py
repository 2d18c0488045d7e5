"""A query string parsed once per process and schema: a long-poll asking again with its table's
query does not parse it again, and what it gets is what parsing gives."""

from __future__ import annotations

from flask import Flask
from marshmallow import Schema

from service.api import QUERIES_KEPT, ArgumentsParser
from service.resources.game_schemas import ViewQuerySchema
from service.resources.history import HistoryQuerySchema


def counted_loads(monkeypatch) -> list[type]:
    loads: list[type] = []
    load = Schema.load
    monkeypatch.setattr(Schema, "load", lambda schema, *args, **kwargs: loads.append(type(schema)) or load(schema, *args, **kwargs))
    return loads


def test_a_long_poll_asking_again_with_the_same_query_is_not_parsed_again(client, monkeypatch):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist"}).get_json()["id"]
    loads = counted_loads(monkeypatch)
    first = client.get(f"/v1/games/{game_id}?wait=0&after=-1")
    again = client.get(f"/v1/games/{game_id}?wait=0&after=-1")
    assert first.status_code == again.status_code == 200 and first.get_json() == again.get_json()
    assert loads.count(ViewQuerySchema) == 1
    assert client.get(f"/v1/games/{game_id}?wait=0&after=0").status_code == 200  # another query: parsed
    assert loads.count(ViewQuerySchema) == 2


def test_a_query_that_fails_its_schema_is_refused_each_time_it_is_asked(client, monkeypatch):
    game_id = client.post("/v1/games", json={"ruleset": "german-whist"}).get_json()["id"]
    loads = counted_loads(monkeypatch)
    for _ in range(2):
        refused = client.get(f"/v1/games/{game_id}?wait=-1")
        assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_request"
    assert loads.count(ViewQuerySchema) == 2


def test_each_schema_parses_a_query_of_its_own_and_each_caller_gets_its_own_copy():
    parser = ArgumentsParser()
    view, history = ViewQuerySchema(), HistoryQuerySchema()
    with Flask(__name__).test_request_context("/?after=3"):
        shown = parser.parse(view, location="query")
        assert shown == {"wait": 0, "after": 3}
        shown["after"] = 99
        assert parser.parse(view, location="query") == {"wait": 0, "after": 3}
        assert parser.parse(history, location="query") == {"after": 3, "limit": 100}


def test_the_queries_kept_are_bounded(monkeypatch):
    assert QUERIES_KEPT == 1024
    monkeypatch.setattr("service.api.QUERIES_KEPT", 4)
    parser = ArgumentsParser()
    view = ViewQuerySchema()
    app = Flask(__name__)
    for after in range(10):
        with app.test_request_context(f"/?after={after}"):
            assert parser.parse(view, location="query")["after"] == after
            assert len(parser._queries) <= 4
