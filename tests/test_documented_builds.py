"""When a module reads the build the documented commands made, and when it builds for itself (documented_builds.py)."""

from pathlib import Path
from types import SimpleNamespace

from documented_builds import DocumentedBuilds

OFFLINE, ZENSICAL = "bash scripts/build_offline.sh", "bash scripts/build_zensical.sh"


def session(*texts: str) -> SimpleNamespace:
    """A pytest session whose documented-commands tests run these commands."""
    return SimpleNamespace(items=[SimpleNamespace(path=Path("tests/test_documented_commands.py"),
                                                  callspec=SimpleNamespace(params={"command": SimpleNamespace(text=t)}))
                                  for t in texts])


def test_a_reader_takes_the_documented_build_once_it_is_made(tmp_path):
    builds = DocumentedBuilds(tmp_path)
    assert builds.wait(OFFLINE, session(OFFLINE)) is None  # the documented commands have not started: build here
    builds.start()
    builds.ran(OFFLINE, tmp_path / "clone", {"returncode": 0, "stdout": "zipped"})
    assert builds.wait(OFFLINE, session(OFFLINE)) == {"clone": str(tmp_path / "clone"), "returncode": 0, "stdout": "zipped"}
    assert builds.wait(OFFLINE, session(ZENSICAL)) is None  # not run in this session (-k): build here


def test_a_failed_or_missing_documented_build_leaves_the_reader_to_build(tmp_path):
    builds = DocumentedBuilds(tmp_path)
    builds.start()
    builds.ran(OFFLINE, tmp_path / "clone", {"returncode": 1, "stdout": ""})
    assert builds.wait(OFFLINE, session(OFFLINE, ZENSICAL)) is None
    builds.finish()  # stopped before build_zensical.sh ran (an earlier command hung, the clone failed)
    assert builds.wait(ZENSICAL, session(OFFLINE, ZENSICAL)) is None
