"""The web table played together, in headless Chromium (Debian's package) driven by Playwright.

People set up a table with friends and computers, invite by link or meet at the open tables,
play by clicking enabled ``data-action`` elements only, watch as spectators, leave and come
back, ask for a rematch, and run out of time; an accessibility check (axe-core, pinned in
``openapi/package-lock.json``) finds no serious or critical violation on the pages they see.
Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from tests.test_serve import Service
from tests.test_web_table import Table, api, browser, highest_card_or_pass, service  # noqa: F401 (fixtures)

AXE = Path(__file__).resolve().parents[1] / "openapi" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}


def axe_violations(table: Table) -> list[str]:
    """The serious and critical accessibility violations axe-core finds on the page as it is."""
    assert AXE.exists(), f"{AXE} is missing: `make test` installs it (npm ci --prefix openapi)"
    if not table.page.evaluate("() => Boolean(window.axe)"):
        table.page.add_script_tag(path=str(AXE))
    found = table.page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .filter((violation) => ["serious", "critical"].includes(violation.impact))
            .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)"""
    )
    return list(found)


def accessible_in_both_languages(table: Table, wait_for: str, screenshot: str | None = None) -> None:
    """No serious or critical violation in Turkish, then in English (its screenshot taken), then back in Turkish."""
    assert axe_violations(table) == []
    table.page.get_by_role("button", name="English").click()
    table.page.locator(wait_for).first.wait_for()
    assert axe_violations(table) == []
    if screenshot:
        table.screenshot(f"{screenshot}-en")
    table.page.get_by_role("button", name="Türkçe").click()
    table.page.locator(wait_for).first.wait_for()


def set_up_with_friends(table: Table, game_name: str, name: str, seats: dict[int, str], options: dict[str, Any],
                        private: bool = True, clock: dict[str, str] | None = None) -> str:
    """Fill "Arkadaşlarla oyna": the name, options, each other seat (``open`` or a level), privacy and clock."""
    table.page.get_by_role("link", name=game_name).click()
    form = table.page.locator("form.friends")
    form.get_by_role("heading", name="Arkadaşlarla oyna").wait_for()
    form.locator("[name=player]").fill(name)
    form.locator("details summary").click()
    for code, value in options.items():
        field = form.locator(f"[name={code}]")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    for seat, choice in seats.items():
        form.locator(f"[name=seat-{seat}]").select_option(choice)
    form.locator("[name=private]").set_checked(private)
    for code, value in (clock or {}).items():
        form.locator(f"[name={code}]").select_option(value)
    form.get_by_role("button", name="MASAYI KUR").click()
    table.page.locator(".waiting-room, .game").first.wait_for()
    return table.page.evaluate("location.hash").split("/")[2]


def play_by_turns(client, game_id: str, people: dict[int, Table], choose: Callable[[list[dict[str, Any]]], dict[str, Any]],
                  midway: Callable[[int], None] = lambda clicks: None) -> int:
    """Play the match to its end: whoever's turn it is (as the API says) clicks at their own page,
    which must have shown that very version with its actions enabled; computers are waited for."""
    clicks = 0
    view = client.view(game_id).body
    while view["status"] == "active":
        seat = view["to_act"][0] if view["to_act"] else None
        if seat in people and not view["seats"][seat]["bot"]:
            table = people[seat]
            table.page.locator(f'.game[data-version="{view["version"]}"] [data-action]:enabled').first.wait_for()
            midway(clicks)
            actions = table.enabled_actions()
            chosen = choose([action for action, _ in actions])
            next(element for action, element in actions if action == chosen).click()
            clicks += 1
        view = client.request("GET", f"/v1/games/{game_id}?wait=5&after={view['version']}").body
    return clicks


def hands_on_the_wire(bodies: list[Any], final_version: int) -> list[Any]:
    """Whatever of a hand a spectator received before the match ended: views' hands, dealt hands, drawn cards."""
    found: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("hand") or value.get("hands") or (value.get("type") == "draw" and "card" in value):
                found.append(value)
            for key, inner in value.items():
                if key != "reveal":  # the reveal comes once the match is over
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for body in bodies:
        if isinstance(body, dict) and body.get("version", final_version) < final_version:
            walk(body)
    return found


def spectator_bodies(responses: list[Any]) -> list[Any]:
    """The JSON of every answer the spectator's page received; an event stream's messages one by one."""
    bodies: list[Any] = []
    for response in responses:
        if "/v1/" not in response.url or response.request.method != "GET":
            continue
        text = response.text()
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for block in text.split("\n\n"):
                data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
                if data:
                    bodies.append(json.loads(data))
        elif text:
            bodies.append(json.loads(text))
    return bodies


