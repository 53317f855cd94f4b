"""The builds the documented commands make (tests/test_documented_commands.py), read by the modules that would
otherwise make the same build again from the same checkout: test_generators (scripts/build_zensical.sh) and
test_offline (scripts/build_offline.sh). A check that runs the same build twice runs it once and reads it twice.

The documented commands run on one pytest-xdist worker, the readers maybe on others. In the run's shared folder
the running side writes `started` before its first command, `<name>.json` after each command it shares, and
`finished` when it stops, whatever happened. A reader waits only for a command the documented commands run in
this session and whose runner has started. Otherwise (a module run alone, `-k`, or a reader handed out before the
documented commands on the same worker) it builds for itself, as it did before; and so does it when the shared
command failed, so that its own check names its own failure.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

SHARED = {"bash scripts/build_zensical.sh": "zensical", "bash scripts/build_offline.sh": "offline"}
WAIT = 1800  # seconds: past this, a reader builds for itself


class DocumentedBuilds:
    def __init__(self, shared_tmp: Path):
        self.folder = shared_tmp / "documented-builds"

    # The documented commands' side.

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "started").touch()

    def ran(self, text: str, clone: Path, result: dict) -> None:
        if text not in SHARED:
            return
        body = {"clone": str(clone), "returncode": result.get("returncode"), "stdout": result.get("stdout", "")}
        partial = self.folder / f"{SHARED[text]}.json.partial"
        partial.write_text(json.dumps(body), encoding="utf-8")
        partial.rename(self.folder / f"{SHARED[text]}.json")  # whole or absent for a reader

    def finish(self) -> None:
        (self.folder / "finished").touch()

    # A reader's side.

    def wait(self, text: str, session: pytest.Session) -> dict | None:
        """What the documented run of `text` left ({"clone", "returncode", "stdout"}), once it has run; None when
        the reader is to build for itself."""
        if not (text in selected_commands(session) and (self.folder / "started").exists()):
            return None
        done, deadline = self.folder / f"{SHARED[text]}.json", time.monotonic() + WAIT
        while not done.exists():
            if (self.folder / "finished").exists() or time.monotonic() > deadline:
                break
            time.sleep(1)
        if not done.exists():
            return None
        body = json.loads(done.read_text(encoding="utf-8"))
        return body if body["returncode"] == 0 else None


def selected_commands(session: pytest.Session) -> set[str]:
    """The documented commands this session runs (`-k build_pdf` runs that one; every xdist worker collects every
    test)."""
    return {item.callspec.params["command"].text for item in session.items
            if item.path.name == "test_documented_commands.py" and getattr(item, "callspec", None)
            and "command" in item.callspec.params}
