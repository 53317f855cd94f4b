"""A Markdown summary of one execution report, for a pull request's job summary: pages built, run or cached,
failures, and which pages' outputs changed compared with another report (main's)."""

from __future__ import annotations

import json
from pathlib import Path

from torchnotes.engine.cache import Cache
from torchnotes.errors import FileDamaged
from torchnotes.layout import CacheFolder
from torchnotes.pages.read import cell_number


def summary(folder: CacheFolder, against: Path | None = None) -> str:
    """folder: the build's cache folder (its report, entries and the publish step's drift report)."""
    cache = Cache(folder.root)
    report = json.loads(folder.report.read_text(encoding="utf-8"))
    pages = report["pages"]
    count = {s: sum(p["status"] == s for p in pages) for s in ("run", "cached", "failed", "static")}
    env = report["env"]
    lines = [
        f"### Pages: {len(pages)} · run {count['run']} · cached {count['cached']} · failed {count['failed']}",
        "",
        f"PyTorch {env['torch']} · {env['device']} · Python {env['python']} · {report['kernels']} kernels · {report['seconds']:.0f} s",
        "",
    ]
    failed = [p for p in pages if p["status"] == "failed"]
    if failed:
        lines += ["#### Failures", ""] + [f"- `{p['page']}`: {p['error'].splitlines()[0]}" for p in failed] + [""]
    if against is not None and Path(against).exists():
        changed = changed_outputs(pages, json.loads(Path(against).read_text(encoding="utf-8"))["pages"], cache)
        lines += ["#### Outputs changed compared with main", ""]
        lines += [f"- `{page}`: {why}" for page, why in changed] or ["None: every page shows the same outputs as on main."]
    drift = folder.drift  # the publish step's comparison across torch releases
    if drift.exists() and drift.read_text(encoding="utf-8").strip():
        lines += ["", drift.read_text(encoding="utf-8").rstrip()]
    return "\n".join(lines) + "\n"


def changed_outputs(pages: list[dict], before: list[dict], cache: Cache) -> list[tuple[str, str]]:
    old = {p["page"]: p.get("key") for p in before}
    changed = []
    for page in pages:
        if page["status"] in ("static", "failed") or old.get(page["page"]) == page["key"]:
            continue
        if page["page"] not in old:
            changed.append((page["page"], "new page"))
            continue
        try:
            now, then = cache.get(page["key"]), cache.get(old[page["page"]] or "")
        except FileDamaged as error:
            changed.append((page["page"], f"cannot compare ({error.reason})"))
            continue
        if then is None:
            changed.append((page["page"], "code changed; main's outputs are not in the cache to compare"))
            continue
        # By cell number (the id's first part): an edited cell that prints the same is not a changed output.
        a, b = _by_number(now["outputs"]), _by_number(then["outputs"])
        differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        if differ:
            changed.append((page["page"], "code cells " + ", ".join(map(str, differ))))
    return changed


def _by_number(outputs: dict[str, list]) -> dict[int, list]:
    return {cell_number(cell_id): outs for cell_id, outs in outputs.items()}


def untranslated_summary(pages: list[Path], docs_dir: Path) -> str:
    """The twins not translated yet (torchnotes.pages.translations.untranslated_pages), for the pull request's summary:
    they are published in English under a notice, and wait for a translator."""
    if not pages:
        return ""
    lines = ["", "#### Not translated yet", "", "Shown in English under a notice until a translator removes the marker:", ""]
    lines += [f"- `{Path(page).relative_to(docs_dir).as_posix()}`" for page in pages]
    return "\n".join(lines) + "\n"
