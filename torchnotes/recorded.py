"""Outputs of needs-cuda cells recorded on a GPU machine, committed under recorded/, replayed by CPU builds.

One pretty-printed JSON file per page and language (recorded/<lang>/<page path>.json) with the machine and
software that ran it, one entry per recorded cell, and a checksum of its own content so that a hand edit or
a damaged file stops the build instead of being shown. A recorded cell is replayed only while the code of
that cell and of every code cell before it is unchanged: each entry carries the hash of that prefix.
No MkDocs here: the renderer calls lookup() and the text helpers at the end of this module.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from .cache import code_fingerprint
from .errors import (
    NotebookError,
    RecordingCorrupted,
    RecordingMissing,
    RecordingNeedsCuda,
    RecordingOrphan,
    RecordingStale,
)
from .pages import Page, read_page
from .storage import digest, write_atomically

FORMAT = 1
TAG = "needs-cuda"
# Tests record cells under this tag on CPU through the same code path; pages.TAGS does not accept it, so no
# real page can carry it.
TEST_TAG = "recorded-test"
STORE_DIR = "recorded"

# Run in a child interpreter, like environment.probe: the build process never imports torch.
_PROBE = """
import json, platform, torch
cuda = torch.cuda.is_available()
count = torch.cuda.device_count() if cuda else 0
print(json.dumps({
    "gpu": torch.cuda.get_device_name(0) if cuda else "CPU",
    "gpu_count": count,
    "gpu_memory_mib": torch.cuda.get_device_properties(0).total_memory // 2**20 if cuda else 0,
    "cuda": torch.version.cuda or "",
    "torch": torch.__version__,
    "torch_build": "cuda " + str(torch.version.cuda) if torch.version.cuda else "cpu",
    "torch_git": (torch.version.git_version or "")[:12],
    "python": platform.python_version(),
}))
"""


@dataclass(frozen=True)
class Machine:
    """What ran the recording: GPU name, count and memory, driver, CUDA runtime, torch and its build, Python."""

    gpu: str
    gpu_count: int
    gpu_memory_mib: int
    driver: str
    cuda: str
    torch: str
    torch_build: str
    torch_git: str
    python: str


def probe_machine(python: str = sys.executable) -> Machine:
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cannot import torch in {python}; install the requirements first:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return Machine(driver=_driver_version(), **found)


def _driver_version() -> str:
    """The NVIDIA driver, which torch does not report; empty where nvidia-smi is absent (CPU machines)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    done = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                          text=True, check=False)
    lines = done.stdout.split()
    return lines[0] if done.returncode == 0 and lines else ""


# ---------------------------------------------------------------------------------------------------- hashes

def prefix_hashes(page: Page) -> list[str]:
    """For each code cell, the hash of its code and of every code cell before it (comments and blank lines
    ignored, as in the cache key): editing a cell makes it and every later recording stale."""
    running = hashlib.sha256()
    hashes = []
    for cell in page.code_cells:
        running.update(code_fingerprint(cell.source).encode())
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
        """The page's record, None if there is none; RecordingCorrupted if it does not check out."""
        path = self.path(page_path)
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            return None
        memo = self._memo.get(path)
        if memo and memo[0] == stamp:
            return memo[1]
        data = _read(path)
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


_digest = digest


def _write(path: Path, body: dict) -> None:
    # Pretty-printed with one line per output line, so a pull request's diff shows what changed.
    write_atomically(path, (json.dumps({**body, "sha256": _digest(body)}, indent=1, ensure_ascii=False) + "\n").encode())


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        digest = data.pop("sha256")
        _require(data["provenance"], ("gpu", "gpu_count", "torch", "date"))
        for entry in data["cells"]:
            _require(entry, ("cell", "code_hash", "outputs"))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise RecordingCorrupted(path, f"unreadable GPU recording ({error.__class__.__name__}: {error})") from error
    if data.get("format") != FORMAT:
        raise RecordingCorrupted(path, f"GPU recording format {data.get('format')!r}, this build reads {FORMAT}")
    if _digest(data) != digest:
        raise RecordingCorrupted(path, "GPU recording checksum does not match its content (edited by hand?)")
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