def test_friends_play_german_whist_by_invitation_watched_then_rematch_leave_and_come_back(browser, service, api):  # noqa: F811
    ayse = Table(browser, service, bypass_csp=True)
    bora: Table | None = None
    watcher: Table | None = None
    try:
        assert axe_violations(ayse) == []  # the home page
        ayse.screenshot("home")
        game_id = set_up_with_friends(ayse, "Alman Whisti", "Ayşe", {1: "open"}, {"target": 0})
        room = ayse.page.locator(".waiting-room")
        room.wait_for()
        assert ayse.page.locator('.seat-list li[data-seat="1"]').inner_text().count("boş") == 1
        accessible_in_both_languages(ayse, ".waiting-room", "waiting-room")
        ayse.screenshot("waiting-room")
        invitation = ayse.page.locator("input.invitation").input_value()
        watch_link = ayse.page.locator("input.watch").input_value()
        assert f"/{game_id}/join/1/" in invitation  # a private table: the seat's code is in the link
        ayse.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=service.url)
        ayse.page.locator('.seat-list li[data-seat="1"]').get_by_role("button", name="Kopyala").click()
        ayse.page.locator('.seat-list li[data-seat="1"]').get_by_role("button", name="Kopyalandı").wait_for()
        assert ayse.page.evaluate("() => navigator.clipboard.readText()") == invitation

        bora = Table(browser, service, path="/" + invitation.split("/", 3)[3])
        bora.page.get_by_role("heading", name="Alman Whisti masasına davet").wait_for()
        bora.page.locator("[name=player]").fill("Bora")
        bora.page.get_by_role("button", name="OTUR", exact=True).click()
        bora.page.locator(".game").wait_for()
        ayse.page.locator(".game").wait_for()  # the last seat taken: the game starts by itself

        late = Table(browser, service, path="/" + invitation.split("/", 3)[3])  # the link, once the game has started
        late.page.get_by_role("alert").filter(has_text="Bu oyun başladı; koltuk artık boş değil.").wait_for()
        assert late.page.get_by_role("link", name="Ana sayfaya dön").count() == 1
        late.close()

        watcher = Table(browser, service, path="/" + watch_link.split("/", 3)[3])
        responses: list[Any] = []
        watcher.page.on("response", lambda response: responses.append(response))
        watcher.page.locator(".game").wait_for()
        assert watcher.page.get_by_text("İzliyorsun").count() == 1 and watcher.page.locator(".hand").count() == 0

        def screenshots(clicks: int) -> None:
            if clicks == 6:
                accessible_in_both_languages(ayse, ".game [data-action]:enabled, .game", "shared-table")
                ayse.screenshot("shared-table")
                watcher.page.locator(".played .card").first.wait_for()
                watcher.screenshot("spectator")
                assert watcher.page.locator("[data-action]").count() == 0

        play_by_turns(api, game_id, {0: ayse, 1: bora}, highest_card_or_pass, screenshots)
        final = api.view(game_id).body
        for table in (ayse, bora, watcher):
            table.page.locator(".result").wait_for()
            assert table.shown_scores("data-score-seat") == dict(enumerate(final["scores"]))
        assert watcher.page.get_by_role("button", name="Rövanş").count() == 0  # a spectator has no seat to play again
        ayse.page.locator(".reveal").wait_for()
        accessible_in_both_languages(ayse, ".result", "german-whist-together-end")
        # the spectator never received a card of a hand while the match ran
        bodies = spectator_bodies(responses)
        assert any(body.get("status") == "active" for body in bodies if isinstance(body, dict))
        assert hands_on_the_wire(bodies, final["version"]) == []

        # a rematch asked by both: the first waits, the second sees who asked, then both play on
        ayse.page.get_by_role("button", name="Rövanş").click()
        ayse.page.locator(".waiting-room").wait_for()
        assert ayse.page.locator('.seat-list li[data-seat="1"]').inner_text() == "2. Oyuncu Bora · henüz istemedi"
        rematch = ayse.page.evaluate("location.hash").split("/")[2]
        assert rematch != game_id
        bora.page.get_by_text("Rövanş isteyenler: Ayşe").wait_for()
        bora.page.get_by_role("button", name="Rövanş").click()
        for table in (ayse, bora):
            table.page.locator('.game[data-status="active"]').wait_for()
            assert table.page.evaluate("location.hash").split("/")[2] == rematch

        # leaving: a computer takes the seat, the others see it named so; a reload takes it back
        ayse.page.get_by_role("button", name="Masadan kalk").click()
        ayse.page.get_by_text("Masadan kalktın").wait_for()
        bora.page.locator('.seat[data-seat="0"] .label', has_text="kalktı: bilgisayar oynuyor").wait_for()
        assert api.view(rematch).body["seats"][0]["left"] is True
        ayse.page.reload()
        ayse.page.get_by_role("button", name="Masadan kalk").wait_for()
        assert api.view(rematch).body["seats"][0]["left"] is False
        bora.page.locator('.seat[data-seat="0"] .label', has_text="kalktı").wait_for(state="detached")
        ayse.page.get_by_role("button", name="Masadan kalk").click()  # and once more, back by the button
        ayse.page.get_by_role("button", name="Masaya dön").click()
        ayse.page.get_by_role("button", name="Masadan kalk").wait_for()
        assert api.view(rematch).body["seats"][0]["left"] is False
    finally:
        for table in (watcher, bora, ayse):
            if table is not None:
                table.close()


