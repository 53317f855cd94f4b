"""Command line: the same engine as the MkDocs build, without MkDocs.

    python -m torchnotes sync              write notebooks/ from the pages
    python -m torchnotes check             translations, pairs, front matter, tags, safe prose, versions in prose [--strict-gpu]
    python -m torchnotes execute [PAGES]   execute (with the cache) and write the report [--record on CUDA]
    python -m torchnotes run PAGE          execute one page and print its cells with their outputs
    python -m torchnotes merge DIR...      merge shard caches into the site's cache
    python -m torchnotes shards --count N  split the pages into N shards balanced by the last report [--json]
    python -m torchnotes execute --explain PAGE   why a page would be served from the cache or executed
    python -m torchnotes merge DIR...      merge shard caches into the site's cache (fails on a damaged entry)
    python -m torchnotes cache prune       remove cache entries that no current page uses
    python -m torchnotes summary           Markdown summary of the last report [--against main's report]
    python -m torchnotes render [OUT]      execute what the cache lacks and write the publish tree (plain Markdown)
    python -m torchnotes zensical          render, then build the site with Zensical into site-zensical/
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nbconvert.filters import strip_ansi

from . import recorded
from .cache import Cache
from .cache import merge as merge_caches
from .checks import check_pairs, check_translations, check_untranslated, page_paths, sync_pairs
from .engine import Engine, PageResult, Report, current_keys, explain
from .environment import probe
from .errors import BuildFailed, GeneratorFailed, NotebookError, RecordingNeedsCuda
from .glossary import check_terms
from .pages import prune_parsed, read_page
from .safety import check_prose
from .settings import load as load_settings
from .shards import matrix, plan, previous_durations, split
from .summary import summary
from .versions import check_literal_versions, check_tokens, pinned_torch


def parse_shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    k, n = int(k), int(n)
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"shard must be k/n with 1 <= k <= n, got {text}")
    return k, n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torchnotes", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-f", "--config-file", type=Path, default=Path("mkdocs.yml"))
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sync", help="write every paired notebook from its page")
    chk = sub.add_parser("check", help="translations, notebook pairs, front matter tags, safe prose; GPU recordings")
    chk.add_argument("--strict-gpu", action="store_true",
                     help="stale or missing GPU recordings (recorded/) are errors, not warnings")
    ex = sub.add_parser("execute", help="execute pages through the cache")
    ex.add_argument("pages", nargs="*", type=Path)
    ex.add_argument("--force", action="store_true", help="ignore the cache")
    ex.add_argument("--jobs", type=int)
    ex.add_argument("--shard", type=parse_shard, help="k/n: execute only the k-th of n balanced shards")
    ex.add_argument("--report", type=Path, help="where to write the JSON report (default: <cache_dir>/report.json)")
    ex.add_argument("--record", action="store_true",
                    help="on a CUDA machine: write the needs-cuda outputs into recorded/ (default pages: those with "
                         "needs-cuda cells)")
    # Tests record their own tag on CPU through this same path (recorded.TEST_TAG); not for pages.
    ex.add_argument("--record-tag", default=recorded.TAG, help=argparse.SUPPRESS)
    ex.add_argument("--explain", action="store_true", help="say for each page why it is a cache hit or miss; run nothing")
    ex.add_argument("--prune", action="store_true", help="after a good build, remove entries no current page uses")
    ex.add_argument("--page-timeout", type=float, default=900, help="seconds for a whole page (default 900; 0: none)")
    ex.add_argument("--build-timeout", type=float, default=0, help="seconds for the whole build (default: none)")
    run = sub.add_parser("run", help="execute one page and print its cells and outputs")
    run.add_argument("page", type=Path)
    summ = sub.add_parser("summary", help="Markdown summary of the last report (for CI job summaries)")
    summ.add_argument("--against", type=Path, help="an earlier report (main's) to list changed outputs")
    shards = sub.add_parser("shards", help="split the pages into balanced shards (the deploy workflow's plan)")
    shards.add_argument("--count", type=int, required=True, help="number of shards")
    shards.add_argument("--json", action="store_true", help="a GitHub Actions matrix, on one line")
    shards.add_argument("--report", type=Path, help="the report whose durations balance the split")
    merge = sub.add_parser("merge", help="merge cache folders (from shards) into this site's cache")
    merge.add_argument("sources", nargs="+", type=Path)
    render = sub.add_parser("render", help="write the publish tree: one folder of plain Markdown per language")
    render.add_argument("out", nargs="?", type=Path, help="default: publish_dir of mkdocs.yml (build/publish)")
    render.add_argument("--no-execute", action="store_true", help="cache only: a page without cached outputs is an error")
    render.add_argument("--force", action="store_true", help="execute every page, ignoring the cache")
    zen = sub.add_parser("zensical", help="render, then build every language with Zensical")
    zen.add_argument("--site-dir", type=Path, default=Path("site-zensical"))
    cache_cmd = sub.add_parser("cache", help="look after the execution cache")
    cache_cmd.add_argument("action", choices=["prune"], help="prune: keep only the entries the current pages use")
    args = parser.parse_args(argv)

    s = load_settings(args.config_file)
    cfg = {"root": s.root, "docs_dir": s.docs_dir, **{name: getattr(s, name) for name in s.options}}
    docs, langs = cfg["docs_dir"], cfg["languages"]
    notebooks = cfg["root"] / cfg["notebooks_dir"]
    if args.command == "sync":
        for path in sync_pairs(docs, notebooks, langs):
            print(f"wrote {path}")
        return 0
    if args.command == "check":
        errors: list[NotebookError] = (check_translations(docs, langs) + check_untranslated(docs, langs)
                                       + check_pairs(docs, notebooks, langs))
        readable = []
        # Literal versions are judged against the pin: without a torch== line there is nothing to compare with.
        pinned = pinned_torch(cfg["root"] / cfg["requirements"])
        for lang in langs:
            for path in page_paths(docs, lang):
                try:
                    page = read_page(path)
                    errors += check_prose(path, page) + check_tokens(path, page)
                    errors += check_literal_versions(path, page, pinned) if pinned else []
                except NotebookError as error:
                    errors.append(error)
                else:
                    readable.append(path)
        gpu_warnings, gpu_errors = recorded.check(recorded.Store(cfg["root"] / recorded.STORE_DIR, docs), readable)
        errors += gpu_errors + (gpu_warnings if args.strict_gpu else [])
        if not args.strict_gpu:
            for warning in gpu_warnings:
                print(f"warning: {warning.message}", file=sys.stderr)
        glossary = cfg["root"] / "CONTRIBUTING.zh.md"
        if "zh" in langs and glossary.exists():
            # One term per concept on the Chinese pages: the 术语表 in CONTRIBUTING.zh.md.
            errors += check_terms(page_paths(docs, "zh"), glossary)
        for error in errors:
            print(error.message, file=sys.stderr)
        gpu_note = f" ({len(gpu_warnings)} GPU recording warning(s))" if gpu_warnings and not args.strict_gpu else ""
        print(f"{len(errors)} problem(s)" if errors else f"all pages check out{gpu_note}")
        return 1 if errors else 0

    if args.command == "summary":
        folder = cfg["root"] / cfg["cache_dir"]
        print(summary(folder / "report.json", Cache(folder), args.against), end="")
        return 0
    if args.command == "shards":
        return _shards(args, cfg, [p for lang in langs for p in page_paths(docs, lang)])
    if args.command == "merge":
        copied, damaged = merge_caches(args.sources, cfg["root"] / cfg["cache_dir"])
        for error in damaged:
            print(error.message, file=sys.stderr)
        print(f"merged {copied} entries into {cfg['root'] / cfg['cache_dir']}; {len(damaged)} damaged entries left out")
        return 1 if damaged else 0

    env = probe(cfg["root"] / cfg["requirements"])
    if args.command in ("render", "zensical"):
        from .publish import Publisher

        mode = "off" if getattr(args, "no_execute", False) else "force" if getattr(args, "force", False) else None
        try:
            published = Publisher(s, env, mode=mode).run(getattr(args, "out", None))
        except BuildFailed as failed:
            print(str(failed), file=sys.stderr)
            return 1
        print(published.summary_line())
        if args.command == "zensical":
            from .zensical import build_all

            try:
                return build_all(s, args.config_file, published.out, args.site_dir)
            except GeneratorFailed as failed:
                print(failed.message, file=sys.stderr)
                return 1
        return 0
    cache = Cache(cfg["root"] / cfg["cache_dir"])
    if args.command == "run":
        engine = Engine(cache, env, root=cfg["root"], jobs=1, timeout=cfg["timeout"], kernel=cfg["kernel"],
                        memory_limit_mb=cfg["memory_limit_mb"])
        report = engine.run([args.page])
        result = report.results[0]
        if result.status != "failed":
            _print_page(read_page(args.page), result.outputs, result.cell_seconds)
        if result.error:
            print(result.error.message, file=sys.stderr)
        print("FAILED" if result.error else "OK")
        return 1 if result.error else 0

    everything = [p for lang in langs for p in page_paths(docs, lang)]
    if args.command == "cache":
        engine = Engine(cache, env, root=cfg["root"], kernel=cfg["kernel"])
        removed = cache.prune(current_keys(engine, everything))
        parsed = prune_parsed()  # current_keys has just read every current page
        print(f"removed {len(removed)} entries no current page uses; {len(cache.keys())} kept"
              f" ({len(parsed)} parsed page(s) of old versions removed)")
        return 0
    pages = args.pages or everything
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
    engine = Engine(cache, env, root=cfg["root"], jobs=args.jobs or cfg["jobs"] or None, timeout=cfg["timeout"],
                    kernel=cfg["kernel"], memory_limit_mb=cfg["memory_limit_mb"],
                    mode="force" if args.force else "auto", page_timeout=args.page_timeout,
                    build_timeout=args.build_timeout)
    if args.explain:
        for path in pages:
            print(explain(engine, path))
        return 0
    report_path = args.report or cache.folder / "report.json"
    # Every check before any kernel starts: a broken page is reported at once, not after the others ran.
    problems = check_translations(docs, langs) + check_pairs(docs, notebooks, langs)
    if problems:
        for error in problems:
            print(error.message, file=sys.stderr)
        failed = [PageResult(engine.shown(e.path), "failed", error=e) for e in problems]
        Report(env, failed, 0.0, kernels=0).write(report_path)
        print(f"{len(problems)} problem(s) found before execution; nothing was run")
        return 1
    if args.shard:
        pages = split(pages, *args.shard, previous_durations(report_path, cfg["root"]), root=cfg["root"])
    try:
        report = engine.run(pages)
    except BaseException as crash:
        # The PR summary must not read an older report, or none, as "0 failed".
        crashed = PageResult("(build)", "failed", error=NotebookError("(build)", f"the build stopped: {crash!r}"))
        Report(env, [crashed], 0.0, kernels=0).write(report_path)
        raise
    print(report.summary_line())
    report.write(report_path)
    if args.record:
        store = recorded.Store(cfg["root"] / recorded.STORE_DIR, docs)
        for path in recorded.record(report.results, store, machine, tag=args.record_tag):
            print(f"recorded {path}")
    for error in report.failures:
        print(error.message, file=sys.stderr)
    if args.prune and not report.failures:
        removed = cache.prune(report.used_keys | current_keys(engine, everything))
        prune_parsed()
        print(f"pruned {len(removed)} unused cache entries")
    return 1 if report.failures else 0


def _shards(args, cfg: dict, pages: list) -> int:
    if args.count < 1:
        print(f"--count must be at least 1, got {args.count}", file=sys.stderr)
        return 2
    spaced = [str(p) for p in pages if any(c.isspace() for c in str(p))]
    if spaced:
        # The matrix passes each shard its pages space-separated.
        print("page paths may not contain whitespace; rename: " + ", ".join(spaced), file=sys.stderr)
        return 1
    report = args.report or cfg["root"] / cfg["cache_dir"] / "report.json"
    durations = previous_durations(report, cfg["root"])
    shards = plan(pages, args.count, durations, root=cfg["root"])
    if args.json:
        print(json.dumps(matrix(shards), separators=(",", ":")))
        return 0
    default = sum(durations.values()) / len(durations) if durations else 1.0
    for k, shard in enumerate(shards, 1):
        seconds = sum(durations.get(str(p), default) for p in shard)
        print(f"shard {k}/{args.count}: {len(shard)} pages, about {seconds:.0f} s")
        for page in shard:
            print(f"  {page}")
    return 0


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
