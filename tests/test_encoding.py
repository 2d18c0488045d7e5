"""The service's JSON: what the standard encoder would write, faster, and the same where orjson refuses."""

from __future__ import annotations

import json

from service.encoding import json_bytes, json_text


def test_json_is_compact_utf8_in_the_order_built():
    value = {"name": "Ayşe", "seats": [1, None, True], "z": {"b": 1.5, "a": "QS"}}
    assert json_bytes(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def test_what_orjson_refuses_is_written_by_the_standard_encoder():
    assert json_bytes({"big": 2**70}) == b'{"big":1180591620717411303424}'
    assert json.loads(json_bytes({"text": "\ud800"})) == {"text": "\ud800"}
    # and in UTF-8 still, not escaped to ASCII
    assert json_bytes({"big": 2**70, "name": "Ayşe"}) == '{"big":1180591620717411303424,"name":"Ayşe"}'.encode()


def test_json_text_is_the_same_json_as_a_string_a_lone_surrogate_included():
    assert json_text({"name": "Ayşe", "seats": [1, None]}) == '{"name":"Ayşe","seats":[1,null]}'
    assert json.loads(json_text({"text": "\ud800", "name": "Ayşe"})) == {"text": "\ud800", "name": "Ayşe"}
