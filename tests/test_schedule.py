"""tests/schedule.py in a planted project (copies of this suite's conftest and helpers, modules of known length):
the order of the modules comes from what earlier runs measured, kept in pytest's cache, or from tests/durations.json
in a clean clone; a module nobody measured is not put last."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import plant_suite, planted_pytest

MODULE = "import time\n\ndef test_one():\n    time.sleep({seconds})\n\ndef test_two():\n    pass\n"


def plant(folder: Path, modules: dict[str, float]) -> Path:
    return plant_suite(folder, {name: MODULE.format(seconds=seconds) for name, seconds in modules.items()})


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    done = planted_pytest(folder, *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def collected_modules(folder: Path) -> list[str]:
    lines = pytest_in(folder, "--collect-only", "-q").stdout.splitlines()
    names = [Path(line.split("::")[0]).stem for line in lines if "::" in line]
    return list(dict.fromkeys(names))


def cached(folder: Path) -> dict:
    return json.loads((folder / ".pytest_cache" / "v" / "torchnotes" / "durations").read_text())


@pytest.mark.slow  # pytest run in a child process six times
@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_the_measured_longest_module_goes_first_and_a_new_one_is_not_last(tmp_path, workers):
    folder = plant(tmp_path, {"test_a_short": 0, "test_b_long": 1.5})
    assert collected_modules(folder) == ["test_a_short", "test_b_long"]  # nothing measured: collection order
    pytest_in(folder, *workers)
    seconds = cached(folder)  # under xdist the controller adds up the workers' reports
    assert seconds["test_b_long"] >= 1.5 > seconds["test_a_short"], seconds
    assert collected_modules(folder) == ["test_b_long", "test_a_short"]
    plant(folder, {"test_0_new": 0})  # unknown: as long as the median, between the two
    assert collected_modules(folder) == ["test_b_long", "test_0_new", "test_a_short"]


@pytest.mark.slow  # pytest run in a child process five times
def test_a_clean_clone_orders_by_the_written_file_and_a_partial_run_records_nothing(tmp_path):
    measured = plant(tmp_path / "measured", {"test_a_short": 0, "test_b_long": 1.5})
    pytest_in(measured, "--write-durations")
    written = json.loads((measured / "tests" / "durations.json").read_text())
    assert "--write-durations" in written["note"] and set(written["seconds"]) == {"test_a_short", "test_b_long"}
    clone = plant(tmp_path / "clone", {"test_a_short": 0, "test_b_long": 1.5})
    (clone / "tests" / "durations.json").write_text(json.dumps(written))
    assert not (clone / ".pytest_cache").exists()
    assert collected_modules(clone) == ["test_b_long", "test_a_short"]
    pytest_in(clone, "-k", "test_one")  # a partial run: its seconds are not a module's
    assert not (clone / ".pytest_cache" / "v" / "torchnotes" / "durations").exists()