def pages_with(paths: Iterable[Path], tag: str = TAG) -> list[Path]:
    """The pages that have a cell with the tag: the ones a recording run executes."""
    return [p for p in paths if tagged(read_page(p), tag)]


# ---------------------------------------------------------------------------------------------------- check

def check(store: Store, paths: Iterable[Path], tag: str = TAG) -> tuple[list[NotebookError], list[NotebookError]]:
    """(warnings, errors): stale and missing recordings, one per page and kind, and store files without a page;
    damaged store files (every file under the store is verified, not only those of current pages).

    `python -m torchnotes check` prints the warnings; with --strict-gpu they are errors too."""
    warnings: list[NotebookError] = []
    errors: list[NotebookError] = []
    expected = set()
    for path in paths:
        page = read_page(path)
        cells = tagged(page, tag)
        if not cells:
            continue
        expected.add(store.path(path).resolve())
        try:
            states = [store.lookup(page, n) for n in cells]
        except RecordingCorrupted as error:
            errors.append(error)
            continue
        stale = [s for s in states if isinstance(s, Stale)]
        missing = [s.cell for s in states if isinstance(s, Missing)]
        if stale:
            when = stale[0].provenance["date"]
            warnings.append(RecordingStale(path, f"GPU recording out of date for code cell(s) "
                                                 f"{_numbers([s.cell for s in stale])} (recorded {when}): "
                                                 "the code of the cell or of a cell above it changed since"))
        if missing:
            warnings.append(RecordingMissing(path, f"no GPU recording for needs-cuda code cell(s) {_numbers(missing)}"))
    for file in store.files():
        if file.resolve() in expected:
            continue
        try:
            _read(file)
        except RecordingCorrupted as error:
            errors.append(error)
            continue
        warnings.append(RecordingOrphan(file, "GPU recording for a page that does not exist or has no needs-cuda cell"))
    return warnings, errors


def _numbers(cells: list[int]) -> str:
    return ", ".join(str(n) for n in cells)


# ---------------------------------------------------------------------------------------------------- reader's view
# The lead moves these into the shared UI-strings table.

STRINGS = {
    "en": {
        "recorded": "Recorded on {gpu}{count} · CUDA {cuda} · torch {torch} · {date}",
        "recorded_cpu": "Recorded on CPU · torch {torch} · {date}",
        "stale": "The GPU output of this cell is out of date: its code, or code above it, changed after it was "
                 "recorded on {gpu} ({date}). It needs re-recording on a GPU.",
        "missing": "This cell needs a CUDA device. Its output has not yet been recorded on a GPU.",
        "provenance": "GPU cells {cells} recorded on {gpu} · torch {torch} · {date}",
        "provenance_stale": "GPU cells out of date: {cells}",
        "provenance_missing": "GPU cells not recorded: {cells}",
        "section": "GPU recordings",
        "page": "Page", "cells": "Cells", "recorded_on": "Recorded on", "stale_cells": "Stale",
        "none": "–",
    },
    "zh": {
        "recorded": "录制于 {gpu}{count} · CUDA {cuda} · torch {torch} · {date}",
        "recorded_cpu": "录制于 CPU · torch {torch} · {date}",
        "stale": "此单元的 GPU 输出已过期：它的代码或它之前的代码在 {gpu} 上录制（{date}）之后有改动，需要在 GPU 上重新录制。",
        "missing": "此单元需要 CUDA 设备，其输出尚未在 GPU 上录制。",
        "provenance": "GPU 单元 {cells} 录制于 {gpu} · torch {torch} · {date}",
        "provenance_stale": "已过期的 GPU 单元：{cells}",
        "provenance_missing": "尚未录制的 GPU 单元：{cells}",
        "section": "GPU 录制",
        "page": "页面", "cells": "单元", "recorded_on": "录制于", "stale_cells": "已过期",
        "none": "–",
    },
}


def _words(lang: str) -> dict:
    return STRINGS.get(lang, STRINGS["en"])