def test_partners_at_batak_meet_at_the_open_tables_and_play_to_21_with_two_computers(browser, service, api):  # noqa: F811
    ayse = Table(browser, service)
    bora: Table | None = None
    watcher: Table | None = None
    try:
        game_id = set_up_with_friends(ayse, "Eşli Batak", "Ayşe", {1: "basic", 2: "open", 3: "basic"}, {"target": 21}, private=False)
        ayse.page.locator(".waiting-room").wait_for()
        watch_link = ayse.page.locator("input.watch").input_value()
        bora = Table(browser, service, path="/#/tables")
        listed = bora.page.locator(f'.lobby li[data-game="{game_id}"]')
        listed.wait_for()  # refreshed without a reload: the game was made after the page opened, perhaps
        bora.screenshot("open-tables")
        listing = listed.inner_text()  # the options and seats in words, and how long it has waited
        assert "Bitiş puanı: 21 (Hızlı)" in listing and "Doğu: Bilgisayar: Orta" in listing and "önce kuruldu" in listing
        assert listed.get_by_role("link", name="İzle").get_attribute("href") == f"#/partnership-batak/{game_id}/watch"
        listed.get_by_role("button", name="Kuzey koltuğuna otur").click()
        bora.page.get_by_role("button", name="OTUR", exact=True).click()  # no name given: a guest
        for table in (ayse, bora):
            table.page.locator(".game").wait_for()
        # partners: across the table from each other, the computers on either side
        assert ayse.page.locator(".seat.top .who").inner_text().startswith("Misafir")
        assert bora.page.locator(".seat.top .who").inner_text().startswith("Ayşe")
        watcher = Table(browser, service, path="/" + watch_link.split("/", 3)[3])
        watcher.page.locator(".game").wait_for()
        deal_ends: list[str] = []
        watched: list[int] = []

        def the_deal_stays_in_sight(clicks: int) -> None:
            if not watched and watcher.page.locator(".open-hand .card").count():
                # a spectator sees the auction and the open hand, never a hand, and has nothing to press
                assert watcher.page.locator(".auction li").count() > 0 and watcher.page.locator(".hand").count() == 0
                assert watcher.page.locator("[data-action]").count() == 0
                watched.append(clicks)
            ended = ayse.page.locator(".deal-end")
            if not deal_ends and ended.count():
                # the deal's last trick and result stay until the next action
                assert ended.locator(".final-trick .card").count() == 4
                deal_ends.append(ended.inner_text())
                ayse.screenshot("batak-deal-over")

        play_by_turns(api, game_id, {0: ayse, 2: bora}, highest_card_or_pass, the_deal_stays_in_sight)
        final = api.view(game_id).body
        for table in (ayse, bora):
            table.page.locator(".result").wait_for()
            shown = table.shown_scores("data-score-team")
            assert shown == {index: final["scores"][team[0]] for index, team in enumerate(final["teams"])}
        assert deal_ends and "1. el bitti" in deal_ends[0] and watched
        assert game_id not in {game["id"] for game in api.request("GET", "/v1/games?status=waiting").body["games"]}  # started: unlisted
    finally:
        for table in (watcher, bora, ayse):
            if table is not None:
                table.close()


