"""Command line: the same engine as the MkDocs build, without MkDocs. One function per command, in one table
(COMMANDS, at the end): `python -m torchnotes --help` lists them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nbconvert.filters import strip_ansi

from torchnotes import gpu as recorded
from torchnotes.ci.shards import export, previous_durations, split
from torchnotes.cli.around import (
    all_pages,
    cache_arguments,
    environment,
    merge,
    merge_arguments,
    prune,
    shards,
    shards_arguments,
    summarise,
    summary_arguments,
    translated,
    translated_arguments,
    upgrade,
    upgrade_arguments,
    versions,
    versions_arguments,
)
from torchnotes.engine.explain import explain
from torchnotes.engine.results import PageResult, Report
from torchnotes.engine.scheduler import Engine, current_keys
from torchnotes.errors import BuildFailed, GeneratorFailed, NotebookError, RecordingNeedsCuda
from torchnotes.pages.checks import (
    check_pairs,
    check_translations,
    check_untranslated,
    page_paths,
    sync_pairs,
    untranslated_pages,
)
from torchnotes.pages.freshness import Ledger
from torchnotes.pages.glossary import check_terms
from torchnotes.pages.read import Reader, read_page
from torchnotes.pages.safety import check_prose
from torchnotes.pages.tokens import check_tokens
from torchnotes.settings import Settings
from torchnotes.settings import load as load_settings
from torchnotes.versions.run import compared_keys, pinned_torch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torchnotes", description=__doc__)
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (run, text, arguments) in COMMANDS.items():
        command = sub.add_parser(name, help=text, description=text)
        arguments(command)
        command.set_defaults(run=run)
    args = parser.parse_args(argv)
    return args.run(load_settings(args.config_file), args)


def notebooks_dir(s: Settings) -> Path:
    return s.path("notebooks_dir")


# ------------------------------------------------------------------------------------------------
# The commands.

def sync(s: Settings, args) -> int:
    for path in sync_pairs(s.docs_dir, notebooks_dir(s), s.languages):
        print(f"wrote {path}")
    return 0


def check(s: Settings, args) -> int:
    docs, langs, reader = s.docs_dir, s.languages, Reader()
    errors: list[NotebookError] = (check_translations(docs, langs) + check_untranslated(docs, langs)
                                   + check_pairs(docs, notebooks_dir(s), langs, reader))
    readable, pinned = [], pinned_torch(s.path("requirements"))
    for path in all_pages(s):
        try:
            parsed = reader.page(path)
            errors += check_prose(path, parsed) + check_tokens(path, pinned)
        except NotebookError as error:
            errors.append(error)
            continue
        readable.append(path)
        # Every cell left out of the comparison across torch versions, with its reason, for review.
        for number, cell in enumerate(parsed.code_cells, 1):
            if "volatile" in cell.metadata.get("tags", []):
                print(f"volatile: {path} (code cell {number}): {cell.metadata['reason']}")
    gpu_warnings, gpu_errors = recorded.check(recorded.Store(s.root / recorded.STORE_DIR, docs), readable, reader=reader)
    errors += gpu_errors + (gpu_warnings if args.strict_gpu else [])
    if not args.strict_gpu:
        for warning in gpu_warnings:
            print(f"warning: {warning.message}", file=sys.stderr)
    glossary = s.root / "CONTRIBUTING.zh.md"
    if "zh" in langs and glossary.exists():
        # One term per concept on the Chinese pages: the 术语表 in CONTRIBUTING.zh.md.
        errors += check_terms(page_paths(docs, "zh"), glossary, docs / "en" if "en" in langs else None, docs / "zh")
    for error in errors:
        print(error.message, file=sys.stderr)
    # Twins not translated yet: named, never a failure (the site shows them in English under a notice).
    for page in untranslated_pages(docs, langs):
        print(f"untranslated: {page} (shown in English under a notice until a translator removes the marker)",
              file=sys.stderr)
    # Translations behind their English page: named, never a failure (an English typo fix needs no Chinese).
    for stale in Ledger(s.root, docs, langs, reader).stale():
        print(stale.message, file=sys.stderr)
    gpu_note = f" ({len(gpu_warnings)} GPU recording warning(s))" if gpu_warnings and not args.strict_gpu else ""
    print(f"{len(errors)} problem(s)" if errors else f"all pages check out{gpu_note}")
    return 1 if errors else 0


def execute(s: Settings, args) -> int:
    env = environment(s)
    pages = args.pages or all_pages(s)
    machine = None
    if args.record:
        # Probe first: a machine without CUDA stops here, before any page runs.
        machine = recorded.probe_machine()
        if machine.gpu_count == 0 and args.record_tag == recorded.TAG:
            error = RecordingNeedsCuda(recorded.STORE_DIR, f"no CUDA device on this machine (torch {machine.torch}, "
                                                           f"{machine.torch_build})")
            print(error.message, file=sys.stderr)
            return 2
        if not args.pages:
            pages = recorded.pages_with(pages, args.record_tag)
    engine = Engine.from_settings(s, env, jobs=args.jobs or s.jobs or None, mode="force" if args.force else "auto",
                                  page_timeout=args.page_timeout, build_timeout=args.build_timeout)
    if args.explain:
        for path in pages:
            print(explain(engine, path))
        return 0
    report_path = args.report or engine.cache.folder / "report.json"
    # Every shard plans from the same durations, those of the last whole build: a shard's own report goes beside
    # it, so which shard ran last never changes the split.
    plan_from = report_path
    if args.shard and not args.report:
        report_path = engine.cache.folder / "shards" / "report-{}-of-{}.json".format(*args.shard)
    # Every check before any kernel starts: a broken page is reported at once, not after the others ran.
    problems = check_translations(s.docs_dir, s.languages) + check_pairs(s.docs_dir, notebooks_dir(s), s.languages,
                                                                                 engine.reader)
    if problems:
        for error in problems:
            print(error.message, file=sys.stderr)
        Report(env, [PageResult(engine.shown(e.path), "failed", error=e) for e in problems], 0.0, kernels=0).write(report_path)
        print(f"{len(problems)} problem(s) found before execution; nothing was run")
        return 1
    if args.shard:
        pages = split(pages, *args.shard, previous_durations(plan_from, s.root), root=s.root)
    report = _run_reporting_crashes(engine, pages, report_path)
    print(report.summary_line())
    report.write(report_path)
    if args.copy_cache:
        copied = export(engine.cache, report.used_keys, args.copy_cache)
        report.write(args.copy_cache / "report.json")
        print(f"copied {copied} cache entries of this run to {args.copy_cache} "
              f"(on the merging machine: python -m torchnotes merge {args.copy_cache}/ ...)")
    if machine is not None:
        store = recorded.Store(s.root / recorded.STORE_DIR, s.docs_dir)
        for path in recorded.record(report.results, store, machine, tag=args.record_tag):
            print(f"recorded {path}")
    for error in report.failures:
        print(error.message, file=sys.stderr)
    if args.prune and not report.failures:
        keep = report.used_keys | current_keys(engine, all_pages(s)) | compared_keys(s, all_pages(s))
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


def run_page(s: Settings, args) -> int:
    report = Engine.from_settings(s, environment(s), jobs=1, mode="auto").run([args.page])
    result = report.results[0]
    if result.status != "failed":
        _print_page(read_page(args.page), result.outputs, result.cell_seconds)
    if result.error:
        print(result.error.message, file=sys.stderr)
    print("FAILED" if result.error else "OK")
    return 1 if result.error else 0


def render(s: Settings, args) -> int:
    from torchnotes.publish.tree import Publisher

    mode = "off" if getattr(args, "no_execute", False) else "force" if getattr(args, "force", False) else None
    try:
        published = Publisher(s, environment(s), mode=mode).run(getattr(args, "out", None))
    except BuildFailed as failed:
        print(str(failed), file=sys.stderr)
        return 1
    print(published.summary_line())
    if args.command != "zensical":
        return 0
    from torchnotes.generators.zensical import build_all

    try:
        return build_all(s, args.config_file, published.out, args.site_dir)
    except GeneratorFailed as failed:
        print(failed.message, file=sys.stderr)
        return 1


# ------------------------------------------------------------------------------------------------
# Their arguments.

def parse_shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    k, n = int(k), int(n)
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"shard must be k/n with 1 <= k <= n, got {text}")
    return k, n


def _no_arguments(command) -> None:
    pass


def _check_arguments(command) -> None:
    command.add_argument("--strict-gpu", action="store_true",
                         help="stale or missing GPU recordings (recorded/) are errors, not warnings")


def _execute_arguments(command) -> None:
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


def _page_argument(command) -> None:
    command.add_argument("page", type=Path)


def _render_arguments(command) -> None:
    command.add_argument("out", nargs="?", type=Path, help="default: publish_dir of mkdocs.yml (build/publish)")
    command.add_argument("--no-execute", action="store_true", help="cache only: a page without cached outputs is an error")
    command.add_argument("--force", action="store_true", help="execute every page, ignoring the cache")


def _zensical_arguments(command) -> None:
    command.add_argument("--site-dir", type=Path, default=Path("site-zensical"))


COMMANDS = {
    "sync": (sync, "write every paired notebook (notebooks/) from its page", _no_arguments),
    "check": (check, "translations, notebook pairs, front matter, tags, safe prose, tokens, glossary; GPU recordings",
              _check_arguments),
    "execute": (execute, "execute pages through the cache and write the report (--explain: why each is a hit or miss)",
                _execute_arguments),
    "run": (run_page, "execute one page and print its cells with their outputs", _page_argument),
    "translated": (translated, "mark translations as up to date with their English page (translations/ledger.yml)",
                   translated_arguments),
    "summary": (summarise, "Markdown summary of the last report, for CI job summaries (drift included)",
                summary_arguments),
    "shards": (shards, "split the pages into balanced shards (the deploy workflow's plan)", shards_arguments),
    "merge": (merge, "merge cache folders (shards, compared releases) into this site's cache", merge_arguments),
    "render": (render, "execute what the cache lacks and write the publish tree (plain Markdown per language)",
               _render_arguments),
    "zensical": (render, "render, then build every language with Zensical", _zensical_arguments),
    "versions": (versions, "execute every page under each older torch of versions.yml and report what differs",
                 versions_arguments),
    "upgrade": (upgrade, "pin a new torch, install it, run every version, write the drift report", upgrade_arguments),
    "cache": (prune, "look after the execution cache (prune: remove entries no current page uses)", cache_arguments),
}


def _print_page(page, outputs, seconds=()) -> None:
    for number, cell in enumerate(page.code_cells, 1):
        outs = outputs.get(cell.id, [])
        took = f"  ({seconds[number - 1]:.2f} s)" if number <= len(seconds) else ""
        print(f"----- code cell {number} {cell.metadata.get('tags', [])}{took}")
        print(cell.source)
        print("-- output:")
        for out in outs:
            kind = out.get("output_type")
            if kind == "stream":
                print(out["text"], end="" if out["text"].endswith("\n") else "\n")
            elif kind == "error":
                print(strip_ansi("\n".join(out["traceback"][-3:])))
            else:
                data = out.get("data", {})
                print("[image]" if "image/png" in data else "".join(data.get("text/plain", "")))
