"""What a reader sees of a recording: the label over replayed outputs, the notices, the provenance line."""

from __future__ import annotations

import html

from torchnotes.gpu.store import TAG, Missing, Recorded, Stale, Store, numbers, tagged
from torchnotes.pages.read import Page
from torchnotes.strings import strings


def _words(lang: str) -> dict:
    return strings(lang)["gpu"]


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
        # Images among the outputs are Markdown (torchnotes/publish/render.py): let md_in_html parse this block.
        md = " markdown" if "\n![" in outputs_html else ""
        return f'<div class="nb-output nb-output--recorded" data-search-exclude{md}>\n{caption}\n{outputs_html}\n</div>'
    kind = "stale" if isinstance(state, Stale) else "cuda"
    return f'<p class="nb-note nb-note--{kind}" data-search-exclude>{html.escape(notice(state, lang))}</p>'


def provenance_text(store: Store, page: Page, lang: str, tag: str = TAG, cells_as=numbers, escape=str) -> str:
    """For the page's provenance line: which cells show GPU recordings, from where; '' without tagged cells.
    cells_as(numbers) writes a list of code cell numbers (the publish step makes each a link to its cell), and
    escape() everything else (html.escape for a page)."""
    cells = tagged(page, tag)
    if not cells:
        return ""
    words = _words(lang)
    states = [store.lookup(page, n) for n in cells]
    parts = []
    done = [s for s in states if isinstance(s, Recorded)]
    if done:
        p = done[0].provenance
        parts.append(escape(words["provenance"]).format(cells=cells_as([s.cell for s in done]), gpu=escape(p["gpu"]),
                                                        torch=escape(p["torch"]), date=escape(p["date"])))
    stale = [s.cell for s in states if isinstance(s, Stale)]
    if stale:
        parts.append(escape(words["provenance_stale"]).format(cells=cells_as(stale)))
    missing = [s.cell for s in states if isinstance(s, Missing)]
    if missing:
        parts.append(escape(words["provenance_missing"]).format(cells=cells_as(missing)))
    return " · ".join(parts)