def test_timed_sixty_six_tables_count_down_then_forfeit_or_let_the_computer_play(browser, service, api):  # noqa: F811
    forfeit = Table(browser, service)
    computer = Table(browser, service)
    try:
        clock = {"seconds": "10", "bank": "0"}
        forfeit_id = set_up_with_friends(forfeit, "Altmışaltı", "Ayşe", {1: "basic"}, {}, clock={**clock, "on_timeout": "forfeit"})
        set_up_with_friends(computer, "Altmışaltı", "Ali", {1: "basic"}, {"target": 7}, clock={**clock, "on_timeout": "computer"})
        for table in (forfeit, computer):
            table.page.locator(".game [data-action]:enabled").first.wait_for()
            # the countdown of the seat to act, from the view's deadline and the server's clock
            assert forfeit.page.locator(".turn .clock").inner_text().strip().startswith("⏱ 0:")
        computer.page.get_by_text("Ali'nin süresi doldu: bilgisayar oynadı").wait_for()
        forfeit.page.locator('.game[data-status="forfeited"] .result').wait_for()
        assert forfeit.page.locator(".result .verdict").inner_text() == "Süre doldu: Ayşe kaybetti"
        assert forfeit.page.locator(".result h2").inner_text() == "Maç bitti: Kaybettin."
        assert api.view(forfeit_id).body["status"] == "forfeited"
        forfeit.page.locator(".reveal").wait_for()  # the seed and the deals, though the deal never ended
        forfeit.screenshot("sixty-six-forfeited")
    finally:
        computer.close()
        forfeit.close()


def fits_the_phone(table: Table, *selectors: str) -> None:
    """No sideways scrolling, and each of these in sight without scrolling."""
    page = table.page
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for selector in selectors:
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (selector, box)


def test_the_waiting_room_and_the_table_on_a_phone_in_both_languages(browser, service):  # noqa: F811
    table = Table(browser, service, viewport=PHONE)
    try:
        clock = {"seconds": "60", "bank": "120", "on_timeout": "computer"}
        set_up_with_friends(table, "Eşli Batak", "Ayşe", {1: "basic", 2: "open", 3: "basic"}, {"target": 21}, clock=clock)
        table.page.locator(".waiting-room").wait_for()
        terms = "Süreli masa: Hamle başına süre 60 sn · Yedek süre 120 sn · Süre dolunca: bilgisayar oynar"
        assert table.page.locator(".clock-terms").inner_text() == terms
        fits_the_phone(table, ".seat-list li.open input.invitation")
        table.screenshot("waiting-room-phone-tr")
        table.page.get_by_role("button", name="English").click()
        table.page.get_by_role("heading", name="Waiting room · Partnership Batak").wait_for()
        fits_the_phone(table, ".seat-list li.open input.invitation")
        table.screenshot("waiting-room-phone-en")
        table.page.get_by_role("button", name="Türkçe").click()
        table.page.get_by_role("link", name="Koz · Ana sayfa").click()
        # a fixed seed: with a drawn one the match once ended before this seat played with the open
        # hand shown (a seat can be the dummy, whose cards the declarer plays, deal after deal)
        table.start("Eşli Batak", {"target": 21}, seed="phone-open-hand")
        table.page.locator("[data-action]:enabled").first.wait_for()
        fits_the_phone(table, ".turn", ".table", ".hand")
        # and in play, with the open hand shown as well
        while not (table.page.locator(".open-hand .card").count() and table.page.locator('.hand [data-action*=\'"play"\']:enabled').count()):
            assert table.wait_for_my_move_or_the_end()
            actions = table.enabled_actions()
            chosen = highest_card_or_pass([action for action, _ in actions])
            table.click(next(element for action, element in actions if action == chosen))
        fits_the_phone(table, ".turn", ".table", ".hand", ".open-hand")
        table.screenshot("batak-phone-tr")
    finally:
        table.close()


def test_a_new_game_keeps_the_name_and_the_last_options(browser, service):  # noqa: F811
    table = Table(browser, service)
    try:
        table.page.get_by_role("link", name="Altmışaltı").click()
        form = table.page.locator("form.setup")
        form.locator("[name=player]").fill("Ayşe")
        form.locator("[name=target]").select_option("5")
        form.locator("[name=level]").select_option("random")
        form.get_by_role("button", name="BAŞLA").click()
        table.page.locator(".game").wait_for()
        table.page.get_by_role("link", name="Koz · Ana sayfa").click()
        table.page.get_by_role("link", name="Altmışaltı").click()
        table.page.locator("form.friends [name=player]").wait_for()
        table.screenshot("set-up")
        for which in ("form.setup", "form.friends"):
            assert table.page.locator(f"{which} [name=player]").input_value() == "Ayşe"
            assert table.page.locator(f"{which} [name=target]").input_value() == "5"
        assert table.page.locator("form.setup [name=level]").input_value() == "random"
    finally:
        table.close()


