"""The arena under load, in one run against one ``koz serve`` (as ``bench/api.py`` starts it).

    python bench/arena.py [--accounts 200] [--house-after 2] [--matches 100] [--clients 8] [--seconds 10]
                          [--processes 1] [--baseline DIR] [--rounds 1] [--only-seeks] [--arena-share 1] [--bots http|stream|wait|socket]

1. ``--accounts`` accounts, each with its event stream open, seek at once: a third German Whist,
   a third Sixty-Six, the rest Eşli Batak (so that some are left without a full table and meet
   Koz's house players after ``--house-after`` seconds). Each seek's wait is the time from its
   ``POST /v1/arena/seeks`` to its ``match_started`` on the stream; every account must be matched,
   with a p99 wait within ``--house-after`` + 1 s. Where it goes: the ``POST``'s answer, then the
   rest (the pass that pairs it, and the event's delivery), for the seeks paired with each other
   and for those given to the house.
2. ``bench/api.py``'s action latency at half load, as it measures it (``--clients`` clients
   playing the random computer, paced at half their peak rate), in the same run. Then the
   same action paced as (3)'s bots are: as many clients as bots, at (3)'s total rate, their games
   made before (matches of many deals, as (3)'s) and read at once, each first action at a random
   moment of the first interval. Its work per action is the reference's, its load's shape the
   arena's (many independent clients: a stall delays every action sent meanwhile, where 8 clients
   have at most 8 in flight), so (3)'s p99 against it says what the arena's actions add beyond the
   shape of their load.
3. ``--matches`` arena matches of German Whist to 100 tricks (many deals: none ends within a
   phase, see ``LONG_MATCH``) between bot accounts (paired by seeking), played at once over HTTP
   by one bot per seat with the seat token its stream handed over, at the same total action rate
   as (2): action p50/p99, against the p99 bench/api.py holds for its action at half load
   (``HALF_LOAD_P99_TARGET``, 25 ms: the issue's "within the figures bench/api.py holds", read
   literally), and as a ratio to (2)'s measured in the same run (8 clients, where the arena has
   200: a stall of the host delays every move sent meanwhile). ``--arena-share F``
   plays them at F times that rate instead: at the share where the web process spends as much
   CPU a second as in (2), it shows whether the arena's latency is the reference's at the same
   load on the server, or worse. ``--bots socket``: the bots play over each game's WebSocket
   instead (``/v1/games/{id}/play``), a sample an ``act`` until its answer; ``--bots stream``: each
   action a ``POST`` as over ``http``, but the bots wait for the other seat's move on the game's
   event stream (``/v1/games/{id}/events``, held open) instead of long-polling, as Lichess bots do;
   ``--bots wait``: each action a ``POST .../actions?wait=``, whose answer waits for the bot's next
   turn (one request a move; a server that does not know ``wait`` answers at once, and the bot
   long-polls as over ``http``). Besides each request's latency (not for ``wait``, whose answer
   comes with the other bot's move), the time from a move's sending until the seat to act next
   holds the game after it (the other bot, or the mover again): ``bench/api.py``'s sample is that,
   a move until the client holds the game with its turn again (the computer's reply in the answer).

(2) and (3) also say how late this process's own event loop woke a sleeping greenlet (p50, p99):
the part of a measured latency that the 200 bots' own process added, rather than the server.

(2) and (3) also give the CPU milliseconds per action of each kind of process (the web
processes, the worker, Redis, and this client): an arena action costs the web several requests
(the action, the other bot's long-poll answered, this bot's next long-poll), the reference one.
``--baseline DIR`` runs the same against a ``koz serve`` of another checkout (a git worktree),
server after server, in one run: before and after side by side (both warmed up by a few seeks
first, and each round in the other order than the last). ``--rounds N`` measures each server N
times and ends with each one's median of the moves' p99 and of its ratios: one 10 s phase's p99 rests on
some 40 moves, and a host's stall moves it by half or more from one run to the next.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Iterable  # noqa: E402

import gevent  # noqa: E402
import websocket  # noqa: E402
from gevent.pool import Group  # noqa: E402

from api import HALF_LOAD_P99_TARGET, Connection, CpuMeter, action_client, ms, new_game_against_the_computer, percentile, run_clients, start_service  # noqa: E402
from stopping import stop_on_signals  # noqa: E402

RULESETS = ["german-whist", "sixty-six", "partnership-batak"]


class Stream:
    """An event stream (Server-Sent Events) read as it comes: an account's arena events, or a
    seat's events of one game."""

    def __init__(self, url: str, path: str, token: str) -> None:
        self.connection = Connection(url, timeout=120)
        self.connection.http.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.connection.http.getresponse()
        assert self.response.status == 200, self.response.read()

    def next_event(self, wanted: str, until: float | None = None) -> dict | None:
        """The data of the next ``wanted`` event; None once ``until`` has passed without one, or
        once the stream has ended."""
        kind = None
        while True:
            if until is not None:
                self.connection.http.sock.settimeout(max(0.001, until - time.perf_counter()))
            try:
                line = self.response.readline()
            except TimeoutError:
                return None
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                kind = text[7:]
            elif text.startswith("data: ") and kind == wanted:
                return json.loads(text[6:])

    def newer_view(self, version: int, until: float) -> dict | None:
        """The first view a game's stream sends that is newer than ``version`` (None: as :meth:`next_event`)."""
        while (view := self.next_event("view", until)) is not None and view["version"] <= version:
            pass
        return view

    def close(self) -> None:
        self.connection.close()


