"""A Python client generated from the committed OpenAPI document with openapi-python-client, as a
third-party developer would make one, plays every ruleset and variant against the computer on a
live ``koz serve``: typed requests, typed views, a typed refusal, a typed history; and an arena
match, from taking an account and seeking to the rating its result gave. Nothing in the
matches is written by hand as JSON or read out of raw bytes; where the generator needs a
workaround, the document is what gets fixed.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import README_SERVER, readme_example
from tests.test_serve import Service

DOCUMENT = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
#: cards every ruleset's deck holds, so one of them is always a card the seat does not hold
HIGH_CARDS = [rank + suit for rank in "AKQJT" for suit in "CDHS"]


def generate(folder: Path) -> subprocess.CompletedProcess:
    # the generator formats what it writes with ruff (its default post-hooks), found on PATH
    environment = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(GENERATOR), "generate", "--path", str(DOCUMENT), "--output-path", str(folder / "koz_client"), "--meta", "none"]
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("python-client")
    result = generate(folder)
    sys.path.insert(0, str(folder))
    yield result
    sys.path.remove(str(folder))
    for name in [name for name in sys.modules if name == "koz_client" or name.startswith("koz_client.")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    service = Service(tmp_path_factory.mktemp("python-client-service") / "koz-data")
    yield service
    service.stop()


def test_openapi_python_client_generates_the_client_without_a_warning(generated):
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output


def typed_game(ruleset_id: str, seed: str):
    """The typed request of each match: the ruleset's own create model and options model, a
    human at seat 0 and the basic computer at the others."""
    models = importlib.import_module("koz_client.models")
    computer = models.SeatSpec(bot=models.LevelName.BASIC)
    if ruleset_id == "german-whist":
        return models.GermanWhistGameCreate(ruleset="german-whist", seats=[models.SeatSpec(name="Ayşe"), computer], seed=seed)
    if ruleset_id == "german-whist-no-trump-misere":
        options = models.GermanWhistOptions(no_trump=True, misere=True, count_all_tricks=True, scoring=models.GermanWhistOptionsScoring.OVER_SIX)
        return models.GermanWhistGameCreate(ruleset="german-whist", options=options, seats=[models.SeatSpec(name="Ayşe"), computer], seed=seed)
    if ruleset_id == "partnership-batak":
        options = models.PartnershipBatakOptions(target=models.PartnershipBatakOptionsTarget.VALUE_21)
        return models.PartnershipBatakGameCreate(
            ruleset="partnership-batak", options=options, seats=[models.SeatSpec(name="Ayşe"), computer, computer, computer], seed=seed
        )
    if ruleset_id == "sixty-six":
        options = models.SixtySixOptions(target=models.SixtySixOptionsTarget.VALUE_5)
        return models.SixtySixGameCreate(ruleset="sixty-six", options=options, seats=[models.SeatSpec(name="Ayşe"), computer], seed=seed)
    if ruleset_id == "sixty-six-no-talon":
        options = models.SixtySixOptions(
            no_talon=True,
            exhausted_talon=models.SixtySixOptionsExhaustedTalon.LAST_TRICK_TEN,
            open_scores=True,
            target=models.SixtySixOptionsTarget.VALUE_5,
        )
        return models.SixtySixGameCreate(ruleset="sixty-six", options=options, seats=[models.SeatSpec(name="Ayşe"), computer], seed=seed)
    assert ruleset_id == "schnapsen"
    options = models.SixtySixOptions(variant=models.SixtySixOptionsVariant.SCHNAPSEN, target=models.SixtySixOptionsTarget.VALUE_5)
    return models.SixtySixGameCreate(ruleset="sixty-six", options=options, seats=[models.SeatSpec(name="Ayşe"), computer], seed=seed)


@pytest.mark.parametrize(
    "match", ["german-whist", "german-whist-no-trump-misere", "partnership-batak", "sixty-six", "sixty-six-no-talon", "schnapsen"]
)
def test_the_generated_python_client_plays_a_whole_match_against_the_computer(generated, service, match):
    from koz_client import AuthenticatedClient, Client
    from koz_client.api.actions import post_action
    from koz_client.api.games import create_game, get_game
    from koz_client.api.history import get_history
    from koz_client.models import ActionEvent, PlayAction, PlayActionType, PostActionResponse422

    request = typed_game(match, seed=f"python-client-{match}")
    created = create_game.sync(client=Client(base_url=service.url), body=request)
    # each ruleset's answers are their own classes, with that ruleset's options
    own = {"german-whist": "GermanWhist", "partnership-batak": "PartnershipBatak", "sixty-six": "SixtySix"}[request.ruleset]
    assert type(created).__name__ == f"{own}GameCreated", created
    assert type(created.options).__name__ == f"{own}Options"
    token = next(entry.token for entry in created.tokens if entry.seat == 0)
    client = AuthenticatedClient(base_url=service.url, token=token, timeout=60)
    rng = random.Random(match)

    view = get_game.sync(created.id, client=client)
    assert type(view).__name__ == f"{own}View", view
    posted, refused = [], None
    while view.status == "active":
        if not view.legal_actions:
            # the computer's turn: long-poll until the version passes the one we have
            view = get_game.sync(created.id, client=client, wait=10, after=view.version)
            continue
        if refused is None and all(isinstance(action, PlayAction) for action in view.legal_actions):
            card = next(card for card in HIGH_CARDS if card not in view.hand)
            refused = post_action.sync(created.id, client=client, body=PlayAction(type_=PlayActionType.PLAY, card=card))
            assert isinstance(refused, PostActionResponse422), refused
            assert refused.code == "card_not_in_hand"
            assert all(isinstance(action, PlayAction) for action in refused.legal_actions)
            assert [action.card for action in refused.legal_actions] == [action.card for action in view.legal_actions]
        action = rng.choice(view.legal_actions)
        answer = post_action.sync(created.id, client=client, body=action)
        assert type(answer) is type(view), answer
        posted.append(action.to_dict())
        view = answer
    assert view.status == "finished"
    assert refused is not None, "no turn to provoke a refusal on"
    assert view.winners

    events, after = [], -1
    while after is not None:
        page = get_history.sync(created.id, client=client, after=after, limit=200)
        assert type(page).__name__ == f"{own}History", page
        assert type(page.options).__name__ == f"{own}Options"
        events.extend(page.events)
        after = page.next_after
    assert [event.action.to_dict() for event in events if isinstance(event, ActionEvent) and event.seat == 0] == posted
    assert page.reveal is not None
    assert hashlib.sha256(page.reveal.seed.encode()).hexdigest() == page.seed_commitment == view.seed_commitment
    assert len(page.reveal.deals) == sum(event.type_ == "deal" for event in events)
    deals = {"GermanWhist": "GermanWhist", "PartnershipBatak": "Batak", "SixtySix": "SixtySix"}[own]
    assert {type(event).__name__ for event in events if event.type_ in ("deal", "deal_result")} == {f"{deals}DealEvent", f"{deals}DealResultEvent"}
    assert all(len(hand) > 0 for deal in page.reveal.deals for hand in deal.hands)


def test_the_readme_python_example_plays_a_schnapsen_match(generated, service, capsys):
    exec(compile(readme_example("python").replace(README_SERVER, service.url), "README.md", "exec"), {})
    assert capsys.readouterr().out.startswith("finished [")


def arena_events(client, after: int, wanted: str, seconds: float = 60) -> tuple[int, dict]:
    """The first ``wanted`` event of the account's stream after event ``after``, read as it comes
    through the generated client's own HTTP client (its key, its base URL): (its id, the event)."""
    import json

    number = after
    kind = None
    with client.get_httpx_client().stream("GET", "/v1/arena/events", headers={"Last-Event-ID": str(after)}, timeout=seconds) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("id: "):
                number = int(line[4:])
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == wanted:
                return number, json.loads(line[6:])
    raise AssertionError(f"the stream ended without {wanted}")


