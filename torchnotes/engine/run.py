"""What one command changes for its run of the engine (torchnotes.engine.scheduler.Engine); the rest comes from the
settings (mkdocs.yml)."""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """What one command changes for its run of the engine; None: the settings' value."""

    mode: str | None = None  # "auto", "force" or "off"
    jobs: int | None = None
    kernel: str | None = None
    page_timeout: float = 900
    build_timeout: float = 0
    fork: bool = True
    keep_going: bool = False  # a failing cell does not stop its page (scripts/import_tutorial.py)
    # Another environment's interpreter and installed packages (a compared torch release, torchnotes.versions).
    python: str = sys.executable
    packages: dict[str, str] | None = None
