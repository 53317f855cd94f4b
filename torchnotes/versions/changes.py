"""Every page's outputs against each compared torch release: per-cell markers, the changes page, the drift report.

Reads only the committed record (compared/, torchnotes.versions.record, which `python -m torchnotes versions`
writes); runs nothing, reads no compared release's cache. Used by the publish step (markers, provenance, the
changes page), by `summary` and by `versions`/`upgrade` (the reviewer's report).
"""

from __future__ import annotations

import html
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from torchnotes.engine.results import PageResult
from torchnotes.pages.tags import VOLATILE
from torchnotes.settings import Settings
from torchnotes.strings import strings
from torchnotes.versions.drift import (
    CHANGED,
    COMPARED_STATES,
    DIFFERS,
    FAILS,
    NOT_RUN,
    RAISES,
    SKIPPED,
    CellDrift,
    release_label,
    warnings_in,
)
from torchnotes.versions.record import Record
from torchnotes.versions.run import CONFIG, load_versions

CHANGES_MARKER = "<!-- torchnotes:version-changes -->"
LONG_WARNING = 160  # characters: a longer message is folded (<details>) under its first words


@dataclass
class Comparison:
    primary: str = ""
    listed: list[str] = field(default_factory=list)  # the compared releases of versions.yml, in its order
    # release -> page -> the state of each code cell (torchnotes.versions.record.Record.states); a page the
    # release has no record of is absent.
    states: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    cells: dict[str, list[CellDrift]] = field(default_factory=dict)  # by page: cells that differ or raise
    changed: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # page -> cell id -> releases
    failed: dict[str, dict[str, str]] = field(default_factory=dict)  # release -> page -> error PyTorch raised
    # release -> page -> the error of the page's own code (drift.own_failure): its check failed, not PyTorch
    own_failures: dict[str, dict[str, str]] = field(default_factory=dict)
    pages: list[str] = field(default_factory=list)  # the pages with code cells this build shows

    @property
    def versions(self) -> list[str]:
        """The compared releases with a record of at least one page."""
        return [v for v in self.listed if self.states.get(v)]

    @property
    def missing(self) -> list[str]:
        return [v for v in self.listed if not self.states.get(v)]

    @property
    def compared(self) -> dict[str, list[str]]:
        """page -> the releases it was compared with (the provenance line)."""
        found: dict[str, list[str]] = {}
        for version in self.versions:
            for page in self.states[version]:
                found.setdefault(page, []).append(version)
        return found

    def by_cell(self, page: str) -> dict[str, list[CellDrift]]:
        found = defaultdict(list)
        for item in self.cells.get(page, []):
            found[item.cell_id].append(item)
        for cell_id, versions in self.changed.get(page, {}).items():
            found[cell_id].append(CellDrift(cell_id, 0, ", ".join(versions), CHANGED, "", ""))
        return dict(found)

    def differing(self, version: str) -> list[tuple[str, CellDrift]]:
        return [(page, d) for page, items in self.cells.items() for d in items if d.version == version]

    def counts(self, version: str, pages: list[str], cells: dict[str, int]) -> dict[str, int]:
        """What the release's record says of these pages (cells: each page's number of code cells)."""
        found = dict.fromkeys(("pages", "compared", DIFFERS, RAISES, SKIPPED, NOT_RUN, CHANGED, "unrecorded"), 0)
        for page in pages:
            states = self.states.get(version, {}).get(page)
            if states is None:
                found["unrecorded"] += cells[page]
                continue
            found["pages"] += 1
            for entry in states:
                state = entry["state"]
                found["compared" if state in COMPARED_STATES else state] += 1
                if state in (DIFFERS, RAISES):
                    found[state] += 1
        return found


def compare(settings: Settings, results: list[PageResult]) -> Comparison:
    if not (settings.root / CONFIG).exists():
        return Comparison()
    listed = load_versions(settings.root, settings.path("requirements"))
    found = Comparison(primary=listed.primary, listed=list(listed.compared))
    record = Record(settings.root, settings.docs_dir)
    pages = [r for r in results if r.source is not None and r.source.code_cells and r.status in ("run", "cached")]
    found.pages = [r.page for r in pages]
    for version in listed.compared:
        for result in pages:
            states = record.states(version, result.source)
            if states is None:
                continue
            found.states.setdefault(version, {})[result.page] = states
            for number, (cell, entry) in enumerate(zip(result.source.code_cells, states), 1):
                state = entry["state"]
                if state in (DIFFERS, RAISES):
                    own = state == RAISES and entry.get("origin") == "page"
                    found.cells.setdefault(result.page, []).append(CellDrift(
                        cell.id, number, version, FAILS if own else state, "\n".join(entry["shown"]),
                        "\n".join(entry["other"]), entry.get("error", "")))
                    if state == RAISES:
                        failures = found.own_failures if own else found.failed
                        failures.setdefault(version, {})[result.page] = entry.get("error", "")
                elif state == CHANGED:
                    found.changed.setdefault(result.page, {}).setdefault(cell.id, []).append(version)
    return found


