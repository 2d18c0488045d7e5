"""CPU-bound work that must not stall the other requests of a cooperative (gevent) process."""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")


def off_the_loop(work: Callable[[], T]) -> T:
    """``work()``, run in gevent's pool of native threads when this process is patched by gevent
    (``koz serve``), so that the event loop keeps serving other requests; else run here (a
    threaded server already gives each request its own thread). ``work`` must do no I/O."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # gevent is a dependency, but the service runs under any WSGI server
        return work()
    if not monkey.is_module_patched("threading"):
        return work()
    done: T = get_hub().threadpool.apply(work)
    return done
