"""The commands that build: execute (pages run through the cache: all, some, or one shard of the deploy's plan; the
report written; GPU recordings taken on a machine with CUDA; the cache pruned), render (the publish tree), and the
generators that need no MkDocs command of their own: zensical, pdf, offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchnotes import gpu as recorded
from torchnotes.ci.shards import export, previous_durations, split
from torchnotes.cli.common import all_pages, environment
from torchnotes.engine.cache import current_keys
from torchnotes.engine.explain import explain
from torchnotes.engine.results import PageResult, Report
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import NotebookError, RecordingNeedsCuda
from torchnotes.layout import CacheFolder
from torchnotes.pages.translations import check_translations
from torchnotes.publish.paired import check_pairs
from torchnotes.settings import Settings
from torchnotes.versions.run import compared_keys


def execute(settings: Settings, args) -> int:
    env = environment(settings)
    pages = args.pages or all_pages(settings)
    machine = None
    if args.record:
        # Probe first: a machine without CUDA stops here, before any page runs.
        machine = recorded.probe_machine()
        if machine.gpu_count == 0 and args.record_tag == recorded.TAG:
            error = RecordingNeedsCuda(recorded.STORE_DIR, f"no CUDA device on this machine (torch {machine.torch}, "
                                                           f"{machine.torch_build})")
            error.exit_code = 2
            raise error
        if not args.pages:
            pages = recorded.pages_with(pages, args.record_tag)
    engine = Engine(settings, env, run=Run(jobs=args.jobs, mode="force" if args.force else "auto",
                                           page_timeout=args.page_timeout, build_timeout=args.build_timeout))
    if args.explain:
        for path in pages:
            print(explain(engine, path))
        return 0
    report_path = args.report or engine.folder.report
    # Every shard plans from the same durations, those of the last whole build: a shard's own report goes beside
    # it, so which shard ran last never changes the split.
    plan_from = report_path
    if args.shard and not args.report:
        report_path = engine.folder.shard_report(*args.shard)
    # Every check before any kernel starts: a broken page is reported at once, not after the others ran.
    problems = (check_translations(settings.docs_dir, settings.languages)
                + check_pairs(settings.docs_dir, settings.path("notebooks_dir"), settings.languages, engine.reader))
    if problems:
        for error in problems:
            print(error.message, file=sys.stderr)
        Report(env, [PageResult(engine.shown(e.path), "failed", error=e) for e in problems], 0.0, kernels=0).write(report_path)
        print(f"{len(problems)} problem(s) found before execution; nothing was run")
        return 1
    if args.shard:
        pages = split(pages, *args.shard, previous_durations(plan_from, settings.root), root=settings.root)
    report = _run_reporting_crashes(engine, pages, report_path)
    print(report.summary_line())
    report.write(report_path)
    if args.copy_cache:
        copied = export(engine.cache, report.used_keys, args.copy_cache)
        report.write(CacheFolder(args.copy_cache).report)
        print(f"copied {copied} cache entries of this run to {args.copy_cache} "
              f"(on the merging machine: python -m torchnotes merge {args.copy_cache}/ ...)")
    if machine is not None:
        store = recorded.Store(settings.root / recorded.STORE_DIR, settings.docs_dir)
        for path in recorded.record(report.results, store, machine, tag=args.record_tag):
            print(f"recorded {path}")
    for error in report.failures:
        print(error.message, file=sys.stderr)
    if args.prune and not report.failures:
        pages = all_pages(settings)
        keep = report.used_keys | current_keys(engine, pages) | compared_keys(settings, pages)
        removed = engine.cache.prune(keep)
        engine.reader.prune()
        print(f"pruned {len(removed)} unused cache entries")
    return 1 if report.failures else 0


def _run_reporting_crashes(engine: Engine, pages: list[Path], report_path: Path) -> Report:
    try:
        return engine.run(pages)
    except BaseException as crash:
        # The PR summary must not read an older report, or none, as "0 failed".
        crashed = PageResult("(build)", "failed", error=NotebookError("(build)", f"the build stopped: {crash!r}"))
        Report(engine.env, [crashed], 0.0, kernels=0).write(report_path)
        raise


def render(settings: Settings, args) -> int:
    from torchnotes.generators.zensical import site_folder
    from torchnotes.publish.tree import Publisher

    if args.command == "zensical":
        site_folder(settings, args.site_dir)  # before any page runs
    mode = "off" if getattr(args, "no_execute", False) else "force" if getattr(args, "force", False) else None
    published = Publisher(settings, environment(settings), mode=mode).run(getattr(args, "out", None))
    print(published.summary_line())
    if args.command != "zensical":
        return 0
    from torchnotes.generators.zensical import build_all

    return build_all(settings, args.config_file, published.out, args.site_dir)


def pdf(settings: Settings, args) -> int:
    """Print the built site as one PDF book per language (Chromium; pikepdf adds the outline)."""
    from torchnotes.generators.pdf import build

    build(args.config_file, args.site, args.out or args.site / "pdf", args.lang)
    return 0


def offline(settings: Settings, args) -> int:
    """Build the offline copy (mkdocs.offline.yml) and zip it, one zip per language that opens from file://."""
    from torchnotes.generators.offline.zips import build_and_zip

    build_and_zip(args.config.resolve(), args.site.resolve(), args.out.resolve(), args.langs or list(settings.languages),
                  build=not args.no_build)
    return 0


