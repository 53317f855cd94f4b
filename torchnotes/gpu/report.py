"""The GPU section of the execution report page: which pages have recordings, from where, which are stale."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from torchnotes.gpu.shown import _words, label
from torchnotes.gpu.store import TAG, Missing, Recorded, Stale, Store, numbers, tagged
from torchnotes.pages.listing import page_paths
from torchnotes.pages.read import Reader


@dataclass
class ReportRow:
    page: str  # relative to docs/<lang>/, as the report links it
    cells: list[int]
    recorded: list[int]
    stale: list[int]
    missing: list[int]
    recorded_on: str  # label() of the recording, '' when none


def report_rows(store: Store, docs_dir: Path, lang: str, tag: str = TAG, reader: Reader | None = None) -> list[ReportRow]:
    """One row per page of the language with tagged cells, for the GPU section of the execution report."""
    rows = []
    reader = reader or Reader()
    lang_dir = Path(docs_dir) / lang
    for path in page_paths(Path(docs_dir), lang):
        page = reader.page(path)
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
    lines = [f"## {w['section']}", "", w["section_intro"], "", f"| {w['page']} | {w['cells']} | {w['recorded_on']} | {w['stale_cells']} |",
             "|---|---|---|---|"]
    for row in rows:
        lines.append(f"| [{row.page}]({row.page}) | {numbers(row.cells)} | {row.recorded_on or w['none']} | "
                     f"{numbers(row.stale) or w['none']} |")
    return "\n".join(lines) + "\n"
