"""One rendering per key and version, shared by the requests that want it (service/shared.py)."""

from __future__ import annotations

import threading

from service.shared import Rendered, SharedRenders


def test_a_kept_rendering_answers_the_same_or_an_older_version_without_rendering_again():
    renders: SharedRenders[str] = SharedRenders()
    made: list[int] = []

    def render(version: int):
        def rendering():
            made.append(version)
            return Rendered(version, f"view {version}")

        return rendering

    assert renders.get("a", 3, render(3)) == Rendered(3, "view 3")
    assert renders.get("a", 3, render(3)) == Rendered(3, "view 3")
    assert renders.get("a", 2, render(2)) == Rendered(3, "view 3")  # a later version is as good
    assert made == [3]
    assert renders.get("a", 4, render(4)) == Rendered(4, "view 4")  # a newer version is rendered anew
    assert renders.get("b", 3, render(3)) == Rendered(3, "view 3")  # another key is its own
    assert made == [3, 4, 3]


def test_the_latest_rendering_kept_is_there_to_build_on_whatever_its_version():
    renders: SharedRenders[str] = SharedRenders()
    assert renders.latest("a") is None
    renders.get("a", 3, lambda: Rendered(3, "view 3"))
    assert renders.latest("a") == Rendered(3, "view 3")
    assert renders.latest("b") is None


def test_a_rendering_offered_is_kept_unless_a_newer_one_is():
    renders: SharedRenders[str] = SharedRenders()
    renders.offer("a", Rendered(3, "view 3"))
    assert renders.get("a", 3, lambda: Rendered(3, "unused")) == Rendered(3, "view 3")
    renders.offer("a", Rendered(2, "view 2"))
    assert renders.latest("a") == Rendered(3, "view 3")
    renders.offer("a", Rendered(4, "view 4"))
    assert renders.latest("a") == Rendered(4, "view 4")


def test_nothing_to_show_is_not_kept():
    renders: SharedRenders[str] = SharedRenders()
    assert renders.get("gone", 1, lambda: None) is None
    assert renders.get("gone", 1, lambda: Rendered(1, "back")) == Rendered(1, "back")


def test_the_least_recently_used_rendering_goes_first():
    renders: SharedRenders[str] = SharedRenders(kept=2)
    renders.get("a", 1, lambda: Rendered(1, "a"))
    renders.get("b", 1, lambda: Rendered(1, "b"))
    renders.get("a", 1, lambda: Rendered(1, "unused"))  # used: "b" is now the oldest
    renders.get("c", 1, lambda: Rendered(1, "c"))
    assert len(renders) == 2
    assert renders.get("a", 1, lambda: Rendered(1, "again")).value == "a"
    assert renders.get("b", 1, lambda: Rendered(1, "again")).value == "again"


def test_requests_that_want_a_rendering_under_way_wait_for_it_rather_than_make_their_own():
    renders: SharedRenders[str] = SharedRenders()
    started, release = threading.Event(), threading.Event()
    made: list[str] = []

    def slow_render():
        made.append("first")
        started.set()
        release.wait(10)
        return Rendered(5, "shared")

    answers: list[Rendered[str] | None] = []
    first = threading.Thread(target=lambda: answers.append(renders.get("k", 5, slow_render)))
    first.start()
    assert started.wait(10)
    own = lambda: made.append("other") or Rendered(5, "own")  # noqa: E731
    others = [threading.Thread(target=lambda: answers.append(renders.get("k", 5, own))) for _ in range(5)]
    for thread in others:
        thread.start()
    release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert made == ["first"]
    assert answers == [Rendered(5, "shared")] * 6


def test_a_rendering_that_fails_lets_the_waiting_requests_make_their_own():
    renders: SharedRenders[str] = SharedRenders()
    started, release = threading.Event(), threading.Event()

    def failing():
        started.set()
        release.wait(10)
        raise RuntimeError("the store failed")

    failures: list[Exception] = []

    def first_request():
        try:
            renders.get("k", 1, failing)
        except RuntimeError as error:
            failures.append(error)

    first = threading.Thread(target=first_request)
    first.start()
    assert started.wait(10)
    answers: list[Rendered[str] | None] = []
    other = threading.Thread(target=lambda: answers.append(renders.get("k", 1, lambda: Rendered(1, "own"))))
    other.start()
    release.set()
    first.join(10)
    other.join(10)
    assert len(failures) == 1
    assert answers == [Rendered(1, "own")]
