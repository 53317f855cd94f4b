"""The slow tests, and a plain run without them.

A test is slow when it is marked so (the workflows run with act; the test that executes every page again; those that
build the fixture site several times), when it drives Chromium (marked browser), or when it needs one of
SLOW_FIXTURES: the real site built whole (about two minutes cold), Chromium, an older torch release, the books; or one
its own module names in a SLOW_FIXTURES of its own (the documented commands run, the fixture site run under torch
2.13, the fixture site built twice for the kept conversions). Plain `pytest` deselects them and says how many in its
summary; `--slow` runs them, as scripts/test.sh (and so CI) always does. Under CI=true a run
without --slow is refused: CI never runs less than everything.
"""

from __future__ import annotations

import os

import pytest

SLOW_FIXTURES = frozenset({"built_site", "browser", "version_envs", "kept_books"})
LEFT_OUT = pytest.StashKey[int]()  # how many slow tests this run deselected (the controller's, under xdist)


def left_out(config: pytest.Config) -> int:
    return config.stash.get(LEFT_OUT, 0)


class Slow:
    def __init__(self, config: pytest.Config):
        self.config = config

    def pytest_collection_modifyitems(self, items: list) -> None:
        for item in items:
            slow_fixtures = SLOW_FIXTURES | set(getattr(item.module, "SLOW_FIXTURES", ()))
            needs = slow_fixtures & set(item.fixturenames) or item.get_closest_marker("browser")
            if needs and item.get_closest_marker("slow") is None:
                item.add_marker(pytest.mark.slow)
        if self.config.getoption("slow"):
            return
        if os.environ.get("CI", "").lower() == "true":
            raise pytest.UsageError("CI=true runs every test: pass --slow (scripts/test.sh does)")
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            self.config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item.get_closest_marker("slow") is None]
        self.config.stash[LEFT_OUT] = len(slow)

    def pytest_sessionfinish(self) -> None:
        if hasattr(self.config, "workeroutput"):  # a worker: tell the controller, which collects nothing itself
            self.config.workeroutput["slow-left-out"] = left_out(self.config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        told = getattr(node, "workeroutput", {}).get("slow-left-out", 0)
        self.config.stash[LEFT_OUT] = max(left_out(self.config), told)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if left_out(self.config):
            terminalreporter.write_line(
                f"{left_out(self.config)} slow tests not run (the real site, Chromium, older torch releases, the "
                "documented commands and workflows): `pytest -n 3 --slow` runs them, as scripts/test.sh and CI do")