def test_the_generated_python_client_plays_an_arena_match_from_its_account_to_its_rating(generated, service):
    from koz_client import AuthenticatedClient, Client
    from koz_client.api.accounts import create_account, get_account
    from koz_client.api.actions import post_action
    from koz_client.api.arena import create_seek, get_leaderboard
    from koz_client.api.games import get_game
    from koz_client.models import AccountCreate, AccountCreateKind, GetLeaderboardRuleset, SeekCreate, SeekCreateRuleset

    made = create_account.sync(client=Client(base_url=service.url), body=AccountCreate(name="PyBot", kind=AccountCreateKind.BOT))
    assert type(made).__name__ == "AccountCreated" and made.name == "PyBot", made
    arena = AuthenticatedClient(base_url=service.url, token=made.key, timeout=60)
    seek = create_seek.sync(client=arena, body=SeekCreate(ruleset=SeekCreateRuleset.GERMAN_WHIST, house_after_seconds=0.0))
    assert type(seek).__name__ == "Seek" and seek.ruleset == "german-whist", seek
    number, started = arena_events(arena, 0, "match_started")
    assert started["players"][0]["kind"] == "house"

    seat = AuthenticatedClient(base_url=service.url, token=started["token"], timeout=60)  # the seat token the arena handed over
    rng = random.Random("arena")
    view = get_game.sync(started["game"], client=seat)
    assert view.seat == started["seat"]
    while view.status == "active":
        if not view.legal_actions:
            view = get_game.sync(started["game"], client=seat, wait=10, after=view.version)
            continue
        view = post_action.sync(started["game"], client=seat, body=rng.choice(view.legal_actions))
        assert type(view).__name__ == "GermanWhistView", view
    assert view.status == "finished"

    _, finished = arena_events(arena, number, "match_finished")
    assert finished["game"] == started["game"] and finished["outcome"] == ("win" if started["seat"] in view.winners else "loss")
    page = get_account.sync("pybot", client=Client(base_url=service.url))
    assert page.games_played == 1 and page.ratings[0].games == 1 and page.recent_games[0].game == started["game"]
    assert page.ratings[0].rating == pytest.approx(finished["rating"]["rating"])
    board = get_leaderboard.sync(client=Client(base_url=service.url), ruleset=GetLeaderboardRuleset.GERMAN_WHIST, provisional=True)
    assert "PyBot" in [entry.name for entry in board.entries]
