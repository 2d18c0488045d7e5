"""The service's own refusals, as its domain raises them: a stable code and why, no HTTP.

The games' operations (:mod:`service.games`, :mod:`service.game`, :mod:`service.repository`)
refuse with :class:`Refused`; :mod:`service.errors` alone turns a code into an HTTP status (its
table :data:`~service.errors.STATUS_OF`), as it does for the engine's refusals.
"""

from __future__ import annotations

from typing import Any, Mapping

from engine.texts import Text


class Refused(Exception):
    """A request the service refuses: a stable ``code``, the name of the text that says why
    (``detail``, one of :data:`service.texts.DETAILS`) with its ``params``, and further
    machine-readable facts (``extra``, such as ``current_version``)."""

    def __init__(self, code: str, detail: str | Text, *, params: Mapping[str, Any] | None = None, **extra: Any) -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail
        self.params = dict(params or {})
        self.extra = extra
