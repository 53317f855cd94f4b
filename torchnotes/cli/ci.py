"""The commands CI runs around a build: plan the deploy's shards, merge their caches, summarise a build for a pull
request, prune the cache."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from torchnotes.ci.shards import matrix, plan, previous_durations
from torchnotes.ci.shards import merge as merge_caches
from torchnotes.ci.summary import summary, untranslated_summary
from torchnotes.cli.common import all_pages, environment
from torchnotes.engine.cache import current_keys
from torchnotes.engine.scheduler import Engine
from torchnotes.errors import ReportMissing
from torchnotes.layout import CacheFolder
from torchnotes.pages.freshness import Ledger, stale_summary
from torchnotes.pages.translations import untranslated_pages
from torchnotes.settings import Settings
from torchnotes.versions.run import compared_keys, merge_states


def merge(settings: Settings, args) -> int:
    target = CacheFolder(settings.path("cache_dir"))
    copied, damaged = merge_caches(args.sources, target.root)
    # What the compared torch releases did (python -m torchnotes versions, one job per release and shard).
    more, broken = merge_caches([CacheFolder(p).failed for p in args.sources], target.failed)
    copied, damaged = copied + more + merge_states(args.sources, target.root), damaged + broken
    for error in damaged:
        print(error.message, file=sys.stderr)
    print(f"merged {copied} entries into {target.root}; {len(damaged)} damaged entries left out")
    return 1 if damaged else 0


def shards(settings: Settings, args) -> int:
    pages = all_pages(settings)
    if args.count < 1:
        print(f"--count must be at least 1, got {args.count}", file=sys.stderr)
        return 2
    spaced = [str(p) for p in pages if any(c.isspace() for c in str(p))]
    if spaced:
        # The matrix passes each shard its pages space-separated.
        print("page paths may not contain whitespace; rename: " + ", ".join(spaced), file=sys.stderr)
        return 1
    durations = previous_durations(args.report or CacheFolder(settings.path("cache_dir")).report, settings.root)
    planned = plan(pages, args.count, durations, root=settings.root)
    if args.json:
        print(json.dumps(matrix(planned), separators=(",", ":")))
        return 0
    default = sum(durations.values()) / len(durations) if durations else 1.0
    for k, shard in enumerate(planned, 1):
        seconds = sum(durations.get(str(p), default) for p in shard)
        print(f"shard {k}/{args.count}: {len(shard)} pages, about {seconds:.0f} s")
        for page in shard:
            print(f"  {page}")
    return 0


def prune(settings: Settings, args) -> int:
    engine = Engine(settings, environment(settings))
    pages = all_pages(settings)
    keep = current_keys(engine, pages) | compared_keys(settings, pages)
    removed = engine.cache.prune(keep)
    parsed = engine.reader.prune()  # current_keys has just read every current page with this reader
    print(f"removed {len(removed)} entries no current page uses; {len(engine.cache.keys())} kept"
          f" ({len(parsed)} parsed page(s) of old versions removed)")
    return 0


def summarise(settings: Settings, args) -> int:
    folder = CacheFolder(settings.path("cache_dir"))
    for report, what in ((folder.report, "this build's execution report"), (args.against, "--against")):
        if report is not None and not Path(report).is_file():
            error = ReportMissing(report, f"{what}: no such file",
                                  hint=ReportMissing.hint.format(report=folder.report))
            error.exit_code = 2
            raise error
    print(summary(folder, args.against), end="")
    print(stale_summary(Ledger(settings.root, settings.docs_dir, settings.languages).stale()), end="")
    print(untranslated_summary(untranslated_pages(settings.docs_dir, settings.languages), settings.docs_dir), end="")
    return 0


def summary_arguments(command) -> None:
    command.add_argument("--against", type=Path, help="an earlier report (main's) to list changed outputs")


def shards_arguments(command) -> None:
    command.add_argument("--count", type=int, required=True, help="number of shards")
    command.add_argument("--json", action="store_true", help="a GitHub Actions matrix, on one line")
    command.add_argument("--report", type=Path, help="the report whose durations balance the split")


def merge_arguments(command) -> None:
    command.add_argument("sources", nargs="+", type=Path)


def cache_arguments(command) -> None:
    command.add_argument("action", choices=["prune"], help="prune: keep only the entries the current pages use")
