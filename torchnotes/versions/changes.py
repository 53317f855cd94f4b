"""Every page's outputs against each compared torch release: per-cell markers, the changes page, the drift report.

Reads only the cache (what `python -m torchnotes versions` executed); runs nothing. Used by the publish step
(markers, provenance, the changes page), by `summary` and by `upgrade` (the reviewer's report).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from torchnotes.engine.cache import Hit
from torchnotes.engine.results import PageResult
from torchnotes.pages.tags import VOLATILE
from torchnotes.settings import Settings
from torchnotes.strings import strings
from torchnotes.versions.drift import CellDrift, compare_page, warnings_in
from torchnotes.versions.run import CONFIG, compared_engine, failures, load_versions, read_state

CHANGES_MARKER = "<!-- torchnotes:version-changes -->"


@dataclass
class Comparison:
    primary: str = ""
    versions: list[str] = field(default_factory=list)  # compared releases that have run (versions.yml order)
    missing: list[str] = field(default_factory=list)  # listed releases that have not run yet
    cells: dict[str, list[CellDrift]] = field(default_factory=dict)  # by page (as the engine shows it)
    compared: dict[str, list[str]] = field(default_factory=dict)  # page -> releases it was compared with
    failed: dict[str, dict[str, str]] = field(default_factory=dict)  # release -> page -> error
    counted: int = 0  # code cells compared (per release, the same cells)

    def by_cell(self, page: str) -> dict[str, list[CellDrift]]:
        found = defaultdict(list)
        for item in self.cells.get(page, []):
            found[item.cell_id].append(item)
        return dict(found)

    def differing(self, version: str) -> list[tuple[str, CellDrift]]:
        return [(page, d) for page, items in self.cells.items() for d in items if d.version == version]


def compare(settings: Settings, results: list[PageResult]) -> Comparison:
    if not (settings.root / CONFIG).exists():
        return Comparison()
    listed = load_versions(settings.root, settings.path("requirements"))
    found = Comparison(primary=listed.primary)
    pages = [r for r in results if r.source is not None and r.status in ("run", "cached")]
    found.counted = sum(len(r.source.code_cells) for r in pages)
    kept_failures = failures(settings)
    for version in listed.compared:
        state = read_state(settings, version)
        if state is None:
            found.missing.append(version)
            continue
        found.versions.append(version)
        engine = compared_engine(settings, state)
        engine.entries.begin()
        for result in pages:
            other = _outcome(engine, kept_failures, result)
            if other is None:
                continue
            found.compared.setdefault(result.page, []).append(version)
            if "error" in other:
                found.failed.setdefault(version, {})[result.page] = other["error"]
            drift = compare_page(result.source, result.outputs, version, other)
            if drift:
                found.cells.setdefault(result.page, []).extend(drift)
    return found


def _outcome(engine, kept_failures, result: PageResult) -> dict | None:
    hit = engine.lookup(result.source)
    if isinstance(hit, Hit):
        return {"outputs": hit.body["outputs"]}
    return kept_failures.load(hit.key)


def changes_markdown(comparison: Comparison, results: list[PageResult], lang: str, docs_dir: Path,
                     root: Path) -> str:
    """The changes page of one language: differing cells by release, then the warnings of the site's release."""
    w = strings(lang)
    mine = _own_pages(results, lang, docs_dir, root)
    lines = [w["changes_summary"].format(pages=len(mine), cells=sum(len(r.source.code_cells) for r in mine.values()
                                                                    if r.source), primary=comparison.primary), ""]
    for version in comparison.versions:
        rows = [(rel, d) for rel, r in mine.items() for d in comparison.cells.get(r.page, []) if d.version == version]
        failed = {rel: comparison.failed.get(version, {}).get(r.page) for rel, r in mine.items()}
        failed = {rel: e for rel, e in failed.items() if e}
        lines += [f"## {w['changes_version'].format(version=version, count=len(rows))}", ""]
        if failed:
            lines += [w["changes_failed"].format(count=len(failed)), ""]
        lines += [f"- [{_title(mine[rel])} · {w['changes_cell'].format(number=d.number)}]({rel}#drift-{d.cell_id})"
                  f" · {w['drift_' + d.kind].format(version=version)}" for rel, d in rows] or [w["changes_none"]]
        lines.append("")
    for version in comparison.missing:
        lines += [f"## PyTorch {version}", "", w["changes_missing"], ""]
    lines += _warnings_section(mine, w, comparison.primary) + _volatile_section(mine, w)
    return "\n".join(lines) + "\n"


def _warnings_section(mine: dict, w: dict, primary: str) -> list[str]:
    rows = [(rel, number, kind, message) for rel, r in mine.items() if r.source
            for number, kind, message in warnings_in(r.source, r.outputs)]
    lines = [f"## {w['changes_warnings'].format(primary=primary)}", "", w["changes_warnings_intro"], "",
             f"| {w['changes_page']} | {w['changes_kind']} | {w['changes_message']} |", "|---|---|---|"]
    lines += [f"| [{_title(mine[rel])} · {number}]({rel}) | `{kind}` | {_cell_text(message)} |"
              for rel, number, kind, message in rows]
    return lines + [""]


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
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def drift_report(comparison: Comparison) -> str:
    """Markdown for a reviewer (the PR summary, the upgrade pull request): per release, cells changed and pages failing."""
    if not comparison.versions and not comparison.missing:
        return ""
    lines = [f"### Outputs across PyTorch releases (site: {comparison.primary})", "",
             f"{comparison.counted} code cells compared per release.", "",
             "| release | cells that differ | pages that raise |", "|---|--:|--:|"]
    for version in comparison.versions:
        lines.append(f"| {version} | {len(comparison.differing(version))} | {len(comparison.failed.get(version, {}))} |")
    for version in comparison.missing:
        lines.append(f"| {version} | not run | not run |")
    for version in comparison.versions:
        rows = comparison.differing(version)
        if rows:
            lines += ["", f"<details><summary>{version}: {len(rows)} cell(s)</summary>", ""]
            lines += [f"- `{page}` cell {d.number}: {d.kind}" for page, d in rows]
            lines += ["", "</details>"]
    return "\n".join(lines) + "\n"
