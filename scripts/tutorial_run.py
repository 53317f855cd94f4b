"""The import's one run of a new page, and what its outputs tell the contributor besides its failures.

The engine runs the page pair through its cache, past a failing cell to the end (every failing cell in one
run: torchnotes.errors.CellsFailed). The outputs it kept are then read, not run again, for the deprecation
warnings each cell printed: the page runs today, but a later release may remove what it calls.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from torchnotes.engine.environment import probe
from torchnotes.engine.results import Report
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import NotebookError
from torchnotes.settings import load as load_settings

# A warning as Python's warnings module prints it on stderr: "<file>:<line>: FutureWarning: <message>".
_WARNING = re.compile(r"^(?:.*?:\d+: )?(?P<kind>[A-Za-z]*Warning): (?P<text>.+)$", re.M)
# Deprecations by category, and those that say so in the text of a warning of a broader category.
_DEPRECATION = ("DeprecationWarning", "PendingDeprecationWarning")
_SAYS_DEPRECATED = ("FutureWarning", "UserWarning")


class DeprecatedApi(NotebookError):
    """A cell that runs, printing a warning that what it calls is deprecated."""
    hint = ("The page runs, but a later PyTorch may remove this: move the code to what the warning names, in both "
            "pages, or tell the reader that it is deprecated.")


def run_once(root: Path, pages: list[Path]) -> Report:
    """Execute the new pages through the engine and its cache, going on past a failing cell: every failure at once,
    each with its error; the build that follows reads the cache."""
    settings = load_settings(root / "mkdocs.yml")
    settings = replace(settings, root=root.resolve(), docs_dir=(root / settings.docs_dir.relative_to(settings.root)).resolve())
    engine = Engine(settings, probe(settings.path("requirements")), run=Run(keep_going=True))
    return engine.run(pages)


def deprecations(report: Report) -> list[DeprecatedApi]:
    """Each deprecation warning a cell printed, once per cell: the twins share their code and so their warnings,
    which are named under the first page (the English one)."""
    found, seen = [], set()
    for result in report.results:
        page = result.source
        for number, cell in enumerate(page.code_cells if page else [], 1):
            for out in result.outputs.get(cell.id, []):
                if out.get("output_type") != "stream" or out.get("name") != "stderr":
                    continue
                for warning in _WARNING.finditer(out["text"]):
                    kind, text = warning.group("kind"), warning.group("text").strip()
                    if kind not in _DEPRECATION and not (kind in _SAYS_DEPRECATED and re.search(r"deprecat", text, re.I)):
                        continue
                    if (number, kind, text) in seen:
                        continue
                    seen.add((number, kind, text))
                    found.append(DeprecatedApi(result.page, f"{kind}: {text}", cell=number, line=page.lines[number - 1]))
    return found
