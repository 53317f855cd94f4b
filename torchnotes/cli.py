"""Command line: the same engine as the MkDocs build, without MkDocs.

    python -m torchnotes sync              write notebooks/ from the pages
    python -m torchnotes check             translations, pairs, front matter and tags
    python -m torchnotes execute [PAGES]   execute (with the cache) and write the report
    python -m torchnotes run PAGE          execute one page and print its cells with their outputs
    python -m torchnotes execute --explain PAGE   why a page would be served from the cache or executed
    python -m torchnotes merge DIR...      merge shard caches into the site's cache (fails on a damaged entry)
    python -m torchnotes cache prune       remove cache entries that no current page uses
    python -m torchnotes summary           Markdown summary of the last report [--against main's report]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml
from nbconvert.filters import strip_ansi

from .cache import Cache
from .cache import merge as merge_caches
from .checks import check_pairs, check_translations, page_paths, sync_pairs
from .engine import Engine, PageResult, Report, current_keys, explain
from .environment import probe
from .errors import NotebookError
from .mkdocs.config import NotebooksConfig
from .pages import read_page
from .summary import summary


def settings(config_file: Path) -> dict:
    """The plugin's options from mkdocs.yml, so the CLI and the site build agree."""
    # The plugin's own defaults, so the two cannot drift apart.
    found = {name: option.default for name, option in NotebooksConfig._schema}
    data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_Loader) or {}
    docs_dir = data.get("docs_dir", "docs")
    for plugin in data.get("plugins", []):
        if isinstance(plugin, dict) and "torchnotes" in plugin:
            found.update(plugin["torchnotes"] or {})
    # Relative to where the command runs, so messages name files as the contributor types them.
    root = Path(os.path.relpath(config_file.resolve().parent))
    found["root"] = root
    found["docs_dir"] = root / docs_dir
    return found


class _Loader(yaml.SafeLoader):
    pass


# mkdocs.yml may carry !ENV or !!python tags for other plugins; the CLI only needs plain values.
_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


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
    sub.add_parser("check", help="translations, notebook pairs, front matter and tags")
    ex = sub.add_parser("execute", help="execute pages through the cache")
    ex.add_argument("pages", nargs="*", type=Path)
    ex.add_argument("--force", action="store_true", help="ignore the cache")
    ex.add_argument("--jobs", type=int)
    ex.add_argument("--shard", type=parse_shard, help="k/n: execute only the k-th of n balanced shards")
    ex.add_argument("--report", type=Path, help="where to write the JSON report (default: <cache_dir>/report.json)")
    ex.add_argument("--explain", action="store_true", help="say for each page why it is a cache hit or miss; run nothing")
    ex.add_argument("--prune", action="store_true", help="after a good build, remove entries no current page uses")
    ex.add_argument("--page-timeout", type=float, default=900, help="seconds for a whole page (default 900; 0: none)")
    ex.add_argument("--build-timeout", type=float, default=0, help="seconds for the whole build (default: none)")
    run = sub.add_parser("run", help="execute one page and print its cells and outputs")
    run.add_argument("page", type=Path)
    summ = sub.add_parser("summary", help="Markdown summary of the last report (for CI job summaries)")
    summ.add_argument("--against", type=Path, help="an earlier report (main's) to list changed outputs")
    merge = sub.add_parser("merge", help="merge cache folders (from shards) into this site's cache")
    merge.add_argument("sources", nargs="+", type=Path)
    cache_cmd = sub.add_parser("cache", help="look after the execution cache")
    cache_cmd.add_argument("action", choices=["prune"], help="prune: keep only the entries the current pages use")
    args = parser.parse_args(argv)

    cfg = settings(args.config_file)
    docs, langs = cfg["docs_dir"], cfg["languages"]
    notebooks = cfg["root"] / cfg["notebooks_dir"]
    if args.command == "sync":
        for path in sync_pairs(docs, notebooks, langs):
            print(f"wrote {path}")
        return 0
    if args.command == "check":
        errors: list[NotebookError] = check_translations(docs, langs) + check_pairs(docs, notebooks, langs)
        for lang in langs:
            for path in page_paths(docs, lang):
                try:
                    read_page(path)
                except NotebookError as error:
                    errors.append(error)
        for error in errors:
            print(error.message, file=sys.stderr)
        print(f"{len(errors)} problem(s)" if errors else "all pages check out")
        return 1 if errors else 0

    if args.command == "summary":
        folder = cfg["root"] / cfg["cache_dir"]
        print(summary(folder / "report.json", Cache(folder), args.against), end="")
        return 0
    if args.command == "merge":
        copied, damaged = merge_caches(args.sources, cfg["root"] / cfg["cache_dir"])
        for error in damaged:
            print(error.message, file=sys.stderr)
        print(f"merged {copied} entries into {cfg['root'] / cfg['cache_dir']}; {len(damaged)} damaged entries left out")
        return 1 if damaged else 0

    env = probe(cfg["root"] / cfg["requirements"])
    cache = Cache(cfg["root"] / cfg["cache_dir"])
    if args.command == "run":
        engine = Engine(cache, env, root=cfg["root"], jobs=1, timeout=cfg["timeout"], kernel=cfg["kernel"],
                        memory_limit_mb=cfg["memory_limit_mb"])
        report = engine.run([args.page])
        result = report.results[0]
        if result.status != "failed":
            _print_page(read_page(args.page), result.outputs)
        if result.error:
            print(result.error.message, file=sys.stderr)
        print("FAILED" if result.error else "OK")
        return 1 if result.error else 0

    everything = [p for lang in langs for p in page_paths(docs, lang)]
    if args.command == "cache":
        engine = Engine(cache, env, root=cfg["root"], kernel=cfg["kernel"])
        removed = cache.prune(current_keys(engine, everything))
        print(f"removed {len(removed)} entries no current page uses; {len(cache.keys())} kept")
        return 0
    pages = args.pages or everything
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
        from .shards import previous_durations, split

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
    for error in report.failures:
        print(error.message, file=sys.stderr)
    if args.prune and not report.failures:
        removed = cache.prune(report.used_keys | current_keys(engine, everything))
        print(f"pruned {len(removed)} unused cache entries")
    return 1 if report.failures else 0


def _print_page(page, outputs) -> None:
    code = [c for c in page.notebook.cells if c.cell_type == "code"]
    for number, (cell, outs) in enumerate(zip(code, outputs), 1):
        print(f"----- code cell {number} {cell.metadata.get('tags', [])}")
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
