"""The web table in a real browser: headless Chromium (Debian's package) driven by Playwright.

Each test opens the home page of a real ``koz serve``, starts a game against the random computer
through the "Bilgisayarla Oyna" card, and plays the whole match by clicking enabled
``data-action`` elements only; at the end the scores the page shows must be the API's, with the
match history and the reveal, and no console error may have occurred. A screenshot of each table
mid-game is saved under ``test-artifacts/web/``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.api import SocketClient
from tests.test_serve import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "web"
RANKS = "23456789TJQKA"
SUITS = "CDHS"
#: the longest the page may take to show a change (a computer's reply, a long-poll's answer)
STEP_MS = 30_000


@dataclass(frozen=True)
class PageSeen:
    """A page as it was when its test closed it: a failing test's report prints it."""

    url: str
    shown: str
    errors: tuple[str, ...]
    service_log: Path | None

    def report(self) -> str:
        """The page's address, its text, its console errors, and the service log's last warnings,
        errors and refusals (read only for a report: the log of a module's service grows long)."""
        log = self.service_log.read_text(errors="replace").splitlines() if self.service_log and self.service_log.exists() else []
        notable = [line for line in log if '"level":"INFO"' not in line or re.search(r'"status":[45]', line)][-20:]
        return "\n".join([self.url, self.shown[:2000], f"console errors: {list(self.errors)}", "service log's warnings and refusals:", *notable])


#: the pages closed during the running test (tests/conftest.py reports them when it fails)
PAGES_SEEN: list[PageSeen] = []


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    # long-polls held 2 s at most: the page polls again, and stopping the service waits for none long
    started = Service(tmp_path_factory.mktemp("web") / "koz-data", KOZ_MAX_WAIT_SECONDS="2")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def api(service):
    client = SocketClient(service.url)  # between requests the browser plays: idle connections are opened afresh
    yield client
    client.close()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists() and not os.environ.get("CI"):
        # `make test` installs it as root; elsewhere the browser tests wait for it, but not in CI
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def test_the_page_and_its_assets_are_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert b'<script type="module" src="/web/main.js">' in page.data and b'href="/web/koz.css"' in page.data
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    # the page's ES modules, one per part (no build step): each is served as a script
    for module in ("main", "api", "dom", "table", "lobby", "words", "arena", "account"):
        script = client.get(f"/web/{module}.js")
        assert script.status_code == 200 and "javascript" in script.mimetype
    assert client.get("/web/koz.css").mimetype == "text/css"
    for missing in ("/web/nothing.js", "/web/../web_table.py", "/web/%2e%2e/web_table.py"):
        answer = client.get(missing)
        assert answer.status_code == 404 and answer.mimetype == "application/problem+json"


