"""The commands around the build, registered in torchnotes/cli/__init__.py's table: CI's (merge, shards, cache, summary),
the torch releases' (versions, upgrade) and the translations' ledger (translated)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from torchnotes.ci.shards import matrix, plan, previous_durations
from torchnotes.ci.shards import merge as merge_caches
from torchnotes.ci.summary import summary, untranslated_summary
from torchnotes.engine.cache import Cache
from torchnotes.engine.environment import probe
from torchnotes.engine.scheduler import Engine, current_keys
from torchnotes.errors import ReportMissing
from torchnotes.pages.checks import page_paths, untranslated_pages
from torchnotes.pages.freshness import Ledger, stale_summary
from torchnotes.settings import Settings
from torchnotes.versions.run import FAILED_DIR, compared_keys, merge_states


def all_pages(s: Settings) -> list[Path]:
    return [p for lang in s.languages for p in page_paths(s.docs_dir, lang)]


def environment(s: Settings):
    return probe(s.path("requirements"))



def merge(s: Settings, args) -> int:
    target = s.path("cache_dir")
    copied, damaged = merge_caches(args.sources, target)
    # What the compared torch releases did (python -m torchnotes versions, one job per release and shard).
    more, broken = merge_caches([Path(p) / FAILED_DIR for p in args.sources], target / FAILED_DIR)
    copied, damaged = copied + more + merge_states(args.sources, target), damaged + broken
    for error in damaged:
        print(error.message, file=sys.stderr)
    print(f"merged {copied} entries into {target}; {len(damaged)} damaged entries left out")
    return 1 if damaged else 0


def shards(s: Settings, args) -> int:
    pages = all_pages(s)
    if args.count < 1:
        print(f"--count must be at least 1, got {args.count}", file=sys.stderr)
        return 2
    spaced = [str(p) for p in pages if any(c.isspace() for c in str(p))]
    if spaced:
        # The matrix passes each shard its pages space-separated.
        print("page paths may not contain whitespace; rename: " + ", ".join(spaced), file=sys.stderr)
        return 1
    durations = previous_durations(args.report or s.path("cache_dir") / "report.json", s.root)
    planned = plan(pages, args.count, durations, root=s.root)
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


def prune(s: Settings, args) -> int:
    engine = Engine.from_settings(s, environment(s))
    keep = current_keys(engine, all_pages(s)) | compared_keys(s, all_pages(s))
    removed = engine.cache.prune(keep)
    parsed = engine.reader.prune()  # current_keys has just read every current page with this reader
    print(f"removed {len(removed)} entries no current page uses; {len(engine.cache.keys())} kept"
          f" ({len(parsed)} parsed page(s) of old versions removed)")
    return 0


def summarise(s: Settings, args) -> int:
    folder = s.path("cache_dir")
    for report, what in ((folder / "report.json", "this build's execution report"), (args.against, "--against")):
        if report is not None and not Path(report).is_file():
            print(ReportMissing(report, f"{what}: no such file").message, file=sys.stderr)
            return 2
    print(summary(folder / "report.json", Cache(folder), args.against), end="")
    print(stale_summary(Ledger(s.root, s.docs_dir, s.languages).stale()), end="")
    print(untranslated_summary(untranslated_pages(s.docs_dir, s.languages), s.docs_dir), end="")
    return 0


def versions(s: Settings, args) -> int:
    from torchnotes.versions.upgrade import print_matrix, versions_command

    if args.matrix:
        return print_matrix(s)
    return versions_command(s, args.pages or all_pages(s), args.only, args.report)


def upgrade(s: Settings, args) -> int:
    from torchnotes.versions.upgrade import upgrade as move_to

    return move_to(s, args.version, args.report, args.config_file)



def translated(s: Settings, args) -> int:
    ledger = Ledger(s.root, s.docs_dir, s.languages)
    pages = args.pages
    if args.all:  # a site without a ledger yet starts one with every translation
        pages = ([stale.page for stale in ledger.stale()] if ledger.path.exists()
                 else [p for lang in s.languages[1:] for p in page_paths(s.docs_dir, lang)])
    if not pages:
        print("every translation is up to date" if args.all else "name the revised translations (docs/zh/...md), or --all")
        return 0 if args.all else 2
    for rel in ledger.mark(pages):
        print(f"up to date: {rel} (translations/ledger.yml)")
    return 0



# Their arguments.

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



def versions_arguments(command) -> None:
    command.add_argument("pages", nargs="*", type=Path, help="only these pages (a shard of the deploy workflow)")
    command.add_argument("--only", action="append", metavar="VERSION", help="only this compared release (repeatable)")
    command.add_argument("--report", type=Path, help="also write the Markdown drift report to this file")
    command.add_argument("--matrix", action="store_true", help="print the compared releases as a JSON list and stop "
                                                               "(the deploy workflow's matrix)")



def upgrade_arguments(command) -> None:
    command.add_argument("version", help="the new release, e.g. 2.16.0")
    command.add_argument("--report", type=Path, default=Path("build/torch-upgrade.md"), help="where the report goes")


# name: (function, what it does, its arguments)

def translated_arguments(command) -> None:
    command.add_argument("pages", type=Path, nargs="*", help="the revised translations (or their English pages)")
    command.add_argument("--all", action="store_true", help="every translation that is behind its English page")


