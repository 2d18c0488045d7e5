"""The service's layout as the redesign left it: one concern per module, and no module of
``service/`` over 500 lines (a module that grows past it holds more than one job: split it by
what each part is, as ``store.py`` gave ``due.py`` and ``indexes.py``)."""

from __future__ import annotations

from pathlib import Path

SERVICE = Path(__file__).resolve().parent.parent / "service"
MOST_LINES = 500


def test_no_module_of_the_service_is_over_500_lines():
    modules = sorted(SERVICE.rglob("*.py"))
    assert modules
    longer = {str(path.relative_to(SERVICE)): lines for path in modules if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert longer == {}