class Table:
    """One page at the web table, with the console errors it logged."""

    def __init__(self, browser, service: Service, viewport: dict[str, int] | None = None, path: str = "/", bypass_csp: bool = False) -> None:
        # bypass_csp: for the accessibility check, whose script is injected into the page
        self.context = browser.new_context(viewport=viewport or {"width": 1100, "height": 900}, bypass_csp=bypass_csp)
        self.page = self.context.new_page()
        self.page.set_default_timeout(STEP_MS)
        self.errors: list[str] = []
        self.expected_errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(error.stack or str(error)))  # with where it was thrown
        self.requested: list[str] = []
        self.page.on("request", lambda request: self.requested.append(request.url))
        self.service_log: Path | None = getattr(service, "log", None)  # an app served in-process has none
        self.page.goto(service.url + path)

    def start(self, game_name: str, options: dict[str, Any], level: str = "random", seed: str | None = None) -> str:
        """Open a game's table from the home page, fill "Bilgisayarla Oyna" and press BAŞLA."""
        self.page.get_by_role("link", name=game_name).click()
        form = self.page.locator("form.setup")
        form.get_by_role("heading", name="Bilgisayarla Oyna").wait_for()
        form.locator("details summary").click()
        for code, value in options.items():
            field = form.locator(f"[name={code}]")
            if isinstance(value, bool):
                field.set_checked(value)
            elif field.evaluate("element => element.tagName") == "SELECT":
                field.select_option(str(value))
            else:
                field.fill(str(value))
        form.locator("[name=level]").select_option(level)
        if seed is not None:
            form.locator("[name=seed]").fill(seed)
        form.get_by_role("button", name="BAŞLA").click()
        self.page.locator(".game").wait_for()
        return self.page.evaluate("location.hash").rsplit("/", 1)[1]

    @property
    def token(self) -> str:
        return self.page.evaluate("id => localStorage.getItem('koz:token:' + id)", self.game_id)

    @property
    def game_id(self) -> str:
        return self.page.evaluate("location.hash").rsplit("/", 1)[1]

    def version(self) -> int:
        return int(self.page.locator(".game").get_attribute("data-version"))

    def enabled_actions(self) -> list[tuple[dict[str, Any], Any]]:
        """The actions that enabled ``data-action`` elements post, each with its element, found
        again by the very JSON it posts whenever it is clicked."""
        posted = self.page.locator("[data-action]:enabled").evaluate_all("elements => elements.map(e => e.dataset.action)")
        return [(json.loads(raw), self.page.locator(f"[data-action='{raw}']:enabled")) for raw in posted]

    def wait_for_my_move_or_the_end(self) -> bool:
        """Wait until an action is enabled or the match is over; True while it goes on."""
        self.page.locator('.game[data-status="finished"], [data-action]:enabled').first.wait_for()
        return self.page.locator('.game[data-status="finished"]').count() == 0

    def click(self, element) -> None:
        before = self.version()
        element.click()
        self.page.locator(f'.game:not([data-version="{before}"])').wait_for()

    def play(
        self,
        choose: Callable[[list[dict[str, Any]]], dict[str, Any]],
        screenshot: Callable[[int], bool],
        name: str,
        midway: Callable[[], None] = lambda: None,
    ) -> int:
        """Play to the end, clicking what ``choose`` picks; once ``screenshot(clicks)``, run the
        ``midway`` checks and take a screenshot."""
        clicks, shot = 0, False
        while self.wait_for_my_move_or_the_end():
            if not shot and screenshot(clicks):
                midway()
                self.screenshot(name)
                shot = True
            actions = self.enabled_actions()
            chosen = choose([action for action, _ in actions])
            self.click(next(element for action, element in actions if action == chosen))
            clicks += 1
        assert shot, "no screenshot was taken mid-game"
        return clicks

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def shown_scores(self, attribute: str) -> dict[int, int]:
        cells = self.page.locator(f"[{attribute}]")
        return {int(cell.get_attribute(attribute)): int(cell.inner_text()) for cell in cells.all()}

    def seen(self) -> PageSeen:
        """The page as it is now."""
        from playwright.sync_api import Error

        try:
            shown = self.page.inner_text("body", timeout=2000)
        except Error as error:
            shown = f"(unreadable: {error.message})"
        return PageSeen(self.page.url, shown, tuple(self.errors), self.service_log)

    def close(self) -> None:
        unexpected = [error for error in self.errors if not any(expected in error for expected in self.expected_errors)]
        PAGES_SEEN.append(self.seen())
        self.context.close()
        assert not unexpected, f"console errors: {unexpected}"


def card_order(action: dict[str, Any]) -> tuple[int, int]:
    return RANKS.index(action["card"][0]), SUITS.index(action["card"][1])