def changes_markdown(comparison: Comparison, results: list[PageResult], lang: str, docs_dir: Path,
                     root: Path, repo_url: str = "") -> str:
    """The changes page of one language: what each release was compared on and which cells differ there, then
    the warnings of the site's release. Every number is counted from the committed record."""
    w = strings(lang)
    mine = _own_pages(results, lang, docs_dir, root)
    cells = {r.page: len(r.source.code_cells) for r in mine.values()}
    releases = ", ".join(release_label(v) for v in comparison.listed)
    record_url = f"{repo_url.rstrip('/')}/tree/main/compared" if repo_url else "#"
    lines = [w["changes_summary"].format(pages=len(mine), cells=sum(cells.values()), record_url=record_url,
                                         primary=release_label(comparison.primary), releases=releases), ""]
    for version in comparison.listed:
        label = release_label(version)
        count = comparison.counts(version, [r.page for r in mine.values()], cells)
        if not count["pages"]:
            lines += [f"## PyTorch {label}", "", w["changes_missing"].format(version=version, record_url=record_url),
                      ""]
            continue
        rows = [(rel, d) for rel, r in mine.items() for d in comparison.cells.get(r.page, []) if d.version == version]
        lines += [f"## {w['changes_version'].format(version=label, count=len(rows))}", "",
                  w["changes_counts"].format(release=version, pages=count["pages"], total_pages=len(mine),
                                             compared=count["compared"], total_cells=sum(cells.values())), ""]
        reasons = [w[f"changes_not_{key.replace('-', '_')}"].format(count=count[key])
                   for key in (CHANGED, "unrecorded", NOT_RUN, SKIPPED) if count[key]]
        if reasons:
            lines += [w["changes_not_compared"].format(count=sum(count[k] for k in (CHANGED, "unrecorded", NOT_RUN,
                                                                                     SKIPPED))), ""]
            lines += [f"- {reason}" for reason in reasons] + [""]
        # Which pages raise, and which pages' own checks fail, by name: a bare count above the list of cells read
        # as if every cell listed raised.
        for key, kind in (("changes_failed", RAISES), ("changes_own_failures", FAILS)):
            named = [_page_cell_link(mine[rel], rel, d, w) for rel, d in rows if d.kind == kind]
            if named:
                lines += [w[key].format(version=label, count=len(named), pages="; ".join(named)), ""]
        if rows:
            lines += [w["changes_differs_list"].format(count=len(rows)), ""]
        lines += [f"- {_page_cell_link(mine[rel], rel, d, w)} · {w['drift_' + d.kind].format(version=label)}"
                  + (f": `{d.error}`" if d.kind == FAILS and d.error else "") for rel, d in rows] or [w["changes_none"]]
        lines.append("")
    lines += _warnings_section(mine, w, release_label(comparison.primary)) + _volatile_section(mine, w)
    return "\n".join(lines) + "\n"


def _page_cell_link(result: PageResult, rel: str, drift: CellDrift, w: dict) -> str:
    # To the cell's number (#cell-N), above its code: the pills (#drift-…) sit under the output, so a link to them
    # left the cell's number and code scrolled out of view.
    return f"[{_title(result)} · {w['changes_cell'].format(number=drift.number)}]({rel}#cell-{drift.number})"


def _warnings_section(mine: dict, w: dict, primary: str) -> list[str]:
    """Two lists: the warnings Python reported while a cell ran (to look at), and those a page provokes on
    purpose to show them (drift.Warned.on_purpose). Each item links to its cell and gives the whole message."""
    found = [(rel, item) for rel, r in mine.items() if r.source for item in warnings_in(r.source, r.outputs)]
    lines = [f"## {w['changes_warnings'].format(primary=primary)}", ""]
    for on_purpose, key in ((False, "changes_warnings_attention"), (True, "changes_warnings_on_purpose")):
        rows = [(rel, item) for rel, item in found if item.on_purpose == on_purpose]
        lines += [f"### {w[key].format(count=len(rows))}", "", w[key + "_intro"], ""]
        lines += [_warning_html(mine[rel], rel, item, w) for rel, item in rows] or [w["changes_warnings_none"], ""]
    return lines


