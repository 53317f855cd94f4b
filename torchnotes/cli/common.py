"""What every command needs: the pages of the site and the environment they run in."""

from __future__ import annotations

from pathlib import Path

from torchnotes.engine.environment import Environment, probe
from torchnotes.pages.listing import page_paths
from torchnotes.settings import Settings


def all_pages(settings: Settings) -> list[Path]:
    return [p for lang in settings.languages for p in page_paths(settings.docs_dir, lang)]


def environment(settings: Settings) -> Environment:
    return probe(settings.path("requirements"))
