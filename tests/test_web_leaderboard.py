"""The arena's leaderboard at the web table, in headless Chromium (Debian's package) driven by Playwright.

The app served on a thread over fakeredis, its results recorded as the matchmaker records them
(:meth:`service.arena.ratings.Ratings.record`; playing them is ``tests/test_arena_*.py``'s part):
two bot accounts meet ten times, 52 more play one match each against Koz's random player: the
two and the house account are ranked (10 rated matches or more), the 52 listed apart as new
accounts (two pages of 50).
The page must show what ``GET /v1/arena/leaderboard`` answers, in Turkish and in English.
"""

from __future__ import annotations

import threading
import types

import fakeredis
import pytest
from werkzeug.serving import make_server

from service import create_app
from service.arena.ratings import Seat
from tests.api import SocketClient
from tests.conftest import make_settings
from tests.test_web_table import Table, browser  # noqa: F401 (fixtures)
from tests.test_web_together import axe_violations

RANKED = ["Ayla", "Berk"]
NEW = [f"Bot {number:02d}" for number in range(52)]


@pytest.fixture(scope="module")
def arena_service():
    """The app on a thread, with the results recorded; something with the ``url`` a Table opens."""
    app = create_app(make_settings(), redis=fakeredis.FakeRedis())
    arena = app.extensions["koz_arena"]
    accounts = {name: arena.accounts.create(name, "bot")[0] for name in RANKED + NEW}
    house = arena.accounts.house("random")
    sides = [[0], [1]]

    def record(game: str, winner, loser) -> None:
        seats = [Seat(winner.id, winner.name, winner.kind, "win"), Seat(loser.id, loser.name, loser.kind, "loss")]
        arena.ratings.record("german-whist", game, seats, sides, True, {"status": "finished", "finished_at": 0.0, "abandoned_by": None})

    for match in range(10):
        first, second = accounts["Ayla"], accounts["Berk"]
        record(f"ranked-{match}", *((first, second) if match % 3 else (second, first)))
    for number, name in enumerate(NEW):
        record(f"new-{number}", *((house, accounts[name]) if number % 2 else (accounts[name], house)))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield types.SimpleNamespace(url=f"http://127.0.0.1:{server.server_port}")
    server.shutdown()
    app.extensions["koz"].announcements.stop()


def board(client: SocketClient, ruleset: str, provisional: bool) -> dict:
    answer = client.request("GET", f"/v1/arena/leaderboard?ruleset={ruleset}&provisional={str(provisional).lower()}&limit=200")
    assert answer.status == 200
    return answer.body


@pytest.fixture(scope="module")
def played(arena_service) -> tuple[dict, dict]:
    """The two lists, as the API answers them."""
    client = SocketClient(arena_service.url)
    lists = board(client, "german-whist", False), board(client, "german-whist", True)
    client.close()
    return lists


def shown_rows(table: Table, which: str) -> list[list[str]]:
    rows = table.page.locator(f"[data-board={which}] tbody tr")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in rows.all()]


def turkish(number: float) -> str:
    return f"{number:.1f}".replace(".", ",")


def test_the_leaderboard_page_lists_the_ranked_and_apart_the_new_accounts_in_both_languages(browser, arena_service, played):  # noqa: F811
    established, provisional = played
    assert sorted(entry["name"] for entry in established["entries"]) == [*RANKED, "koz-random"]
    table = Table(browser, arena_service, bypass_csp=True)  # bypass_csp: for the accessibility check's script
    table.page.get_by_role("link", name="Sıralama").click()
    table.page.get_by_role("heading", name="Sıralama: Alman Whisti").wait_for()
    table.page.get_by_role("heading", name="Yeni hesaplar").wait_for()
    kinds = {"bot": "bot", "house": "Koz (bilgisayar)"}
    ranked = shown_rows(table, "established")
    assert ranked == [
        [str(entry["rank"]), entry["name"], kinds[entry["kind"]], turkish(entry["rating"]), f"± {turkish(entry['uncertainty'])}", str(entry["games"])]
        for entry in established["entries"]
    ]
    assert len(shown_rows(table, "provisional")) == 50  # a page, then the rest on demand
    table.page.get_by_role("button", name="Devamını göster").click()
    table.page.locator("[data-board=provisional] tbody tr").nth(51).wait_for()
    assert table.page.get_by_role("button", name="Devamını göster").is_hidden()
    new_accounts = shown_rows(table, "provisional")
    assert len(new_accounts) == provisional["total"] == len(NEW)
    assert [row[1] for row in new_accounts] == [entry["name"] for entry in provisional["entries"]]
    assert {row[2] for row in new_accounts} == {"bot"} and {row[5] for row in new_accounts} == {"1"}
    assert axe_violations(table) == []
    table.page.get_by_role("button", name="English").click()
    table.page.get_by_role("heading", name="Leaderboard: German Whist").wait_for()
    assert table.page.get_by_role("heading", name="New accounts").is_visible()
    assert shown_rows(table, "established")[0][3] == f"{established['entries'][0]['rating']:.1f}"
    assert "Koz (computer)" in [row[2] for row in shown_rows(table, "established")]
    table.screenshot("leaderboard-en")
    table.page.get_by_role("link", name="Sixty-Six").click()
    table.page.get_by_role("heading", name="Leaderboard: Sixty-Six").wait_for()
    assert table.page.get_by_text("No account has played enough matches of this game to be ranked yet.").is_visible()
    assert table.page.get_by_text("No new account.").is_visible()
    table.close()