def label(provenance: dict, lang: str) -> str:
    """'Recorded on NVIDIA H100 80GB HBM3 · CUDA 13.0 · torch 2.13.0 · 2026-12-01' (× n for several GPUs)."""
    words = _words(lang)
    if not provenance.get("gpu_count"):
        return words["recorded_cpu"].format(**provenance)
    count = f" × {provenance['gpu_count']}" if provenance["gpu_count"] > 1 else ""
    return words["recorded"].format(count=count, **provenance)


def notice(state: Stale | Missing, lang: str) -> str:
    words = _words(lang)
    if isinstance(state, Stale):
        return words["stale"].format(gpu=state.provenance["gpu"], date=state.provenance["date"])
    return words["missing"]


def cell_html(state: Recorded | Stale | Missing, lang: str, outputs_html: str = "") -> str:
    """The block under a needs-cuda cell on a build without CUDA. For Recorded, pass the cell's outputs
    already rendered (the renderer's own output HTML for state.outputs); the label goes above them."""
    if isinstance(state, Recorded):
        caption = f'<p class="nb-recorded-label">{html.escape(label(state.provenance, lang))}</p>'
        # Images among the outputs are Markdown (torchnotes/render.py): let md_in_html parse this block.
        md = " markdown" if "\n![" in outputs_html else ""
        return f'<div class="nb-output nb-output--recorded" data-search-exclude{md}>\n{caption}\n{outputs_html}\n</div>'
    kind = "stale" if isinstance(state, Stale) else "cuda"
    return f'<p class="nb-note nb-note--{kind}" data-search-exclude>{html.escape(notice(state, lang))}</p>'


def provenance_text(store: Store, page: Page, lang: str, tag: str = TAG) -> str:
    """For the page's provenance line: which cells show GPU recordings, from where; '' without tagged cells."""
    cells = tagged(page, tag)
    if not cells:
        return ""
    words = _words(lang)
    states = [store.lookup(page, n) for n in cells]
    parts = []
    done = [s for s in states if isinstance(s, Recorded)]
    if done:
        p = done[0].provenance
        parts.append(words["provenance"].format(cells=_numbers([s.cell for s in done]), gpu=p["gpu"],
                                                torch=p["torch"], date=p["date"]))
    stale = [s.cell for s in states if isinstance(s, Stale)]
    if stale:
        parts.append(words["provenance_stale"].format(cells=_numbers(stale)))
    missing = [s.cell for s in states if isinstance(s, Missing)]
    if missing:
        parts.append(words["provenance_missing"].format(cells=_numbers(missing)))
    return " · ".join(parts)


@dataclass
class ReportRow:
    page: str  # relative to docs/<lang>/, as the report links it
    cells: list[int]
    recorded: list[int]
    stale: list[int]
    missing: list[int]
    recorded_on: str  # label() of the recording, '' when none


def report_rows(store: Store, docs_dir: Path, lang: str, tag: str = TAG) -> list[ReportRow]:
    """One row per page of the language with tagged cells, for the GPU section of the execution report."""
    from .checks import page_paths

    rows = []
    lang_dir = Path(docs_dir) / lang
    for path in page_paths(Path(docs_dir), lang):
        page = read_page(path)
        cells = tagged(page, tag)
        if not cells:
            continue
        states = [store.lookup(page, n) for n in cells]
        data = store.load(path)
        rows.append(ReportRow(
            page=path.relative_to(lang_dir).as_posix(),
            cells=cells,
            recorded=[s.cell for s in states if isinstance(s, Recorded)],
            stale=[s.cell for s in states if isinstance(s, Stale)],
            missing=[s.cell for s in states if isinstance(s, Missing)],
            recorded_on=label(data["provenance"], lang) if data else "",
        ))
    return rows


def report_markdown(rows: list[ReportRow], lang: str) -> str:
    """The GPU section of the report page: pages, cells, recorded on, stale."""
    w = _words(lang)
    lines = [f"## {w['section']}", "", f"| {w['page']} | {w['cells']} | {w['recorded_on']} | {w['stale_cells']} |",
             "|---|---|---|---|"]
    for row in rows:
        lines.append(f"| [{row.page}]({row.page}) | {_numbers(row.cells)} | {row.recorded_on or w['none']} | "
                     f"{_numbers(row.stale) or w['none']} |")
    return "\n".join(lines) + "\n"