def parse_shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    k, n = int(k), int(n)
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"shard must be k/n with 1 <= k <= n, got {text}")
    return k, n


def execute_arguments(command) -> None:
    command.add_argument("pages", nargs="*", type=Path)
    command.add_argument("--force", action="store_true", help="ignore the cache")
    command.add_argument("--jobs", type=int)
    command.add_argument("--shard", type=parse_shard, help="k/n: execute only the k-th of n balanced shards")
    command.add_argument("--report", type=Path, help="where to write the JSON report (default: <cache_dir>/report.json)")
    command.add_argument("--record", action="store_true", help="on a CUDA machine: write the needs-cuda outputs into "
                                                               "recorded/ (default pages: those with needs-cuda cells)")
    # Tests record their own tag on CPU through this same path (recorded.TEST_TAG); not for pages.
    command.add_argument("--record-tag", default=recorded.TAG, help=argparse.SUPPRESS)
    command.add_argument("--explain", action="store_true", help="say for each page why it is a cache hit or miss; run nothing")
    command.add_argument("--copy-cache", type=Path, metavar="DIR",
                         help="also copy the entries this run used, and its report, into DIR: a shard folder to merge")
    command.add_argument("--prune", action="store_true", help="after a good build, remove entries no current page uses")
    command.add_argument("--page-timeout", type=float, default=900, help="seconds for a whole page (default 900; 0: none)")
    command.add_argument("--build-timeout", type=float, default=0, help="seconds for the whole build (default: none)")


def render_arguments(command) -> None:
    command.add_argument("out", nargs="?", type=Path, help="default: publish_dir of mkdocs.yml (build/publish)")
    command.add_argument("--no-execute", action="store_true", help="cache only: a page without cached outputs is an error")
    command.add_argument("--force", action="store_true", help="execute every page, ignoring the cache")


def zensical_arguments(command) -> None:
    command.add_argument("--site-dir", type=Path, default=Path("site-zensical"))


def pdf_arguments(command) -> None:
    command.add_argument("--site", type=Path, default=Path("site"), help="the built site (mkdocs build)")
    command.add_argument("--out", type=Path, help="where the PDFs go (default: SITE/pdf, published with the site)")
    command.add_argument("--lang", action="append", help="one language (repeatable; default: every language)")


def offline_arguments(command) -> None:
    command.add_argument("--config", type=Path, default=Path("mkdocs.offline.yml"))
    command.add_argument("--site", type=Path, default=Path("build/offline-site"),
                         help="where the offline site is built (emptied first)")
    command.add_argument("--out", type=Path, default=Path("site/offline"), help="where the zips go")
    command.add_argument("--langs", nargs="+", help="the default language first (default: mkdocs.yml's languages)")
    command.add_argument("--no-build", action="store_true", help="check and zip the tree already in --site")