def _warning_html(result: PageResult, rel: str, item, w: dict) -> str:
    # md_in_html: the link stays Markdown, so each generator resolves page.md#cell-N to the page's URL.
    link = f"[{_title(result)} · {w['changes_cell'].format(number=item.cell)}]({rel}#cell-{item.cell})"
    message = html.escape(item.message)
    if len(item.message) > LONG_WARNING:
        head = html.escape(item.message[:LONG_WARNING].rsplit(" ", 1)[0])
        text = (f'<details class="nb-warning-text"><summary>{head}…</summary><p>{message}</p></details>')
    else:
        text = f'<p class="nb-warning-text">{message}</p>'
    return (f'<div class="nb-warning" markdown>\n{link} · `{item.kind}`\n\n{text}\n</div>\n')


def _volatile_section(mine: dict, w: dict) -> list[str]:
    rows = [(rel, number, cell.metadata.get("reason", "")) for rel, r in mine.items() if r.source
            for number, cell in enumerate(r.source.code_cells, 1) if VOLATILE in cell.metadata.get("tags", [])]
    if not rows:
        return []
    lines = [f"## {w['changes_volatile']}", "", w["changes_volatile_intro"], "",
             f"| {w['changes_page']} | {w['changes_reason']} |", "|---|---|"]
    return lines + [f"| [{_title(mine[rel])} · {n}]({rel}) | {_cell_text(reason)} |" for rel, n, reason in rows] + [""]


def _own_pages(results: list[PageResult], lang: str, docs_dir: Path, root: Path) -> dict[str, PageResult]:
    lang_dir = (Path(docs_dir) / lang).resolve()
    mine = {}
    for result in results:
        source = (Path(root) / result.page).resolve()
        if source.is_relative_to(lang_dir) and result.source is not None and result.source.code_cells:
            mine[source.relative_to(lang_dir).as_posix()] = result
    return mine


def _title(result: PageResult) -> str:
    return _cell_text(str(result.source.meta.get("title", result.page)))


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def drift_report(comparison: Comparison, site_url: str = "", languages: tuple = ("en",)) -> str:
    """Markdown for a reviewer (the PR summary, the upgrade pull request): per release, what was compared, cells
    changed and pages failing. With the published site's URL, each cell it names links to the cell there."""
    if not comparison.listed:
        return ""
    lines = [f"### Outputs across PyTorch releases (site: {comparison.primary})", "",
             "| release | pages compared | code cells compared | cells that differ | pages that raise | "
             "cells changed since compared |", "|---|--:|--:|--:|--:|--:|"]
    for version in comparison.listed:
        count = comparison.counts(version, comparison.pages, dict.fromkeys(comparison.pages, 0))
        if not count["pages"]:
            lines.append(f"| {version} | not run | | | | |")
            continue
        lines.append(f"| {version} | {count['pages']} of {len(comparison.pages)} | {count['compared']} | "
                     f"{len(comparison.differing(version))} | {len(comparison.failed.get(version, {}))} | "
                     f"{count[CHANGED]} |")
    for version in comparison.versions:
        rows = comparison.differing(version)
        if rows:
            lines += ["", f"<details><summary>{version}: {len(rows)} cell(s)</summary>", ""]
            lines += [f"- `{page}` {_cell_link(page, d.number, site_url, languages)}: {d.kind}" for page, d in rows]
            lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _cell_link(page: str, number: int, site_url: str, languages: tuple) -> str:
    """'cell 9', linked to #cell-9 on the published page of docs/<lang>/<path>.md when the site's URL is known."""
    parts = Path(page).parts
    if not site_url or "docs" not in parts or len(parts) < parts.index("docs") + 3:
        return f"cell {number}"
    lang, rel = parts[parts.index("docs") + 1], Path(*parts[parts.index("docs") + 2:]).with_suffix("")
    path = "" if rel.name == "index" else rel.as_posix() + "/"
    if rel.name == "index" and len(rel.parts) > 1:
        path = rel.parent.as_posix() + "/"
    prefix = "" if lang == languages[0] else f"{lang}/"
    return f"[cell {number}]({site_url.rstrip('/')}/{prefix}{path}#cell-{number})"