def test_a_withdrawn_invitation(browser, service, api):  # noqa: F811
    ayse = Table(browser, service)
    bora: Table | None = None
    watcher: Table | None = None
    try:
        game_id = set_up_with_friends(ayse, "Alman Whisti", "Ayşe", {1: "open"}, {"target": 0})
        ayse.page.locator(".waiting-room").wait_for()
        invitation = ayse.page.locator("input.invitation").input_value()
        watcher = Table(browser, service, path="/" + ayse.page.locator("input.watch").input_value().split("/", 3)[3])
        watcher.page.locator(".waiting-room").wait_for()
        assert watcher.page.get_by_role("button", name="Daveti geri çek").count() == 0  # only its creator may
        wrong = Table(browser, service, path="/" + invitation.split("/", 3)[3].rsplit("/", 1)[0] + "/not-the-code")
        wrong.expected_errors.append("status of 403")
        wrong.page.get_by_role("button", name="OTUR", exact=True).click()
        wrong.page.get_by_role("alert").filter(has_text="Davet kodu yanlış.").wait_for()
        wrong.close()
        bora = Table(browser, service, path="/" + invitation.split("/", 3)[3])
        bora.page.get_by_role("button", name="OTUR", exact=True).wait_for()
        # the game is gone: the browser logs the answer, also on the creator's page (a read in
        # flight when it withdrew)
        for table in (ayse, watcher, bora):
            table.expected_errors.append("status of 404")
        ayse.page.get_by_role("button", name="Daveti geri çek").click()
        for table in (ayse, watcher):
            table.page.get_by_text("Bu davet geri çekildi.").wait_for()
        assert api.request("GET", f"/v1/games/{game_id}").status == 404
        bora.page.get_by_role("button", name="OTUR", exact=True).click()  # too late: said in words, with a way home
        bora.page.get_by_role("alert").filter(has_text="Bu oyun bulunamadı.").wait_for()
        bora.page.get_by_role("link", name="Ana sayfaya dön").click()
        bora.page.get_by_role("link", name="Alman Whisti").wait_for()
    finally:
        for table in (watcher, bora, ayse):
            if table is not None:
                table.close()


def test_every_action_by_keyboard_with_turns_said_aloud_and_thirteen_cards_in_one_row(browser, service):  # noqa: F811
    table = Table(browser, service, viewport={"width": 1280, "height": 900})
    try:
        page = table.page
        table.start("Eşli Batak", {"target": 21})
        page.locator(".hand [data-action]:enabled, .actions [data-action]:enabled").first.wait_for()
        boxes = [box for box in (card.bounding_box() for card in page.locator(".hand .card").all()) if box]
        # one row at 1280 px: a legal card is raised a little, never by half a card
        assert len(boxes) == 13 and max(box["y"] for box in boxes) - min(box["y"] for box in boxes) < min(box["height"] for box in boxes) / 2
        assert page.locator("#announce").inner_text() == "Sıra sende"  # the live region says whose turn it is
        # from the top of the page, Tab reaches an action, and Enter posts it
        page.locator("#home-link").focus()
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("() => document.activeElement.matches('[data-action]')"):
                break
        assert page.evaluate("() => document.activeElement.matches('[data-action]')")
        version = table.version()
        page.keyboard.press("Enter")
        page.locator(f'.game:not([data-version="{version}"])').wait_for()
        # the words: plurals in English
        words = """async () => {
            const words = await import('/web/words.js');
            words.setLanguage('en');
            return [words.text('cards', 1), words.text('cards', 2)];
        }"""
        assert page.evaluate(words) == ["1 card", "2 cards"]
    finally:
        table.close()


def test_an_abandoned_match_is_shown_as_an_end(browser, tmp_path):  # noqa: F811
    short = Service(tmp_path / "koz-data", KOZ_MAX_WAIT_SECONDS="2", KOZ_MAX_VERSIONS="12")
    table = Table(browser, short)
    try:
        table.start("Alman Whisti", {"target": 0})
        page = table.page
        while page.locator('.game[data-status="abandoned"]').count() == 0:
            page.locator('.game[data-status="abandoned"], [data-action]:enabled').first.wait_for()
            actions = table.enabled_actions()
            if actions:
                table.click(actions[0][1])
        page.locator(".result").wait_for()
        assert page.locator(".result .verdict").inner_text().startswith("Maç yarıda kaldı")
        assert page.locator(".turn").count() == 0 and page.locator("[data-action]").count() == 0
        assert ". el" not in page.locator(".scores caption").inner_text()  # not a deal still being played
        page.locator(".reveal").wait_for()  # the seed and the deal as dealt, though it never ended
        table.screenshot("german-whist-abandoned")
    finally:
        table.close()
        short.stop()
