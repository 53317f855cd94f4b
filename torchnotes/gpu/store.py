"""The store of GPU outputs: recorded/<lang>/<page>.json, written by a recording run, read by every CPU build."""

from __future__ import annotations

import datetime
import hashlib
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from torchnotes.errors import (
    FileDamaged,
    NotebookError,
    RecordingMissing,
    RecordingNeedsCuda,
    RecordingOrphan,
    RecordingStale,
)
from torchnotes.gpu.machine import Machine
from torchnotes.log import logger
from torchnotes.pages.read import Page, Reader
from torchnotes.pages.tags import NEEDS_CUDA, RECORDED_TEST
from torchnotes.storage import read_checked, write_checked

FORMAT = 2  # 2: the checksummed file of torchnotes.storage, as the cache and the kept files
TAG = NEEDS_CUDA
TEST_TAG = RECORDED_TEST
STORE_DIR = "recorded"


# ---------------------------------------------------------------------------------------------------- hashes

def prefix_hashes(page: Page) -> list[str]:
    """For each code cell, the hash of its code and of every code cell before it (comments and blank lines
    ignored, as in the cache key): editing a cell makes it and every later recording stale."""
    running = hashlib.sha256()
    hashes = []
    for cell in page.code_cells:
        running.update(page.fingerprint(cell).encode())
        running.update(b"\x00")
        hashes.append(running.copy().hexdigest())
    return hashes


def tagged(page: Page, tag: str = TAG) -> list[int]:
    """1-based numbers of the code cells carrying the tag (the numbering of error messages: 'code cell 3')."""
    return [n for n, cell in enumerate(page.code_cells, 1) if tag in cell.metadata.get("tags", [])]


# ---------------------------------------------------------------------------------------------------- store

@dataclass
class Recorded:
    cell: int
    outputs: list[dict]
    provenance: dict


@dataclass
class Stale:
    cell: int
    provenance: dict


@dataclass
class Missing:
    cell: int


class Store:
    """recorded/<lang>/<path>.json for the page docs/<lang>/<path>.md."""

    def __init__(self, folder: Path | str, docs_dir: Path | str):
        self.folder = Path(folder)
        self.docs_dir = Path(docs_dir)
        self._memo: dict[Path, tuple[int, dict | None]] = {}

    def path(self, page_path: Path | str) -> Path:
        rel = Path(os.path.relpath(Path(page_path).resolve(), self.docs_dir.resolve()))
        if rel.parts[0] == "..":
            raise ValueError(f"{page_path} is not under {self.docs_dir}")
        return self.folder / rel.with_suffix(".json")

    def load(self, page_path: Path | str) -> dict | None:
        """The page's record, None if there is none or it is damaged (named in a warning; its cells show as not
        recorded until a GPU machine records them again)."""
        path = self.path(page_path)
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            return None
        memo = self._memo.get(path)
        if memo and memo[0] == stamp:
            return memo[1]
        try:
            data = _read(path)
        except FileDamaged as damaged:
            logger.warning(damaged.message)
            data = None
        self._memo[path] = (stamp, data)
        return data

    def lookup(self, page: Page, cell: int) -> Recorded | Stale | Missing:
        """What to show under code cell `cell` (1-based) of the page on a build without CUDA."""
        data = self.load(page.path)
        if data is None:
            return Missing(cell)
        entry = next((e for e in data["cells"] if e["cell"] == cell), None)
        if entry is None:
            return Missing(cell)
        hashes = prefix_hashes(page)
        if cell > len(hashes) or entry["code_hash"] != hashes[cell - 1]:
            return Stale(cell, data["provenance"])
        return Recorded(cell, [_rejoin(o) for o in entry["outputs"]], data["provenance"])

    def states(self, page: Page, tag: str = TAG) -> dict[int, Recorded | Stale | Missing]:
        """lookup() for every tagged cell of the page, by 1-based code cell number."""
        return {n: self.lookup(page, n) for n in tagged(page, tag)}

    def write(self, page: Page, outputs: dict[str, list[dict]], machine: Machine, *, date: str, cache_key: str,
              tag: str = TAG, shown: str | None = None) -> Path | None:
        """Record the tagged cells of one executed page; a page without tagged cells loses its record."""
        path = self.path(page.path)
        cells = tagged(page, tag)
        if not cells:
            path.unlink(missing_ok=True)
            return None
        hashes = prefix_hashes(page)
        code = page.code_cells
        body = {
            "format": FORMAT,
            "page": shown or Path(page.path).as_posix(),
            "provenance": {**asdict(machine), "date": date, "code_hash": hashes[-1], "cache_key": cache_key},
            "cells": [
                {"cell": n, "code_hash": hashes[n - 1], "source": code[n - 1].source.splitlines(),
                 "outputs": [_split(o) for o in outputs.get(code[n - 1].id, [])]}
                for n in cells
            ],
        }
        _write(path, body)
        self._memo.pop(path, None)
        return path

    def files(self) -> list[Path]:
        return sorted(self.folder.rglob("*.json")) if self.folder.exists() else []




