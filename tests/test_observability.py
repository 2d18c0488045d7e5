"""What the service is watched by: ``GET /metrics`` in the Prometheus format, and JSON log lines
that each carry a request id and never a token or a card."""

from __future__ import annotations

import datetime
import io
import json
import logging
import random
import re

import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.parser import text_string_to_metric_families

from engine import registry
from service import create_app
from service.app import redis_client
from service.logs import LOGGING, JsonLines, RequestIdFilter, skip_unwritten_lookups
from tests.api import FlaskClient
from tests.conftest import drain, make_settings

CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][CDHS](?![A-Za-z0-9])")


def samples(api: FlaskClient) -> dict[tuple[str, frozenset], float]:
    response = api.test_client.get("/metrics")
    assert response.status_code == 200 and response.content_type.startswith("text/plain")
    found = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(found, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def test_metrics_count_requests_actions_refusals_decisions_waiting_clients_and_redis(redis_server_url):
    app = create_app(make_settings(redis_url=redis_server_url, reply_wait_seconds=0))
    api = FlaskClient(app.test_client())
    before = samples(api)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"bot": "basic"}], seed="metrics").body
    token = created["tokens"][0]["token"]
    view = api.view(created["id"], token).body
    assert api.act(created["id"], {"type": "play", "card": "2C" if view["hand"][0] != "2C" else "3C"}, "not-a-token").code == "invalid_token"
    assert api.act(created["id"], view["legal_actions"][0], token).status == 200
    drain(app)  # a worker in this process makes the computer's moves
    api.request("GET", f"/v1/games/{created['id']}?wait=0.1&after=1000")
    api.request("GET", "/v1/no-such-thing")
    after = samples(api)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("koz_http_requests_total", method="POST", route="/v1/games", status="201") == 1
    assert grew("koz_http_requests_total", method="POST", route="/v1/games/<game_id>/actions", status="401") == 1
    assert grew("koz_http_requests_total", method="GET", route="unmatched", status="404") == 1  # never the path: no series per id
    assert grew("koz_http_request_duration_seconds_count", method="GET", route="/v1/games/<game_id>") >= 2
    assert grew("koz_actions_applied_total", ruleset="german-whist", by="human") == 1
    assert grew("koz_actions_applied_total", ruleset="german-whist", by="computer") >= 1
    assert grew("koz_refusals_total", code="invalid_token") == 1
    assert grew("koz_computer_decision_seconds_count", ruleset="german-whist", level="basic") >= 1
    assert ("koz_waiting_clients", frozenset()) in after
    commands = grew("koz_redis_command_duration_seconds_count", command="EVALSHA")
    assert commands >= 2
    # each command timed from its own start: a local Redis answers in far less than a second
    assert 0 < grew("koz_redis_command_duration_seconds_sum", command="EVALSHA") < commands


