"""The commands about the pages themselves: sync their notebooks, check them, run one, mark translations."""

from __future__ import annotations

import sys
from pathlib import Path

from nbconvert.filters import strip_ansi

from torchnotes.cli.common import all_pages, environment
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import NotebookError
from torchnotes.layout import CacheFolder
from torchnotes.log import logger
from torchnotes.pages.freshness import Ledger
from torchnotes.pages.glossary import check_terms
from torchnotes.pages.listing import page_paths
from torchnotes.pages.notes import check_note_mentions
from torchnotes.pages.read import Reader, read_page
from torchnotes.pages.safety import check_prose
from torchnotes.pages.translations import untranslated_pages
from torchnotes.publish.features import FEATURES, Build
from torchnotes.publish.features.gpu import GpuRecordings
from torchnotes.publish.paired import sync_pairs
from torchnotes.settings import Settings


def sync(settings: Settings, args) -> int:
    for path in sync_pairs(settings.docs_dir, settings.path("notebooks_dir"), settings.languages):
        print(f"wrote {path}")
    return 0


def check(settings: Settings, args) -> int:
    """The page features' checks (the same list the build runs, in their reviewer's form), and the checks of the
    pages' own text: safe prose, mentions of the original notes, the Chinese glossary."""
    # The build's parse cache: a page parsed by the last build (or check) is not parsed again.
    docs, langs, reader = settings.docs_dir, settings.languages, Reader(CacheFolder(settings.path("cache_dir")).parsed)
    errors: list[NotebookError] = []
    readable = []
    for path in all_pages(settings):
        try:
            errors += check_prose(path, reader.page(path)) + check_note_mentions(path)
        except NotebookError as error:
            errors.append(error)
            continue
        readable.append(path)
    build = Build(settings, None, reader, checking=True, strict_gpu=args.strict_gpu)
    build.features = [feature(build) for feature in FEATURES]
    for feature in build.features:
        errors += feature.check(readable)
    glossary = settings.root / "CONTRIBUTING.zh.md"
    if "zh" in langs and glossary.exists():
        # One term per concept on the Chinese pages: the 术语表 in CONTRIBUTING.zh.md.
        # A twin still marked "to translate" is the English text under a notice (an imported tutorial, say): the
        # Chinese glossary has nothing to hold it to until a translator removes the marker.
        untranslated = set(untranslated_pages(docs, langs))
        translated = [page for page in page_paths(docs, "zh") if page not in untranslated]
        errors += check_terms(translated, glossary, docs / "en" if "en" in langs else None, docs / "zh")
    for error in errors:
        logger.error(error.message)
    gpu = next(f for f in build.features if isinstance(f, GpuRecordings))
    gpu_note = f" ({len(gpu.warnings)} GPU recording warning(s))" if gpu.warnings and not args.strict_gpu else ""
    print(f"{len(errors)} problem(s)" if errors else f"all pages check out{gpu_note}")
    return 1 if errors else 0


def run_page(settings: Settings, args) -> int:
    # Past a failing cell to the end of the page: every independent failure in one run, each cell with its output.
    report = Engine(settings, environment(settings), run=Run(jobs=1, mode="auto", keep_going=True)).run([args.page])
    result = report.results[0]
    if result.outputs:
        _print_page(read_page(args.page), result.outputs, result.cell_seconds)
    if result.error:
        print(result.error.message, file=sys.stderr)
    print("FAILED" if result.error else "OK")
    return 1 if result.error else 0


def translated(settings: Settings, args) -> int:
    ledger = Ledger(settings.root, settings.docs_dir, settings.languages)
    pages = args.pages
    if args.all:  # a site without a ledger yet starts one with every translation
        pages = ([stale.page for stale in ledger.stale()] if ledger.path.exists()
                 else [p for lang in settings.languages[1:] for p in page_paths(settings.docs_dir, lang)])
    if not pages:
        print("every translation is up to date" if args.all else "name the revised translations (docs/zh/...md), or --all")
        return 0 if args.all else 2
    for rel in ledger.mark(pages):
        print(f"up to date: {rel} (translations/ledger.yml)")
    return 0


def check_arguments(command) -> None:
    command.add_argument("--strict-gpu", action="store_true",
                         help="stale or missing GPU recordings (recorded/) are errors, not warnings")


def page_argument(command) -> None:
    command.add_argument("page", type=Path)


def translated_arguments(command) -> None:
    command.add_argument("pages", type=Path, nargs="*", help="the revised translations (or their English pages)")
    command.add_argument("--all", action="store_true", help="every translation that is behind its English page")


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