def _write(path: Path, body: dict) -> None:
    # Pretty-printed with one line per output line, so a pull request's diff shows what changed.
    write_checked(path, body, readable=True)


def _read(path: Path) -> dict | None:
    """The recording; raises FileDamaged for one that does not check out or does not hold a recording."""
    data = read_checked(path, "GPU recording")
    if data is None:
        return None
    try:
        _require(data["provenance"], ("gpu", "gpu_count", "torch", "date"))
        for entry in data["cells"]:
            _require(entry, ("cell", "code_hash", "outputs"))
    except (KeyError, TypeError, AttributeError) as error:
        raise FileDamaged(path, f"unreadable GPU recording ({error.__class__.__name__}: {error})") from error
    if data.get("format") != FORMAT:
        raise FileDamaged(path, f"GPU recording format {data.get('format')!r}, this build reads {FORMAT}")
    return data


def _require(mapping: dict, keys: tuple[str, ...]) -> None:
    for key in keys:
        if key not in mapping:
            raise KeyError(key)


# Multi-line strings as lists of lines (as .ipynb files store them): readable diffs.
_TEXT_KEYS = ("text/plain", "text/html", "text/markdown", "text/latex", "image/svg+xml", "application/json")


def _split(out: dict) -> dict:
    out = dict(out)
    if isinstance(out.get("text"), str):
        out["text"] = out["text"].splitlines(keepends=True)
    if "data" in out:
        out["data"] = {k: (v.splitlines(keepends=True) if k in _TEXT_KEYS and isinstance(v, str) else v)
                       for k, v in out["data"].items()}
    return out


def _rejoin(out: dict) -> dict:
    out = dict(out)
    if isinstance(out.get("text"), list):
        out["text"] = "".join(out["text"])
    if "data" in out:
        out["data"] = {k: ("".join(v) if isinstance(v, list) else v) for k, v in out["data"].items()}
    return out


# ---------------------------------------------------------------------------------------------------- record

def record(results: Iterable, store: Store, machine: Machine, *, tag: str = TAG) -> list[Path]:
    """Write the store from an engine run: `results` are engine.PageResult (their `source` page, `outputs`,
    `key` and `date`). A failed page keeps its old record: the run reports its error."""
    if tag == TAG and machine.gpu_count == 0:
        raise RecordingNeedsCuda(STORE_DIR, f"this machine has no CUDA device (torch {machine.torch}, "
                                            f"{machine.torch_build}); needs-cuda cells would record no output")
    written = []
    for result in results:
        if result.error is not None or result.source is None:
            continue
        if not result.source.code_cells:
            continue
        date = result.date or datetime.date.today().isoformat()
        path = store.write(result.source, result.outputs, machine, date=date, cache_key=result.key, tag=tag,
                           shown=result.page)
        if path is not None:
            written.append(path)
    return written


def pages_with(paths: Iterable[Path], tag: str = TAG, reader: Reader | None = None) -> list[Path]:
    """The pages that have a cell with the tag: the ones a recording run executes."""
    reader = reader or Reader()
    return [p for p in paths if tagged(reader.page(p), tag)]


# ---------------------------------------------------------------------------------------------------- check

def check(store: Store, paths: Iterable[Path], tag: str = TAG,
          reader: Reader | None = None) -> tuple[list[NotebookError], list[NotebookError]]:
    """(warnings, errors): stale and missing recordings, one per page and kind, and store files without a page;
    damaged store files, read as absent like every damaged file (every file under the store is verified, not only
    those of current pages).

    `python -m torchnotes check` prints the warnings; with --strict-gpu they are errors too."""
    warnings: list[NotebookError] = []
    errors: list[NotebookError] = []
    expected = set()
    reader = reader or Reader()
    for path in paths:
        page = reader.page(path)
        cells = tagged(page, tag)
        if not cells:
            continue
        expected.add(store.path(path).resolve())
        try:
            _read(store.path(path))
        except FileDamaged as damaged:
            warnings.append(damaged)
            continue
        states = [store.lookup(page, n) for n in cells]
        stale = [s for s in states if isinstance(s, Stale)]
        missing = [s.cell for s in states if isinstance(s, Missing)]
        if stale:
            when = stale[0].provenance["date"]
            warnings.append(RecordingStale(path, f"GPU recording out of date for code cell(s) "
                                                 f"{numbers([s.cell for s in stale])} (recorded {when}): "
                                                 "the code of the cell or of a cell above it changed since"))
        if missing:
            warnings.append(RecordingMissing(path, f"no GPU recording for needs-cuda code cell(s) {numbers(missing)}"))
    for file in store.files():
        if file.resolve() in expected:
            continue
        try:
            _read(file)
        except FileDamaged as damaged:
            warnings.append(damaged)
            continue
        warnings.append(RecordingOrphan(file, "GPU recording for a page that does not exist or has no needs-cuda cell"))
    return warnings, errors


def numbers(cells: list[int]) -> str:
    return ", ".join(str(n) for n in cells)
