"""The paired notebooks as this site's page features shape them: what the command line, the scripts and the tests
sync and check (torchnotes.publish.pairing, with FEATURES)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from torchnotes.errors import NotebookError
from torchnotes.pages.read import Reader
from torchnotes.publish import pairing
from torchnotes.publish.features import FEATURES


def sync_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None) -> list[Path]:
    """Write every paired notebook from its page; remove notebooks whose page is gone. Returns what changed."""
    return pairing.sync_pairs(docs_dir, notebooks_dir, langs, reader, features=FEATURES)


def check_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None) -> list[NotebookError]:
    return pairing.check_pairs(docs_dir, notebooks_dir, langs, reader, features=FEATURES)


def as_paired(notebook: nbformat.NotebookNode, lang: str | None = None) -> nbformat.NotebookNode:
    return pairing.as_paired(notebook, lang, FEATURES)