def test_shared_metrics_leave_out_a_process_file_still_empty_and_read_every_other(client, tmp_path, monkeypatch):
    """With several processes, each counts into a file of its own, made and then sized: a scrape in
    between, or after a process killed in between (its empty file left for good), is answered with
    every other process's counts, never a 500."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    counted = MmapedDict(str(tmp_path / "counter_4321.db"))
    labels = ["method", "route", "status"], ["GET", "/healthz", "200"]
    counted.write_value(mmap_key("koz_http_requests", "koz_http_requests_total", *labels, "HTTP requests answered"), 7.0, 0.0)
    counted.close()
    (tmp_path / "counter_4322.db").touch()
    found = samples(FlaskClient(client))
    assert value(found, "koz_http_requests_total", method="GET", route="/healthz", status="200") == 7.0


def test_redis_errors_are_counted(tmp_path):
    from tests.redis_process import RedisProcess

    server = RedisProcess(tmp_path)
    api = FlaskClient(create_app(make_settings(redis_url=server.url, redis_timeout=0.3, redis_connect_timeout=0.3)).test_client())
    server.stop()
    before = samples(api)
    assert api.view("0123456789abcdef").status == 503
    after = samples(api)
    failed = {
        dict(labels)["error"]: value(after, name, **dict(labels)) - value(before, name, **dict(labels))
        for name, labels in after
        if name == "koz_redis_errors_total"
    }
    assert failed.get("ConnectionError", 0) >= 1  # counted by the error's class


def test_a_long_poll_counts_as_a_waiting_client_while_it_waits(client, fake_redis):
    import threading

    api = FlaskClient(client)
    created = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body
    # the gauge is the process's: the tests before this one (in any order) may have left requests
    # waiting out their time, which end as they will
    before = value(samples(api), "koz_waiting_clients")
    waiting = threading.Thread(target=lambda: client.application.test_client().get(f"/v1/games/{created['id']}?wait=1.5&after=0"))
    waiting.start()
    seen = 0.0
    for _ in range(20):
        seen = max(seen, value(samples(api), "koz_waiting_clients") - before)
        if seen:
            break
        threading.Event().wait(0.05)
    waiting.join()
    assert seen >= 1
    assert value(samples(api), "koz_waiting_clients") <= before


@pytest.fixture
def log_lines():
    """Every log line written while the test runs, formatted as ``koz serve`` writes them."""
    buffer = io.StringIO()
    formatter_config = {key: value for key, value in LOGGING["formatters"]["json"].items() if key != "()"}
    assert LOGGING["formatters"]["json"]["()"] == "service.logs.JsonLines"
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonLines(**formatter_config))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield lambda: [line for line in buffer.getvalue().splitlines() if line]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


@pytest.mark.parametrize(
    "extra",
    [
        {"method": "POST", "route": "/v1/games/<game_id>/actions", "status": 200, "duration_ms": 4.5, "code": "illegal_action"},
        {"name_": "Ça va, 東京 🂡", "none": None, "nested": {"list": [1, 2.5, True]}},
        {"huge": 2**70, "lone": "\ud800"},  # what orjson refuses: the standard encoder writes them
        {"when": datetime.datetime(2026, 12, 2, 6, 30, tzinfo=datetime.timezone.utc), "what": ValueError("no")},
    ],
)
def test_a_log_line_holds_the_fields_and_values_python_json_logger_gives(extra):
    from pythonjsonlogger.json import JsonFormatter

    formatter_config = {key: value for key, value in LOGGING["formatters"]["json"].items() if key != "()"}
    record = logging.LogRecord("koz.requests", logging.INFO, __file__, 1, "request %s", ("x",), None)
    record.__dict__.update(extra, request_id="0" * 32)
    line = JsonLines(**formatter_config).format(record)
    assert "\n" not in line
    assert json.loads(line) == json.loads(JsonFormatter(**formatter_config).format(record))


def test_a_log_lines_time_is_the_standard_formatters_across_seconds_and_milliseconds():
    formatter_config = {key: value for key, value in LOGGING["formatters"]["json"].items() if key != "()"}
    lines, standard = JsonLines(**formatter_config), logging.Formatter()
    start = 1796200000.0  # 2026-12-02, whatever the local time zone
    for created in [start, start + 0.0004, start + 0.9996, start + 1, start + 1.5, start, start + 86399.999, start + 86400.25, start + 3.001]:
        record = logging.LogRecord("koz.requests", logging.INFO, __file__, 1, "request", (), None)
        record.created, record.msecs = created, int((created - int(created)) * 1000) + 0.0
        assert lines.formatTime(record) == standard.formatTime(record)
        assert json.loads(lines.format(record))["time"] == standard.formatTime(record)


def test_a_request_line_holds_the_same_fields_without_logging_s_lookups_of_caller_thread_and_process(monkeypatch):
    """koz serve turns off what logging looks up for each line and the lines never write: a line
    logged after it is the line logged before it."""
    formatter_config = {key: value for key, value in LOGGING["formatters"]["json"].items() if key != "()"}
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(JsonLines(**formatter_config))
    logger = logging.getLogger("koz.tests.lookups")
    monkeypatch.setattr(logger, "handlers", [handler])
    monkeypatch.setattr(logger, "propagate", False)
    monkeypatch.setattr(logger, "level", logging.INFO)
    for switch in ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing"):
        monkeypatch.setattr(logging, switch, getattr(logging, switch))
    fields = {"method": "GET", "route": "/v1/games/<game_id>", "path": "/v1/games/g", "status": 200, "duration_ms": 1.5}
    logger.info("request", extra=fields)
    skip_unwritten_lookups()
    logger.info("request", extra=fields)
    before, after = (json.loads(line) for line in buffer.getvalue().splitlines())
    assert before.pop("time") and after.pop("time")
    assert after == before == {"level": "INFO", "logger": "koz.tests.lookups", "message": "request", **fields}
    assert logging._srcfile is None and not (logging.logThreads or logging.logProcesses or logging.logMultiprocessing)


def play_whole_match(api: FlaskClient, ruleset_id: str, seed: str, **options) -> list[str]:
    """A match between humans with random legal actions, and some refused ones on the way
    (illegal cards, wrong tokens, hints, stale versions). Returns the tokens it used."""
    ruleset = registry.get(ruleset_id)
    created = api.create(ruleset=ruleset_id, seats=[{"name": "P"}] * ruleset.seat_count, seed=seed, options=options).body
    tokens = {entry["seat"]: entry["token"] for entry in created["tokens"]}
    rng = random.Random(seed)
    while (spectator := api.view(created["id"]).body)["status"] == "active":
        seat = rng.choice(spectator["to_act"])
        view = api.view(created["id"], tokens[seat]).body
        if view["version"] < 2:  # a hint takes the expert's time: a couple per match
            api.request("GET", f"/v1/games/{created['id']}/hint", token=tokens[seat])
        if rng.random() < 0.1 and view["hand"]:
            api.act(created["id"], {"type": "play", "card": rng.choice(view["hand"])}, tokens[(seat + 1) % ruleset.seat_count])
            api.act(created["id"], {"type": "play", "card": view["hand"][0]}, tokens[seat] + "x")
            api.act(created["id"], view["legal_actions"][0], tokens[seat], **{"If-Match": 'W/"0"'} if view["version"] else {})
            continue
        legal = view["legal_actions"]
        # mostly passing in an auction keeps contracts low, so a random match ends in a few deals
        action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.85 else rng.choice(legal)
        api.act(created["id"], action, tokens[seat], **{"Idempotency-Key": f"k{view['version']}"})
    api.whole_history(created["id"], tokens[0])
    return list(tokens.values())


def test_the_logs_of_whole_matches_hold_no_token_and_no_card_and_every_line_has_its_request_id(fake_redis, log_lines):
    api = FlaskClient(create_app(make_settings(), redis=fake_redis).test_client())
    tokens = []
    for ruleset_id, options in (("german-whist", {}), ("sixty-six", {"variant": "schnapsen"}), ("partnership-batak", {"target": 21})):
        tokens += play_whole_match(api, ruleset_id, f"logs-{ruleset_id}", **options)
    lines = log_lines()
    records = [json.loads(line) for line in lines]
    requests = [record for record in records if record["logger"] == "koz.requests"]
    assert len(requests) > 100 and all(re.fullmatch(r"[0-9a-f]{32}", record["request_id"]) for record in requests)
    assert {record["code"] for record in requests if "code" in record} >= {"invalid_token"}
    text = "\n".join(lines)
    assert not [token for token in tokens if token in text]
    assert CARD_CODE.findall(text) == []


def test_a_requests_log_line_carries_the_request_id_its_answer_gives(fake_redis, log_lines):
    client = create_app(make_settings(), redis=fake_redis).test_client()
    made = client.get("/v1/rulesets").headers["X-Request-ID"]
    offered = client.get("/v1/rulesets", headers={"X-Request-ID": "trace-42"}).headers["X-Request-ID"]
    records = [json.loads(line) for line in log_lines()]
    assert [record["request_id"] for record in records if record["logger"] == "koz.requests"] == [made, offered] == [made, "trace-42"]


def test_gunicorn_builds_no_access_log_of_its_own():
    """The app logs every request itself; gunicorn, handed a logging configuration, would build
    each request's access-log fields only to drop them."""
    from gunicorn.config import Config

    from service.http_server import SETTINGS, AppLoggedRequests

    config = Config()
    for name in ("logger_class", "logconfig_dict", "accesslog"):
        config.set(name, SETTINGS[name])
    assert config.logger_class is AppLoggedRequests
    logger = AppLoggedRequests(config)

    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError(f"read {name}")

    assert not logger.access_log_enabled
    logger.access(Untouchable(), Untouchable(), Untouchable(), Untouchable())


def test_the_timed_redis_client_answers_every_command_as_redis_py_does(redis_server_url):
    """The client the service makes for itself times its commands and hands them on whole: a
    command's options (how to read its answer) included."""
    timed = redis_client(1.0, 2.0, url=redis_server_url)
    key = f"test-{random.getrandbits(32)}:scores"
    try:
        timed.zadd(key, {"a": 1.5, "b": 2.5})
        assert timed.zrangebyscore(key, "-inf", "+inf", withscores=True) == [(b"a", 1.5), (b"b", 2.5)]
    finally:
        timed.delete(key)
        timed.close()


def test_a_line_written_outside_any_request_has_a_null_request_id(log_lines):
    """A worker's lines, and the service's own at start, are about no request."""
    logging.getLogger("koz.worker").info("swept")
    (line,) = [json.loads(line) for line in log_lines()]
    assert (line["message"], line["request_id"]) == ("swept", None)