def new_accounts(url: str, prefix: str, count: int) -> list[str]:
    connection = Connection(url)
    keys = []
    for number in range(count):
        status, made = connection.call("POST", "/v1/accounts", {"name": f"{prefix}{number}"})
        assert status == 201, made
        keys.append(made["key"])
    connection.close()
    return keys


def seek_and_wait(url: str, key: str, body: dict, waits: list[tuple[float, float]], started: list[dict]) -> None:
    stream = Stream(url, "/v1/arena/events", key)
    connection = Connection(url)
    begun = time.perf_counter()
    status, seek = connection.call("POST", "/v1/arena/seeks", body, key)
    answered = time.perf_counter()
    assert status == 201, seek
    event = stream.next_event("match_started")
    assert event is not None, "the stream ended before match_started"
    waits.append((time.perf_counter() - begun, answered - begun))
    started.append(event)
    connection.close()
    stream.close()


def seek_at_once(url: str, keys: list[str], bodies: list[dict]) -> tuple[list[tuple[float, float]], list[dict]]:
    """Each account seeks at once (its body); (for each, its wait until it heard match_started and
    the time its POST took; those events, in the same order)."""
    waits: list[tuple[float, float]] = []
    started: list[dict] = []
    group = Group()
    for key, body in zip(keys, bodies):
        group.spawn(seek_and_wait, url, key, body, waits, started)
    group.join(raise_error=True)
    return waits, started