def highest_card_or_pass(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A fixed choice from the set of actions, whatever order the page shows them in: pass in
    the auction, the first suit for trump, else the highest card."""
    if {"type": "pass"} in actions:
        return {"type": "pass"}
    trumps = [action for action in actions if action["type"] == "trump"]
    if trumps:
        return min(trumps, key=lambda action: SUITS.index(action["suit"]))
    plays = [action for action in actions if action["type"] == "play"]
    return max(plays, key=card_order) if plays else actions[0]


def stream_offered(api: SocketClient) -> bool:
    return "/v1/games/{game_id}/events" in api.request("GET", "/openapi.json").body["paths"]


def check_the_end(table: Table, api: SocketClient, game_id: str, score_attribute: str, name: str) -> None:
    """The page shows the API's final scores, the result, every deal's result and the reveal,
    having followed the game by the event stream where the service offers one, else by long-poll."""
    table.page.locator(".result").wait_for()
    table.screenshot(f"{name}-end")
    final = api.view(game_id).body
    assert final["status"] == "finished"
    streamed = any(f"/v1/games/{game_id}/events" in url for url in table.requested)
    # once the match is over the page long-polls the finished game, to hear of a rematch
    long_polled = any(f"/v1/games/{game_id}?wait=" in url and int(url.rsplit("after=", 1)[1]) < final["version"] for url in table.requested)
    assert (streamed, long_polled) == ((True, False) if stream_offered(api) else (False, True))
    shown = table.shown_scores(score_attribute)
    if score_attribute == "data-score-team":
        assert shown == {index: final["scores"][team[0]] for index, team in enumerate(final["teams"])}
    else:
        assert shown == dict(enumerate(final["scores"]))
    history = api.whole_history(game_id, table.token)
    deal_results = [event for event in history["events"] if event["type"] == "deal_result"]
    assert table.page.locator(".history tbody tr").count() == len(deal_results)
    assert table.page.locator(".reveal .dealt").count() == len(history["reveal"]["deals"])
    hands = table.page.locator(".reveal .dealt").first.locator(".dealt-hand").first.locator(".card")
    assert sorted(card.get_attribute("aria-label") for card in hands.all()) == sorted(
        card_name(card) for card in history["reveal"]["deals"][0]["hands"][0]
    )


SUIT_NAMES = {"C": "Sinek", "D": "Karo", "H": "Kupa", "S": "Maça"}
#: how the page groups a hand: by suit, alternating colours
HAND_SUIT_ORDER = "SHCD"


def check_the_actions_and_the_hand(table: Table, view: dict[str, Any]) -> None:
    """Every legal action has exactly one enabled element, which posts it and has a name; no
    other element acts; the hand is the view's, grouped by suit."""
    elements = table.page.locator("[data-action]").all()
    posted = [json.loads(element.get_attribute("data-action")) for element in elements]
    assert sorted(map(json.dumps, posted)) == sorted(map(json.dumps, view["legal_actions"]))
    for element in elements:
        assert element.is_enabled() and element.get_attribute("aria-label")
    hand = [card.get_attribute("aria-label") for card in table.page.locator(".hand .card").all()]
    assert sorted(hand) == sorted(map(card_name, view["hand"]))
    suits = [next(code for code, name in SUIT_NAMES.items() if label.startswith(name)) for label in hand]
    assert suits == sorted(suits, key=HAND_SUIT_ORDER.index)


def card_name(code: str) -> str:
    """The card's Turkish name, as the catalog gives it (suit, then rank in the possessive)."""
    ranks = {"T": "Onlusu", "J": "Valesi", "Q": "Kızı", "K": "Papazı", "A": "Ası", "9": "Dokuzlusu", "8": "Sekizlisi", "7": "Yedilisi"}
    ranks |= {"6": "Altılısı", "5": "Beşlisi", "4": "Dörtlüsü", "3": "Üçlüsü", "2": "İkilisi"}
    return f"{SUIT_NAMES[code[1]]} {ranks[code[0]]}"


def test_a_german_whist_deal_against_the_random_computer(browser, service, api):
    table = Table(browser, service)
    try:
        game_id = table.start("Alman Whisti", {"target": 0})
        assert table.page.get_by_role("status").first.inner_text()  # whose turn it is, said
        assert table.page.locator(".centre").get_by_text("Açık kart").count() == 1
        page = table.page

        def hint_and_last_trick() -> None:
            view = api.view(game_id, table.token).body
            check_the_actions_and_the_hand(table, view)
            page.get_by_role("button", name="İpucu").click()
            page.locator(".hint").wait_for()
            hinted = json.loads(page.locator(".hinted").get_attribute("data-action"))
            assert hinted in view["legal_actions"] and page.locator(".hinted").is_enabled()
            page.get_by_role("button", name="Son löveyi göster").click()
            shown = page.locator(".last-trick .card").all()
            assert [card.get_attribute("aria-label") for card in shown] == [card_name(played["card"]) for played in view["last_trick"]["cards"]]
            assert page.locator(".centre").get_by_role("img").get_attribute("aria-label") == card_name(view["face_up"])
            assert f"{view['stock_size']} kart" in page.locator(".centre").inner_text()

        table.play(highest_card_or_pass, screenshot=lambda clicks: clicks == 8, name="german-whist", midway=hint_and_last_trick)
        check_the_end(table, api, game_id, "data-score-seat", "german-whist")
        assert table.page.get_by_text("Maç bitti").count() == 1
    finally:
        table.close()


def test_a_refused_action_shows_the_servers_reason(browser, service, api):
    """A client that sends what the server refuses (here, a body altered on its way) is told why."""
    table = Table(browser, service)
    try:
        game_id = table.start("Alman Whisti", {"target": 0})
        table.wait_for_my_move_or_the_end()
        not_mine = next(card for card in (r + s for r in RANKS for s in SUITS) if card not in api.view(game_id, table.token).body["hand"])
        # the page is in Turkish, and asks for the server's problems in Turkish
        refusal = api.act(game_id, {"type": "play", "card": not_mine}, table.token, **{"Accept-Language": "tr"}).body
        assert refusal["detail"].endswith("elinizde yok")
        table.page.route("**/actions", lambda route: route.continue_(post_data=json.dumps({"type": "play", "card": not_mine})))
        table.expected_errors.append("status of 422")
        version = table.version()
        table.enabled_actions()[0][1].click()
        alert = table.page.get_by_role("alert")
        alert.wait_for()
        assert refusal["detail"] in alert.inner_text() and refusal["code"] in alert.inner_text()
        assert refusal["detail"] in table.page.locator("#announce").inner_text()  # said to screen readers too
        assert table.version() == version and table.enabled_actions()  # nothing changed; still your move
        table.page.unroute("**/actions")
        table.page.reload()  # the token stays in the browser: the table comes back as it was
        table.page.locator(f'.game[data-version="{version}"] [data-action]:enabled').first.wait_for()
    finally:
        table.close()


def sixty_six_choice(table: Table) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
    """Claim 66 when the open score says so, announce marriages, exchange, else the highest card."""

    def choose(actions: list[dict[str, Any]]) -> dict[str, Any]:
        points = table.shown_scores("data-points-seat")
        if {"type": "declare"} in actions and points.get(0, 0) >= 66:
            return {"type": "declare"}
        for kind in ("marriage", "exchange"):
            found = sorted((action for action in actions if action["type"] == kind), key=lambda action: not action.get("declare"))
            if found:  # a marriage that claims 66 with it first
                return found[0]
        plays = [action for action in actions if action["type"] == "play"]
        return max(plays, key=card_order) if plays else next(action for action in actions if action["type"] != "close")

    return choose


def test_a_sixty_six_match_to_five_against_the_random_computer(browser, service, api):
    table = Table(browser, service)
    try:
        game_id = table.start("Altmışaltı", {"target": 5, "open_scores": True})
        page = table.page
        assert page.get_by_role("button", name="Talonu kapat").count() + page.locator("[data-action]").count() > 0
        special = '[data-action*=\'"marriage"\'], [data-action*=\'"exchange"\']'
        def talon_and_trump_card() -> None:
            view = api.view(game_id, table.token).body
            check_the_actions_and_the_hand(table, view)
            centre = page.locator(".centre").inner_text()
            assert (f"{view['talon_size']} kart" in centre) or view["talon_closed"]
            if view["trump_card"]:
                assert page.locator(".centre").get_by_role("img").get_attribute("aria-label") == card_name(view["trump_card"])

        table.play(
            sixty_six_choice(table),
            # a match to 5 takes two deals at least, so there is always a second move
            screenshot=lambda clicks: page.locator(special).count() > 0 or clicks == 1,
            name="sixty-six",
            midway=talon_and_trump_card,
        )
        check_the_end(table, api, game_id, "data-score-seat", "sixty-six")
    finally:
        table.close()


def quick_batak_seed(api: SocketClient) -> str:
    """A seed whose match to 21, the random computer against ``highest_card_or_pass``, ends
    within four deals and has you play at least one deal's cards, found over the API.

    Random play fails most Batak contracts, so most such matches drift below zero for hundreds
    of deals; the computers' choices follow from the seed, so the browser then plays this very
    match."""
    for attempt in range(40):  # about one seed in four will do; the service allows 60 new games a minute
        seed = f"web-batak-{attempt}"
        created = api.create(
            ruleset="partnership-batak", options={"target": 21}, seed=seed, seats=[{"name": "Sen"}] + [{"bot": "random"}] * 3
        ).body
        token = created["tokens"][0]["token"]
        view = api.view(created["id"], token).body
        actions = 0
        while view["status"] == "active" and view["deal"] <= 4:
            if view["legal_actions"]:
                view = api.act(created["id"], highest_card_or_pass(view["legal_actions"]), token).body
                actions += 1
            else:
                view = api.request("GET", f"/v1/games/{created['id']}?wait=5&after={view['version']}", token=token).body
        if view["status"] == "finished" and actions >= 13:
            return seed
    raise AssertionError("no seed among 40 ends the match within four deals")


def test_a_batak_match_to_21_against_the_random_computer(browser, service, api):
    seed = quick_batak_seed(api)
    table = Table(browser, service)
    try:
        game_id = table.start("Eşli Batak", {"target": 21}, seed=seed)
        page = table.page
        # you at South, the partner North across, the opponents East and West
        assert [page.locator(f".seat.{where}").get_attribute("data-seat") for where in ("bottom", "right", "top", "left")] == ["0", "1", "2", "3"]
        for where, label in (("bottom", "Güney"), ("right", "Doğu"), ("top", "Kuzey"), ("left", "Batı")):
            assert label in page.locator(f".seat.{where} .who").inner_text()

        def open_hand_in_play(clicks: int) -> bool:
            return page.locator(".badge", has_text="Açık el").count() > 0 and page.locator(".played .card").count() >= 2

        def open_hand_and_auction() -> None:
            view = api.view(game_id, table.token).body
            check_the_actions_and_the_hand(table, view)
            open_hand = view["open_hand"]
            if open_hand["seat"] != view["seat"]:  # your own hand open: its badge is on your hand
                shown = page.locator(".open-hand .card").all()
                assert sorted(card.get_attribute("aria-label") for card in shown) == sorted(map(card_name, open_hand["cards"]))
            assert page.locator(".auction li").count() == len(view["auction"]["bids"])
            assert "Koz" in page.locator(".centre").inner_text() and SUIT_NAMES[view["trump"]] in page.locator(".centre").inner_text()

        table.play(highest_card_or_pass, screenshot=open_hand_in_play, name="batak", midway=open_hand_and_auction)
        check_the_end(table, api, game_id, "data-score-team", "batak")
        assert page.locator(".auction li").count() > 0
    finally:
        table.close()


def test_without_the_stream_the_table_follows_by_long_poll(browser, service, api):
    """A stream that cannot be opened (a proxy that drops it, say) leaves long-poll to follow."""
    if not stream_offered(api):
        pytest.skip("this service has no event stream: every other test follows by long-poll")
    table = Table(browser, service)
    try:
        table.page.route("**/events*", lambda route: route.abort())
        table.expected_errors.append("net::ERR_FAILED")
        game_id = table.start("Alman Whisti", {"target": 0})
        table.play(highest_card_or_pass, screenshot=lambda clicks: clicks == 0, name="german-whist-long-poll")
        table.page.locator(".result").wait_for()
        assert any(f"/v1/games/{game_id}?wait=" in url for url in table.requested)
        assert table.shown_scores("data-score-seat") == dict(enumerate(api.view(game_id).body["scores"]))
    finally:
        table.close()


def test_a_page_that_fails_to_show_a_view_it_follows_fails_aloud_rather_than_follow_on(browser, service, api):
    """A view the page cannot take is the page's own failure: the stream is not taken for a
    broken one and followed on by long-polls, which would keep a stale table on show with no error."""
    game_id = api.create(ruleset="german-whist", seats=[{"name": "A"}, {"bot": "random"}]).body["id"]
    table = Table(browser, service)
    try:
        outcome = table.page.evaluate(
            """async (gameId) => {
                const { follow } = await import("/web/api.js");
                const following = new AbortController();
                const heard = [];
                try {
                    await follow({
                        gameId, token: null, signal: following.signal, after: -1, keepGoing: () => true,
                        onView: () => { throw new Error("the table cannot be drawn"); },
                        onError: (error) => { heard.push(error.message); following.abort(); },
                    });
                    return { returned: true, heard };
                } catch (error) {
                    return { thrown: error.message, heard };
                }
            }""",
            game_id,
        )
        assert outcome == {"thrown": "the table cannot be drawn", "heard": []}
        assert not any(f"/v1/games/{game_id}?wait=" in url for url in table.requested)
    finally:
        table.close()


def test_english_by_a_switch_and_the_table_fits_a_phone(browser, service):
    table = Table(browser, service, viewport={"width": 390, "height": 844})
    try:
        page = table.page
        page.get_by_role("button", name="English").click()
        page.get_by_role("link", name="Partnership Batak").click()
        page.get_by_role("heading", name="Play the computer").wait_for()
        assert page.locator("html").get_attribute("lang") == "en"
        form = page.locator("form.setup")
        assert form.locator("[name=target] option").all_inner_texts() == ["21 (Quick)", "31 (Normal)", "51 (Long)"]
        form.locator("[name=player]").fill("<b>Ada</b>")
        form.get_by_role("button", name="START").click()
        page.locator("[data-action]:enabled").first.wait_for()
        assert page.locator(".hand h2").inner_text() == "<b>Ada</b>"  # a name is text, never markup
        assert page.get_by_role("button", name="Pass").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
        table.screenshot("batak-phone-en")
        page.get_by_role("button", name="Türkçe").click()
        assert page.get_by_role("button", name="Pas").count() == 1
    finally:
        table.close()
