"""Command line: the same engine as the MkDocs build, without MkDocs. One function per command, in one table
(COMMANDS, at the end): `python -m torchnotes --help` lists them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nbconvert.filters import strip_ansi

from torchnotes import gpu as recorded
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
from torchnotes.cli.execute import execute, execute_arguments
from torchnotes.engine.scheduler import Engine
from torchnotes.errors import BuildFailed, GeneratorFailed, NotebookError
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
from torchnotes.pages.notes import check_note_mentions
from torchnotes.pages.read import Reader, read_page
from torchnotes.pages.safety import check_prose
from torchnotes.pages.tokens import check_tokens
from torchnotes.settings import Settings
from torchnotes.settings import load as load_settings
from torchnotes.versions.run import pinned_torch


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
            errors += check_prose(path, parsed) + check_tokens(path, pinned) + check_note_mentions(path)
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

def _no_arguments(command) -> None:
    pass


def _check_arguments(command) -> None:
    command.add_argument("--strict-gpu", action="store_true",
                         help="stale or missing GPU recordings (recorded/) are errors, not warnings")


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
                execute_arguments),
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
