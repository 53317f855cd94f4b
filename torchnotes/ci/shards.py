"""Split pages into n shards of similar total execution time, using the durations of the last report.

The split is computed once (`python -m torchnotes shards --count N --json`, the deploy workflow's plan job)
and handed to every shard, so all shards agree on it even if their caches differ.
"""

from __future__ import annotations

import json
from pathlib import Path

from torchnotes.engine.cache import Cache
from torchnotes.errors import FileDamaged


def previous_durations(report: Path, root: Path) -> dict[str, float]:
    if not Path(report).exists():
        return {}
    data = json.loads(Path(report).read_text(encoding="utf-8"))
    return {row["page"]: float(row.get("run_seconds") or row.get("seconds") or 0.0) for row in data.get("pages", [])}


def plan(pages: list[Path], n: int, durations: dict[str, float], root: Path | None = None) -> list[list[Path]]:
    """All n shards. Longest first onto the least-loaded shard; unknown pages count as the mean so new pages
    spread out."""
    def name(p: Path) -> str:
        p = Path(p)
        return str(p.relative_to(root)) if root and p.is_absolute() and p.is_relative_to(root) else str(p)

    known = [durations[name(p)] for p in pages if name(p) in durations]
    default = sum(known) / len(known) if known else 1.0
    weighted = sorted(pages, key=lambda p: (-durations.get(name(p), default), name(p)))
    loads = [0.0] * n
    shards: list[list[Path]] = [[] for _ in range(n)]
    for page in weighted:
        target = min(range(n), key=lambda i: (loads[i], i))
        shards[target].append(page)
        loads[target] += durations.get(name(page), default)
    return [sorted(shard, key=name) for shard in shards]


def split(pages: list[Path], k: int, n: int, durations: dict[str, float], root: Path | None = None) -> list[Path]:
    """The k-th (1-based) of the n shards."""
    return plan(pages, n, durations, root)[k - 1]


def matrix(shards: list[list[Path]]) -> dict:
    """A GitHub Actions matrix: one entry per non-empty shard, its pages space-separated (paths hold no spaces;
    the CLI checks). Empty shards are left out: `execute` with no pages would execute every page."""
    filled = [shard for shard in shards if shard]
    return {"include": [{"shard": k, "count": len(filled), "pages": " ".join(p.as_posix() for p in shard)}
                        for k, shard in enumerate(filled, 1)]}


def merge(sources: list[Path], target: Path) -> tuple[int, list[FileDamaged]]:
    """Copy every sound entry of the source caches into target (shards of one build, run on several machines).

    Entries are content-addressed, so the union is the merged cache; a damaged entry is reported and left out.
    """
    into = Cache(target)
    have = into.keys()
    copied, damaged = 0, []
    for source in sources:
        cache = Cache(source)
        for key in sorted(cache.keys() - have):
            try:
                body = cache.get(key)
            except FileDamaged as error:
                damaged.append(error)
                continue
            into.put(key, body)
            have.add(key)
            copied += 1
    return copied, damaged


def export(cache: Cache, keys: set[str], target: Path) -> int:
    """Copy the entries a shard's run used into target, a shard folder that `merge` reads on another machine."""
    into = Cache(target)
    copied = 0
    for key in sorted(keys - into.keys()):
        body = cache.get(key)
        if body is not None:
            into.put(key, body)
            copied += 1
    return copied
