"""tests/slow.py in a planted project (this suite's conftest and a module of each kind of slow test): a plain run
leaves the slow tests out and says how many and how to run them, --slow runs them all, CI=true refuses a run
without --slow, and only a run of everything records the modules' seconds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import plant_suite, planted_pytest

MODULES = {
    "test_kinds": '''
import pytest

SLOW_FIXTURES = {"heavy"}


@pytest.fixture
def heavy():
    return 1


def test_quick():
    pass


@pytest.mark.slow
def test_marked():
    pass


@pytest.mark.browser
def test_drives_chromium():
    pass


def test_needs_the_modules_slow_fixture(heavy):
    pass


def test_needs_the_real_site(built_site):
    assert built_site.name
''',
}


def pytest_in(folder: Path, *args: str, ci: str = "") -> subprocess.CompletedProcess:
    # The real-site test finds its site here instead of building one.
    env = {"TORCHNOTES_SITE": str(folder / "site"), **({"CI": ci} if ci else {})}
    return planted_pytest(folder, "-rA", *args, env=env)


@pytest.fixture
def planted(tmp_path) -> Path:
    folder = plant_suite(tmp_path, MODULES)
    for index in (folder / "site" / "index.html", folder / "site" / "zh" / "index.html"):
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_text("<html></html>")
    return folder


def passed(done: subprocess.CompletedProcess) -> set[str]:
    return {line.split("::")[-1] for line in done.stdout.splitlines() if line.startswith("PASSED ")}


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_a_plain_run_leaves_the_slow_tests_out_and_says_so(planted, workers):
    done = pytest_in(planted, *workers)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert passed(done) == {"test_quick"}, done.stdout
    assert "4 slow tests not run" in done.stdout and "`pytest -n 3 --slow` runs them" in done.stdout, done.stdout
    # Nothing was measured whole: the committed order is not overwritten by a part of a module.
    assert not (planted / ".pytest_cache" / "v" / "torchnotes" / "durations").exists()


def test_slow_runs_every_test_and_records_the_seconds(planted):
    done = pytest_in(planted, "--slow")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert passed(done) == {"test_quick", "test_marked", "test_drives_chromium", "test_needs_the_modules_slow_fixture",
                            "test_needs_the_real_site"}, done.stdout
    assert "slow tests not run" not in done.stdout
    seconds = json.loads((planted / ".pytest_cache" / "v" / "torchnotes" / "durations").read_text())
    assert set(seconds) == {"test_kinds"}


def test_ci_refuses_a_run_without_the_slow_tests(planted):
    done = pytest_in(planted, ci="true")
    assert done.returncode == 4, done.stdout[-3000:] + done.stderr[-3000:]  # pytest's usage error
    assert "CI=true runs every test: pass --slow (scripts/test.sh does)" in done.stderr, done.stderr
    assert pytest_in(planted, "--slow", ci="true").returncode == 0
