"""The order in which the test modules are handed to pytest-xdist's workers: longest first, by the seconds each
module took in earlier runs, measured, never listed by hand.

With workers (-n), every module runs whole on one worker (conftest's LoadFileScheduling: module fixtures, such as a
site built once, are made once), in collection order; the long ones go first so that no worker is left with one of
them at the end while the others idle. Each run that passes and ran whole modules (no -k, -m, --lf or node ids)
adds what it measured, per module (its tests' set-up, call and tear-down, as the reports say), to pytest's cache
(KEY). A clean clone (CI) has no cache: it reads tests/durations.json, written by
`.venv/bin/python -m pytest -n 3 --slow --write-durations` from the cache after a whole run, never edited by hand. A module
neither of them knows (a new one) is taken to last as long as the median known module: never last, and never
before the known long ones.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from slow import left_out

KEY = "torchnotes/durations"
COMMITTED = Path(__file__).with_name("durations.json")
NOTE = "Generated: .venv/bin/python -m pytest -n 3 --slow --write-durations (tests/schedule.py). Do not edit by hand."


def module_name(nodeid: str) -> str:
    """'tests/test_build.py::test_x[a::b]' -> 'test_build'."""
    return Path(nodeid.split("::", 1)[0]).stem


def committed() -> dict[str, float]:
    if not COMMITTED.exists():
        return {}
    return json.loads(COMMITTED.read_text(encoding="utf-8"))["seconds"]


def order(items: list, seconds: dict[str, float]) -> None:
    """Whole modules, longest first, an unknown one as long as the median; equals in collection order."""
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.path.stem, len(first_seen))
    guess = statistics.median(seconds.values()) if seconds else 0.0
    items.sort(key=lambda item: (-seconds.get(item.path.stem, guess), first_seen[item.path.stem]))


class Schedule:
    def __init__(self, config: pytest.Config):
        self.config = config
        self.worker = hasattr(config, "workerinput")
        self.measured: dict[str, float] = defaultdict(float)

    def known(self) -> dict[str, float]:
        """Seconds per module: the workers take the controller's (every worker must order alike)."""
        if self.worker:
            return json.loads(self.config.workerinput[KEY])
        cache = getattr(self.config, "cache", None)
        return {**committed(), **((cache.get(KEY, None) or {}) if cache is not None else {})}

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        node.workerinput[KEY] = json.dumps(self.known())

    def pytest_collection_modifyitems(self, items: list) -> None:
        order(items, self.known())

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Under xdist the controller receives every worker's reports through this hook: it alone adds them up.
        if not self.worker:
            self.measured[module_name(report.nodeid)] += report.duration

    def whole_modules(self) -> bool:
        option = self.config.option
        return not (getattr(option, "keyword", "") or getattr(option, "markexpr", "") or getattr(option, "lf", False)
                    or getattr(option, "stepwise", False) or any("::" in arg for arg in self.config.args))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        cache = getattr(self.config, "cache", None)
        if self.worker or cache is None:
            return
        seconds = dict(cache.get(KEY, None) or {})
        # A run that left the slow tests out measured only part of some modules.
        if exitstatus == 0 and self.whole_modules() and not left_out(self.config) and self.measured:
            seconds.update({name: round(value, 1) for name, value in self.measured.items()})
            cache.set(KEY, seconds)
        if self.config.getoption("write_durations"):
            body = {"note": NOTE, "seconds": dict(sorted({**committed(), **seconds}.items()))}
            COMMITTED.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
