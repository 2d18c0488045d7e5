"""A person's arena account at the web table, in headless Chromium (Debian's package) driven by Playwright.

Two people, each in a browser of their own, take accounts of kind ``person`` at ``#/account``
(the key kept in the browser's storage), seek a rated German Whist match there, hear that it
started on the account's event stream, play it at the table with the seat token the arena handed
over, and then see its result and rating change on their account pages, as
``GET /v1/accounts/{name}`` says them. The pages are axe-clean in Turkish and English; the keys
are never in an address the browsers asked for, nor in the service's log.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from tests.test_web_table import Table, api, browser, highest_card_or_pass, service  # noqa: F401 (fixtures)
from tests.test_web_together import axe_violations, play_by_turns


def take_account(table: Table, name: str) -> str:
    """Open "Hesabım", take an account by that name; its key, as the browser keeps it."""
    table.page.get_by_role("link", name="Hesabım").click()
    table.page.get_by_role("heading", name="Arena hesabı aç").wait_for()
    table.page.locator("[name=account]").fill(name)
    table.page.get_by_role("button", name="HESAP AÇ").click()
    table.page.get_by_role("heading", name=f"{name} · kişi").wait_for()
    return json.loads(table.page.evaluate("localStorage.getItem('koz:account')"))["key"]


def seek(
    table: Table, ruleset: str, house_after: str, options: dict[str, str] | None = None, partner: str | None = None, button: str = "MAÇ ARA"
) -> None:
    """Seek a rated match of the ruleset, choosing its shown options (``code``: the value selected)
    and naming a partner; ``button``: the seek button's name in the page's language."""
    form = table.page.locator("form.seek")
    form.locator("[name=ruleset]").select_option(ruleset)
    for code, value in (options or {}).items():
        form.locator(f"[name={code}]").select_option(value)
    if partner is not None:
        form.locator("[name=partner]").fill(partner)
    form.locator("[name=house_after]").select_option(house_after)
    form.get_by_role("button", name=button).click()


def decimal(number: float, signed: bool = False) -> str:
    """A number as the Turkish page shows it: one decimal, a comma, a sign on a change."""
    return (f"{number:+.1f}" if signed else f"{number:.1f}").replace(".", ",")


def test_two_people_take_accounts_seek_a_rated_match_play_it_and_see_their_ratings_change(browser, service, api):  # noqa: F811
    ayse = Table(browser, service, bypass_csp=True)  # bypass_csp: for the accessibility check's script
    bora = Table(browser, service)
    try:
        ayse_key = take_account(ayse, "Ayşe")
        assert ayse.page.get_by_text("Henüz puanlı maç oynamadın.").is_visible()
        assert axe_violations(ayse) == []
        ayse.page.get_by_role("button", name="English").click()
        ayse.page.get_by_role("heading", name="Seek a rated match").wait_for()
        assert ayse.page.get_by_role("heading", name="Ayşe · person").is_visible()
        assert axe_violations(ayse) == []
        ayse.screenshot("account-en")
        ayse.page.get_by_role("button", name="Türkçe").click()
        ayse.page.get_by_role("heading", name="Puanlı maç ara").wait_for()

        # a name taken (whatever its case) is refused, in the page's language, with its code
        bora.page.get_by_role("link", name="Hesabım").click()
        bora.page.locator("[name=account]").fill("AYŞE")
        bora.page.get_by_role("button", name="HESAP AÇ").click()
        assert "(name_taken)" in bora.page.get_by_role("alert").inner_text()
        bora.expected_errors.append("409")  # the refused account (the browser logs the answer's status)
        bora_key = take_account(bora, "Bora")

        # a seek is listed until it is stopped
        seek(ayse, "sixty-six", "", {"target": "5"})
        ayse.page.get_by_text("Altmışaltı için rakip aranıyor…").first.wait_for()
        (waiting,) = api.request("GET", "/v1/arena/seeks", token=ayse_key).body["seeks"]
        assert waiting["ruleset"] == "sixty-six" and waiting["options"]["target"] == 5 and waiting["house_after_seconds"] is None
        ayse.page.get_by_role("button", name="Aramayı bırak").click()
        ayse.page.locator("[data-seek]").wait_for(state="detached")
        assert ayse.page.get_by_text("Arama bırakıldı.").is_visible()
        assert api.request("GET", "/v1/arena/seeks", token=ayse_key).body["seeks"] == []

        # both seek rated German Whist (never the house): they are paired, and each page goes to the table
        seek(ayse, "german-whist", "")
        ayse.page.locator("[data-seek]").wait_for()
        seek(bora, "german-whist", "")
        for table in (ayse, bora):
            table.page.locator(".game").wait_for()
        game_id = ayse.game_id
        assert bora.game_id == game_id
        seats = {api.view(game_id, token=table.token).body["seat"]: table for table in (ayse, bora)}
        assert sorted(seats) == [0, 1]
        started = api.view(game_id).body
        assert sorted(seat["name"] for seat in started["seats"]) == ["Ayşe", "Bora"]
        play_by_turns(api, game_id, seats, highest_card_or_pass)
        final = api.view(game_id).body
        assert final["status"] == "finished"

        # back at the account page: the result and the rating change, as the account's page says them
        for table, name in ((ayse, "Ayşe"), (bora, "Bora")):
            table.page.get_by_role("link", name="Hesabım").click()
            row = table.page.locator(f'.account-games tr[data-game="{game_id}"]')
            row.wait_for()
            page = api.request("GET", f"/v1/accounts/{quote(name)}").body
            played = page["recent_games"][0]
            assert played["game"] == game_id and played["rated"] and page["games_played"] == 1
            outcome = {"win": "kazandın", "loss": "kaybettin", "draw": "berabere"}[played["outcome"]]
            cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
            assert cells == ["Alman Whisti", "Bora" if name == "Ayşe" else "Ayşe", outcome, decimal(played["rating_change"], True), "Maçı aç"]
            rating = page["ratings"][0]
            assert rating["ruleset"] == "german-whist" and rating["games"] == 1
            shown = [cell.strip() for cell in table.page.locator('.account-ratings tr[data-ruleset="german-whist"] td').all_inner_texts()]
            assert shown[:4] == ["Alman Whisti", decimal(rating["rating"]), f"± {decimal(rating['uncertainty'])}", "1"]
            # told by the account's stream: the last match's result and rating change
            table.page.get_by_role("status").filter(
                has_text=f"Son maç: {outcome} · Puan {decimal(rating['rating'])} ({decimal(played['rating_change'], True)})"
            ).wait_for()
        assert axe_violations(ayse) == []
        ayse.screenshot("account-after-a-match")
        # the last games link to the match at the table
        ayse.page.locator(f'.account-games tr[data-game="{game_id}"]').get_by_role("link", name="Maçı aç").click()
        ayse.page.locator('.game[data-status="finished"]').wait_for()

        for table, key in ((ayse, ayse_key), (bora, bora_key)):
            assert not [url for url in table.requested if key in url]
        assert ayse_key not in service.log.read_text() and bora_key not in service.log.read_text()
    finally:
        ayse.close()
        bora.close()


def test_an_account_the_service_no_longer_knows_is_forgotten_and_another_offered(browser, service):  # noqa: F811
    table = Table(browser, service, bypass_csp=True)  # bypass_csp: for the accessibility check's script
    table.page.evaluate("localStorage.setItem('koz:account', JSON.stringify({name: 'Nobody here', key: 'not-a-key'}))")
    table.page.get_by_role("link", name="Hesabım").click()
    table.page.get_by_role("heading", name="Arena hesabı aç").wait_for()
    assert table.page.evaluate("localStorage.getItem('koz:account')") is None
    assert axe_violations(table) == []  # the form that takes an account
    table.page.get_by_role("button", name="English").click()
    table.page.get_by_role("heading", name="Take an arena account").wait_for()
    assert axe_violations(table) == []
    table.expected_errors += ["404", "401"]  # the account's page and its seeks refused (the browser logs each)
    table.close()


def test_two_people_who_name_each_other_as_partners_sit_on_one_side_of_the_table(browser, service, api):  # noqa: F811
    ceren = Table(browser, service)
    deniz = Table(browser, service, viewport={"width": 390, "height": 844})  # on a phone, in English
    try:
        ceren_key = take_account(ceren, "Ceren")
        take_account(deniz, "Deniz")
        assert ceren.page.locator("form.seek [name=partner]").is_hidden()  # German Whist, chosen first, has no partners
        ceren.page.locator("form.seek [name=ruleset]").select_option("partnership-batak")
        assert ceren.page.locator("form.seek [name=partner]").is_visible()
        ceren.screenshot("account-seek-with-a-partner-field")
        seek(ceren, "partnership-batak", "10", partner="Deniz")
        ceren.page.get_by_text("(ortağın Deniz)").wait_for()
        ceren.screenshot("account-seeking-with-a-partner")
        (waiting,) = api.request("GET", "/v1/arena/seeks", token=ceren_key).body["seeks"]
        assert waiting["ruleset"] == "partnership-batak" and waiting["partner"] == "Deniz"
        deniz.page.get_by_role("button", name="English").click()
        deniz.page.get_by_role("button", name="SEEK A MATCH").wait_for()
        deniz.page.locator("form.seek [name=ruleset]").select_option("partnership-batak")
        deniz.page.get_by_label("Your partner (empty: drawn; they must name you too)").wait_for()
        deniz.screenshot("account-seek-with-a-partner-field-phone-english")
        seek(deniz, "partnership-batak", "10", partner="Ceren", button="SEEK A MATCH")
        for table in (ceren, deniz):  # no one else seeks: Koz's players fill the other side
            table.page.locator(".game").wait_for(timeout=60_000)
        assert ceren.game_id == deniz.game_id
        started = api.view(ceren.game_id).body
        seats = {api.view(ceren.game_id, token=table.token).body["seat"]: name for table, name in ((ceren, "Ceren"), (deniz, "Deniz"))}
        assert sorted(seats) in [side for side in started["sides"]], (seats, started["sides"])
        assert sorted(started["seats"][seat]["name"] for seat in seats) == ["Ceren", "Deniz"]
    finally:
        ceren.close()
        deniz.close()
