"""The committed record of the version axis: compared/<release>/<lang>/<page>.json for docs/<lang>/<page>.md.

What each older release printed, cell by cell, as `python -m torchnotes versions` compared it with the site's
release: every build (a newcomer's, a pull request's, the deployed site's) shows the same pills and changes page
from these files, without running any older release. Each cell's entry is keyed by the hash of its code and of
every code cell before it (torchnotes.gpu.store.prefix_hashes, as the GPU recordings): an edited cell, or a cell
after an edited one, has no entry and shows "not compared since this cell changed", never an old diff.

One file per release and page: the deploy workflow's jobs (one release and one shard of pages each) write files
of their own. Pretty-printed, one output line per JSON line, so a pull request's diff shows what changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from torchnotes.engine.execute import runnable
from torchnotes.errors import FileDamaged
from torchnotes.gpu.store import prefix_hashes
from torchnotes.log import logger
from torchnotes.pages.read import Page
from torchnotes.storage import read_checked, write_checked
from torchnotes.versions.drift import (
    CHANGED,
    DIFFERS,
    RAISES,
    SAME,
    SKIPPED,
    SKIPPED_TAGS,
    compare_cells,
    normalise,
    own_failure,
)

RECORD_DIR = "compared"
FORMAT = 1


class Record:
    def __init__(self, root: Path | str, docs_dir: Path | str):
        self.folder = Path(root) / RECORD_DIR
        self.docs_dir = Path(docs_dir)

    def path(self, release: str, page_path: Path | str) -> Path:
        rel = Path(os.path.relpath(Path(page_path).resolve(), self.docs_dir.resolve()))
        if rel.parts[0] == "..":
            raise ValueError(f"{page_path} is not under {self.docs_dir}")
        return self.folder / release / rel.with_suffix(".json")

    def releases(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if p.is_dir()) if self.folder.is_dir() else []

    def write(self, release: str, page: Page, shown: dict[str, list[dict]], other: dict, *, torch: str,
              page_name: str) -> Path:
        """Record one page under one release: shown, the site's outputs; other, what the release printed
        ({"outputs": ..., "cell": n, "error": ...} when it stopped at cell n)."""
        hashes = prefix_hashes(page)
        cells = []
        for item in compare_cells(page, shown, other):
            entry = {"cell": item["cell"], "code": hashes[item["cell"] - 1][:16], "state": item["state"]}
            if item["state"] in (DIFFERS, RAISES):
                entry["shown"] = item["shown"].split("\n")
                entry["other"] = item["other"].split("\n")
                if item.get("error"):
                    entry["error"] = item["error"]
                if item.get("origin"):
                    entry["origin"] = item["origin"]
            cells.append(entry)
        body = {"format": FORMAT, "release": release, "torch": torch, "page": page_name, "cells": cells}
        path = self.path(release, page.path)
        write_checked(path, body, readable=True)
        return path

    def load(self, release: str, page_path: Path | str) -> dict | None:
        """The page's record under the release; None when there is none, or it is damaged (named in a warning:
        the page then shows as not compared until `versions` writes it again)."""
        path = self.path(release, page_path)
        try:
            body = read_checked(path, "version record")
            if body is not None and (body.get("format") != FORMAT or not isinstance(body.get("cells"), list)):
                raise FileDamaged(path, f"version record format {body.get('format')!r}, this build reads {FORMAT}")
        except FileDamaged as damaged:
            logger.warning(damaged.message)
            return None
        return body

    def states(self, release: str, page: Page) -> list[dict] | None:
        """For each code cell of the page as it is now: its recorded entry ({"state", and "shown", "other",
        "error" for a cell that differs or raises}), or {"state": CHANGED} when the cell, or one before it,
        changed since it was compared; None when the release has no record of the page."""
        body = self.load(release, page.path)
        if body is None:
            return None
        by_code = {entry.get("code"): entry for entry in body["cells"]}
        found = []
        for cell, code in zip(page.code_cells, prefix_hashes(page)):
            entry = by_code.get(code[:16])
            if entry is None:
                comparable = not (SKIPPED_TAGS & set(cell.metadata.get("tags", []))) and runnable(cell, cuda=False)
                entry = {"state": CHANGED if comparable else SKIPPED}
            found.append(read_today(entry))
        return found

    def prune(self, releases: list[str]) -> list[Path]:
        """Remove the records of releases no longer compared and of pages that no longer exist (a shard of the
        deploy workflow runs some pages: the records of the others stay while their page exists)."""
        removed = []
        for path in sorted(self.folder.rglob("*.json")) if self.folder.is_dir() else []:
            release, *rel = path.relative_to(self.folder).parts
            if release not in releases or not (self.docs_dir / Path(*rel).with_suffix(".md")).exists():
                path.unlink()
                removed.append(path)
        for folder in sorted((p for p in self.folder.rglob("*") if p.is_dir()), reverse=True):
            if not any(folder.iterdir()):
                folder.rmdir()
        return removed


def read_today(entry: dict) -> dict:
    """An entry as this build's rules read it: both sides compared masked again (a mask added since the record was
    written, such as the version strings, applies at once; a difference it removes is no difference), and a raise recorded
    before "origin" existed classified from its message (drift.own_failure)."""
    state = entry.get("state")
    if state == DIFFERS:
        shown, other = normalise("\n".join(entry["shown"])), normalise("\n".join(entry["other"]))
        if shown == other:
            return {k: v for k, v in entry.items() if k not in ("shown", "other")} | {"state": SAME}
        return entry  # its diff shows the lines as printed, versions and all
    if state == RAISES and "origin" not in entry:
        return {**entry, "origin": "page" if own_failure(entry.get("error", "")) else "library"}
    return entry