def matching(url: str, prefix: str, count: int, house_after: float) -> tuple[list[tuple[float, float]], list[dict]]:
    bodies = [{"ruleset": RULESETS[number * len(RULESETS) // count], "house_after_seconds": house_after} for number in range(count)]
    return seek_at_once(url, new_accounts(url, prefix, count), bodies)


class Reconnecting:
    """A bot's connection, made again when the server closed it while the bot waited for its turn
    to act (a paced bot is idle longer than the server keeps a connection open)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.connection = Connection(url)
        #: whether the last call was sent again on a new connection
        self.reconnected = False

    def call(self, method: str, path: str, body=None, token: str | None = None):
        self.reconnected = False
        try:
            return self.connection.call(method, path, body, token)
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = Connection(self.url)
            self.reconnected = True
            return self.connection.call(method, path, body, token)

    def close(self) -> None:
        self.connection.close()


def received(play: websocket.WebSocket) -> dict:
    """The next message on a play connection; a close raises, saying the server's code and reason."""
    while True:
        opcode, data = play.recv_data(control_frame=True)
        if opcode in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
            return json.loads(data)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
            raise ConnectionError(f"the server closed the play connection: {code} {data[2:].decode(errors='replace')}")


def pushed_by(play: websocket.WebSocket, until: float) -> dict | None:
    """The next message, or None once ``until`` has passed without one: the server pings an idle
    connection, so only a deadline ends a wait for a move the other seat's bot, stopped at
    ``until``, will never make."""
    try:
        play.settimeout(max(0.001, until - time.perf_counter()))
        return received(play)
    except websocket.WebSocketTimeoutException:
        return None
    finally:
        play.settimeout(60)


class Samples:
    """What the arena's bots measure: each action's latency (its request, or its message, until
    its answer), whether it was sent again on a new connection, and each move's time until the
    seat to act next held the game after it (the other bot, or the mover again): what
    ``bench/api.py``'s sample is, a move until the client holds the game with its turn again."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.reconnected: list[bool] = []
        self.to_next_actor: list[float] = []
        self.actions = 0
        self._sent: dict[str, float] = {}  # by game: when its last move was sent, until its next actor held it

    def sent(self, game: str) -> float:
        self._sent[game] = started = time.perf_counter()
        return started

    def refused(self, game: str) -> None:
        self._sent.pop(game, None)

    def held(self, game: str, view: dict) -> None:
        """A bot holds ``view``: if it is to act (or the game is over), the last move sent has reached its next actor."""
        if view["legal_actions"] or view["status"] != "active":
            sent = self._sent.pop(game, None)
            if sent is not None:
                self.to_next_actor.append(time.perf_counter() - sent)


def play_seat_over_socket(url: str, event: dict, until: float, interval: float, samples: Samples) -> None:
    """:func:`play_seat` over the game's WebSocket (``/v1/games/{id}/play``): each action a message,
    the other seat's moves pushed on the same connection (no long-poll); a sample is an act until
    its answer."""
    game, token = event["game"], event["token"]
    rng = random.Random(event["token"])
    address = f"{url.replace('http', 'ws', 1)}/v1/games/{game}/play"
    play = websocket.create_connection(address, header={"Authorization": f"Bearer {token}"}, timeout=60)

    def hold(view: dict) -> dict:
        samples.held(game, view)
        return view

    view = hold(received(play)["view"])
    next_at = time.perf_counter() + rng.random() * interval  # the bots' first actions spread out
    while time.perf_counter() < until and view["status"] == "active":
        if not view["legal_actions"]:
            # the other seat's move; its bot may have stopped at `until` instead (then so does this one)
            pushed = pushed_by(play, until)
            if pushed is not None:
                view = hold(pushed["view"])
            continue
        gevent.sleep(max(0.0, next_at - time.perf_counter()))
        next_at = max(next_at + interval, time.perf_counter() - interval)
        started = samples.sent(game)
        play.send(json.dumps({"type": "act", "action": rng.choice(view["legal_actions"]), "version": view["version"]}))
        while (message := received(play))["type"] == "view":  # the other seat's move, pushed before the answer
            view = message["view"]
        samples.latencies.append(time.perf_counter() - started)
        samples.reconnected.append(False)
        if message["type"] == "acted":
            samples.actions += 1
            view = hold(message["view"])
        else:  # the other seat acted meanwhile (a stale view): its move is pushed
            assert message["problem"]["status"] in (409, 412, 422), message
            samples.refused(game)
            if view["legal_actions"]:  # (the push came before the answer)
                continue
            pushed = pushed_by(play, until)
            if pushed is not None:
                view = hold(pushed["view"])
    play.close()


#: the options of the arena's matches and of the paced house clients' games: German Whist to 100
#: tricks, many deals. A single deal lasted about one 10 s phase at a fast host's pace, so the 200
#: games started together ended together, inside the phase: the paced house clients made 200 new
#: games at once, and the arena's 100 matches were settled at once, a burst only the bench's timing
#: made (the paced house clients' p99 22-125 ms in six rounds on one host, 6.8-14.2 ms in the next
#: six with these matches). The reference's 8 clients play single deals, as bench/api.py does:
#: theirs end one at a time.
LONG_MATCH = {"target": 100}

#: how long the bots' waits outlast the run: were they all to end at its end, the last moves would
#: meet a burst of answers (each the game read again) that only the bench's stopping causes
LAST_MOVES_SECONDS = 1.0


def play_seat(url: str, event: dict, until: float, interval: float, samples: Samples, bots: str = "http") -> None:
    """One bot playing its seat of an arena game: a random legal action every ``interval`` seconds,
    the other seat's moves long-polled (``http``); or pushed on the game's event stream, held open,
    as a Lichess bot follows its game (``stream``); or waited for by the action's own request
    (``wait``: ``POST .../actions?wait=``, whose answer comes with the bot's next turn, so that its
    latency is not the action's but the other bot's too: only the time to the next actor says)."""
    connection = Reconnecting(url)
    game, token = event["game"], event["token"]
    rng = random.Random(event["token"])
    stream = Stream(url, f"/v1/games/{game}/events", token) if bots == "stream" else None

    def wait() -> str:
        """A wait for the other bot's move that ends soon after the run (that bot stops at ``until``)."""
        return f"{min(30.0, max(0.1, until - time.perf_counter() + LAST_MOVES_SECONDS)):.2f}"

    def newer(view: dict) -> dict | None:
        """The view after the other seat's move (None: it will not come: its bot stopped at ``until``)."""
        if stream is not None:
            seen = stream.newer_view(view["version"], until)
        else:
            status, seen = connection.call("GET", f"/v1/games/{game}?wait={wait()}&after={view['version']}", token=token)
            seen = seen if status == 200 else view
        if seen is not None:
            samples.held(game, seen)
        return seen

    view: dict | None = stream.next_event("view") if stream is not None else connection.call("GET", f"/v1/games/{game}", token=token)[1]
    next_at = time.perf_counter() + rng.random() * interval  # the bots' first actions spread out
    while view is not None and time.perf_counter() < until and view["status"] == "active":
        if not view["legal_actions"]:
            view = newer(view)
            continue
        gevent.sleep(max(0.0, next_at - time.perf_counter()))
        next_at = max(next_at + interval, time.perf_counter() - interval)
        started = samples.sent(game)
        path = f"/v1/games/{game}/actions" + (f"?wait={wait()}" if bots == "wait" else "")
        status, answer = connection.call("POST", path, rng.choice(view["legal_actions"]), token)
        if bots != "wait":
            samples.latencies.append(time.perf_counter() - started)
            samples.reconnected.append(connection.reconnected)
        if status == 200:
            samples.actions += 1
            samples.held(game, answer)
            view = answer
        else:  # the other seat acted meanwhile (a stale view)
            assert status in (409, 422), answer
            samples.refused(game)
            view = newer(view)
    connection.close()
    if stream is not None:
        stream.close()


def loop_lags(until: float, lags: list[float], period: float = 0.01) -> None:
    """How late this process's own event loop wakes a greenlet that slept ``period``, until
    ``until``: the part of a latency measured here that the bots' own process added."""
    while time.perf_counter() < until:
        asked = time.perf_counter()
        gevent.sleep(period)
        lags.append(time.perf_counter() - asked - period)


def arena_matches(
    url: str, prefix: str, matches: int, seconds: float, total_rate: float, meter: CpuMeter, lags: list[float], bots: str = "http"
) -> tuple[Samples, int, str]:
    """``matches`` German Whist games between bot accounts, all played at once at ``total_rate``
    actions per second in all; (what the bots measured, the games started, the CPU per action)."""
    keys = new_accounts(url, prefix, 2 * matches)
    _, started = seek_at_once(url, keys, [{"ruleset": "german-whist", "options": LONG_MATCH}] * len(keys))
    samples = Samples()
    interval = len(started) / total_rate
    before = meter.sample()
    until = time.perf_counter() + seconds
    group = Group()
    group.spawn(loop_lags, until, lags)
    for event in started:
        if bots == "socket":
            group.spawn(play_seat_over_socket, url, event, until, interval, samples)
        else:
            group.spawn(play_seat, url, event, until, interval, samples, bots)
    group.join(raise_error=True)
    return samples, len({event["game"] for event in started}), CpuMeter.per_request(before, meter.sample(), samples.actions)


def spread(ratios: Iterable[float]) -> str:
    """Ratios as their median and range."""
    ordered = sorted(ratios)
    return f"median {statistics.median(ordered):.2f}x ({ordered[0]:.2f}x-{ordered[-1]:.2f}x)"


#: how the bots play their seats (``--bots``)
BOTS = ["http", "stream", "wait", "socket"]


def measure(name: str, url: str, meter: CpuMeter, prefix: str, args: argparse.Namespace) -> tuple[float, float, float] | None:
    """The three measures against one server, printed under ``name``; the moves' p99, and it against
    the reference's and against the house action's paced as the bots (None with ``--only-seeks``)."""
    print(f"{name}:", flush=True)
    waits, started = matching(url, f"{prefix}seeker", args.accounts, args.house_after)
    with_house = [any(player["kind"] == "house" for player in event["players"]) for event in started]
    totals = [total for total, _ in waits]
    p99 = percentile(totals, 0.99)
    verdict = "ok" if len(started) == args.accounts and p99 <= args.house_after + 1 else "MISSED"
    print(
        f"  {args.accounts} accounts seeking at once (house_after_seconds {args.house_after:g}): {len(started)} matched "
        f"({sum(with_house)} with the house), wait p50 {ms(percentile(totals, 0.5))}, p99 {ms(p99)}, max {ms(max(totals))} "
        f"(target: all matched, p99 <= {ms(args.house_after + 1)}): {verdict}"
    )
    posts = [post for _, post in waits]
    print(f"    of which the POST's answer: p50 {ms(percentile(posts, 0.5))}, p99 {ms(percentile(posts, 0.99))}", end="")
    for label, house in (("paired with each other", False), ("with the house", True)):
        rest = [total - post for (total, post), with_it in zip(waits, with_house) if with_it == house]
        if rest:
            print(f"; then to match_started, {label}: p50 {ms(percentile(rest, 0.5))}, max {ms(max(rest))}", end="")
    print(flush=True)
    if args.only_seeks:
        return None

    actions = lambda number, until, latencies: action_client(url, until, number, latencies)  # noqa: E731
    run_clients(actions, args.clients, min(args.seconds, 3.0))  # warm-up, as bench/api.py does
    peak, _ = run_clients(actions, args.clients, args.seconds)
    interval = args.clients / (peak / 2)
    half = lambda number, until, latencies: action_client(url, until, number, latencies, interval)  # noqa: E731
    before = meter.sample()
    reference_lags: list[float] = []
    monitor = gevent.spawn(loop_lags, time.perf_counter() + args.seconds, reference_lags)
    half_rate, reference = run_clients(half, args.clients, args.seconds)
    monitor.join()
    reference_cpu = CpuMeter.per_request(before, meter.sample(), len(reference))
    print(
        f"  bench/api.py's POST action at half load ({half_rate:.0f}/s, {args.clients} clients): "
        f"p50 {ms(percentile(reference, 0.5))}, p99 {ms(percentile(reference, 0.99))}; CPU ms per action: {reference_cpu}; "
        f"this process's event loop late p50 {ms(percentile(reference_lags, 0.5))}, p99 {ms(percentile(reference_lags, 0.99))}"
    )
    bots = 2 * args.matches
    connection = Connection(url)
    made = [new_game_against_the_computer(connection, LONG_MATCH)[:2] for _ in range(bots)]  # as the arena's matches are, before they are played
    connection.close()
    shaped_interval = bots / (half_rate * args.arena_share)
    shaped = lambda number, until, latencies: action_client(url, until, number, latencies, shaped_interval, True, made[number])  # noqa: E731
    before = meter.sample()
    shaped_rate, shaped_reference = run_clients(shaped, bots, args.seconds)
    print(
        f"  the same action paced as the arena's bots ({shaped_rate:.0f}/s, {bots} clients, their games read at once, each first action "
        f"at a random moment of the first interval): p50 {ms(percentile(shaped_reference, 0.5))}, p99 {ms(percentile(shaped_reference, 0.99))}; "
        f"CPU ms per action: {CpuMeter.per_request(before, meter.sample(), len(shaped_reference))}"
    )

    lags: list[float] = []
    samples, games, cpu = arena_matches(url, f"{prefix}player", args.matches, args.seconds, half_rate * args.arena_share, meter, lags, args.bots)

    def against_reference(latencies: list[float]) -> str:
        p99 = percentile(latencies, 0.99)
        ratio = p99 / percentile(reference, 0.99)
        return (
            f"p50 {ms(percentile(latencies, 0.5))}, p99 {ms(p99)}: against the p99 bench/api.py holds at half load "
            f"(target <= {ms(HALF_LOAD_P99_TARGET)}) {'ok' if p99 <= HALF_LOAD_P99_TARGET else 'MISSED'}; "
            f"{ratio:.2f}x the half-load p99 measured above; "
            f"{p99 / percentile(shaped_reference, 0.99):.2f}x the same action's paced as the bots"
        )

    print(
        f"  {games} arena games at once, {2 * games} bots over {args.bots} ({samples.actions / args.seconds:.0f} actions/s): "
        f"CPU ms per action: {cpu}; this process's event loop late p50 {ms(percentile(lags, 0.5))}, p99 {ms(percentile(lags, 0.99))}",
        flush=True,
    )
    if samples.latencies:  # (a waiting action's answer comes with the other bot's move: not a latency of its own)
        print(f"    action (request until its answer): {against_reference(samples.latencies)}", flush=True)
    print(f"    a move until the seat to act next holds it: {against_reference(samples.to_next_actor)}", flush=True)
    if samples.latencies and any(samples.reconnected):
        kept = [latency for latency, again in zip(samples.latencies, samples.reconnected) if not again]
        print(
            f"    {sum(samples.reconnected)} of the {len(samples.latencies)} actions were sent again on a new connection (the server had "
            f"closed the bot's connection, idle past its keep-alive while the bot waited to act); the others: p50 "
            f"{ms(percentile(kept, 0.5))}, p99 {ms(percentile(kept, 0.99))}",
            flush=True,
        )
    moves_p99 = percentile(samples.to_next_actor, 0.99)
    return moves_p99, moves_p99 / percentile(reference, 0.99), moves_p99 / percentile(shaped_reference, 0.99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=200, help="accounts seeking at once (default 200)")
    parser.add_argument("--house-after", type=float, default=2.0, help="their house_after_seconds (default 2)")
    parser.add_argument("--matches", type=int, default=100, help="arena games played at once (default 100)")
    parser.add_argument("--clients", type=int, default=8, help="bench/api.py's clients for the reference figure (default 8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each load phase (default 10)")
    parser.add_argument("--processes", type=int, default=1, help="koz serve's web processes (default 1)")
    parser.add_argument("--source", help="a checkout of Koz whose code the server runs (default: the installed one), to compare two versions")
    parser.add_argument("--baseline", metavar="DIR", help="also measure a koz serve of this checkout (e.g. a git worktree), server after server")
    parser.add_argument("--rounds", type=int, default=1, help="how many times each server is measured (default 1)")
    parser.add_argument(
        "--arena-share",
        type=float,
        default=1.0,
        help="the arena games' total action rate as a share of the reference's (default 1: the same rate, as the target asks)",
    )
    parser.add_argument(
        "--bots",
        choices=BOTS,
        default="http",
        help="how the arena's bots play (3): POST and long-poll (default), POST and the event stream, POST waiting for its turn, or the WebSocket",
    )
    parser.add_argument("--only-seeks", action="store_true", help="measure the seeks only (1), not the actions (2, 3)")
    args = parser.parse_args()
    stop_on_signals()

    # every bot's connections and stream come from this one address, and every round's: the server
    # counts a connection until it has seen it closed, and a second round of a small run found the
    # first's not all seen closed yet (refused 429 too_many_connections)
    os.environ["KOZ_STREAMS_PER_ADDRESS"] = os.environ["KOZ_CONNECTIONS_PER_ADDRESS"] = str(4 * args.rounds * (args.accounts + 2 * args.matches))
    # the games (1) starts are never played: their clocks must not run out (and the worker forfeit
    # them by the hundred) while a later phase, or the other server, is measured
    os.environ["KOZ_ARENA_SECONDS_PER_ACTION"] = os.environ["KOZ_ARENA_BANK_SECONDS"] = "3600"
    sources = {args.source or "this checkout": args.source}
    if args.baseline:
        sources[f"Koz at {args.baseline}"] = args.baseline
    servers = {}
    try:
        for name, source in sources.items():
            servers[name] = start_service("always", source, args.processes)
        for number, (process, url, data) in enumerate(servers.values()):  # warmed up alike: the first requests of a process cost more
            matching(url, f"warm{number}seeker", 12, 0.0)
        print(f"load average before: {os.getloadavg()}", file=sys.stderr, flush=True)
        ratios: dict[str, list[tuple[float, float, float]]] = {name: [] for name in servers}
        for round_ in range(args.rounds):
            # each round in the other order: a server measured first, or after the other's bots stopped, is not always the same
            order = list(enumerate(servers.items()))
            for number, (name, (process, url, data)) in order[:: -1 if round_ % 2 else 1]:
                measured = measure(
                    f"{name} ({args.processes} web process{'es' if args.processes > 1 else ''})",
                    url,
                    CpuMeter(process.pid, data),
                    f"r{round_}s{number}",
                    args,
                )
                if measured is not None:
                    ratios[name].append(measured)
        for name, measured in ratios.items():
            if len(measured) > 1:
                p99s = sorted(p99 for p99, _, _ in measured)
                print(
                    f"{name}, over {len(measured)} rounds: a move's p99 median {ms(statistics.median(p99s))} ({ms(p99s[0])}-{ms(p99s[-1])}), "
                    f"within the target (<= {ms(HALF_LOAD_P99_TARGET)}) in {sum(p99 <= HALF_LOAD_P99_TARGET for p99 in p99s)} of {len(p99s)}; "
                    f"against the half-load p99 {spread(r for _, r, _ in measured)}; "
                    f"against the same action's paced as the bots {spread(r for _, _, r in measured)}",
                    flush=True,
                )
        print(f"load average after: {os.getloadavg()}", file=sys.stderr, flush=True)
    finally:
        for process, _, data in servers.values():
            process.terminate()
            process.wait()
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
