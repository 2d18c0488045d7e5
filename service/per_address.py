"""Caps on what one client address may hold open at once in a web process (connections, event
streams), so that one address cannot take what every other client needs."""

from __future__ import annotations


class PerAddress:
    """How many of one thing each client address holds open now, within ``cap`` (0: no cap).

    Counted in the process, not across processes: what is capped (a connection, a stream) lives
    in one process and ends with it, so a count kept elsewhere could outlive what it counts.
    A web process is cooperative (gevent), so a count is never read and changed concurrently."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.held: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """Count one more for ``address``, unless it holds its cap already."""
        if not self.cap:
            return True
        held = self.held.get(address, 0)
        if held >= self.cap:
            return False
        self.held[address] = held + 1
        return True

    def give_back(self, address: str) -> None:
        if not self.cap:
            return
        held = self.held[address] - 1
        if held:
            self.held[address] = held
        else:
            del self.held[address]
