"""What one client address may hold open at once in a web process: its event streams (and, in
``koz serve``, its connections), each within a cap."""

from __future__ import annotations

from service import create_app
from service.per_address import PerAddress
from tests.api import FlaskClient
from tests.conftest import make_settings


def test_an_address_holds_up_to_its_cap_and_another_address_counts_apart():
    held = PerAddress(2)
    assert [held.take("10.0.0.1") for _ in range(3)] == [True, True, False]
    assert held.take("10.0.0.2")
    assert held.held == {"10.0.0.1": 2, "10.0.0.2": 1}


def test_giving_one_back_lets_the_address_take_one_more_and_an_address_holding_none_is_forgotten():
    held = PerAddress(2)
    held.take("10.0.0.1")
    held.take("10.0.0.1")
    held.give_back("10.0.0.1")
    assert held.held == {"10.0.0.1": 1}
    assert held.take("10.0.0.1") and not held.take("10.0.0.1")
    held.give_back("10.0.0.1")
    held.give_back("10.0.0.1")
    assert held.held == {}  # no entry left behind for each address ever seen


def test_a_cap_of_zero_refuses_nothing_and_counts_nothing():
    held = PerAddress(0)
    assert all(held.take("10.0.0.1") for _ in range(100))
    held.give_back("10.0.0.1")
    assert held.held == {}


def test_an_address_past_its_streams_is_answered_429_until_one_of_them_ends(fake_redis):
    api = FlaskClient(create_app(make_settings(streams_per_address=1), redis=fake_redis).test_client())
    game_id = api.create(ruleset="german-whist", seats=[{"name": "P"}, {"name": "P"}]).body["id"]
    path = f"/v1/games/{game_id}/events"
    first = api.test_client.get(path, buffered=False)
    assert first.status_code == 200
    refused = api.test_client.get(path, buffered=False)
    assert (refused.status_code, refused.json["code"], refused.headers["Retry-After"]) == (429, "too_many_streams", "1")
    other = api.test_client.get(path, buffered=False, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200
    other.close()
    first.close()
    again = api.test_client.get(path, buffered=False)
    assert again.status_code == 200
    again.close()
