"""Every page as a plain Python script (jupytext's percent format, the prose as comments).

`python page.py` prints what the page shows under its cells. A notebook shows a cell's last expression; a
script does not, so that expression becomes a `print`. What the notebook would not run as a script is
made explicit:

- a `raises-exception` cell is wrapped in `try`/`except` of its declared exception, which is printed as
  the page shows it (`RuntimeError: ...`), so the script goes on;
- a cell that is a `SyntaxError` on purpose, and a `skip-execution` cell, become comments;
- a `needs-cuda` cell runs only where `torch.cuda.is_available()`.

The file is `<page>-page.py`, never importable by that name: `random.py` beside a reader's script would
shadow Python's own `random`.

The seeds the build sets before a page's first cell (torchnotes/engine/kernel_setup.py) open the script, so the
random numbers are the page's.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import textwrap
import time
from pathlib import Path

import jupytext
import nbformat

from torchnotes import kept
from torchnotes.pages.cells import new_cell
from torchnotes.pages.read import Page
from torchnotes.pages.tags import NEEDS_CUDA, RAISES, SKIP_EXECUTION
from torchnotes.publish.pairing import paired_view
from torchnotes.storage import digest

_OWN = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()

SEEDS = """\
# The site's build seeds Python, NumPy and torch with 0 before the page's first cell: so does the script.
import random

import numpy
import torch

random.seed(0)
numpy.random.seed(0)
torch.manual_seed(0)"""


def script_name(stem: str) -> str:
    return f"{stem}-page.py"


class Scripts:
    """Scripts kept between builds under the hash of what they are made from (jupytext takes ~15 ms a page, and a
    no-change build writes every page's script again)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.used: set[str] = set()
        self.started = time.time()

    def script(self, page: Page, outputs: dict[str, list[dict]], header: str, lang: str | None = None,
               features: tuple = ()) -> str:
        cells = [[c.cell_type, c.source, c.get("id"), dict(c.metadata)] for c in reader_cells(page, lang, features)]
        key = digest([_OWN, jupytext.__version__, cells, outputs, header])
        self.used.add(key)
        body = kept.load(self.folder / f"{key}.json")
        if body is None:
            body = {"text": page_script(page, outputs, header, lang, features)}
            kept.store(self.folder / f"{key}.json", body)
        return body["text"]

    def prune(self) -> None:
        kept.prune(self.folder, self.used, before=self.started)


def reader_cells(page: Page, lang: str | None, features: tuple = ()) -> list:
    """The page's cells, with those the page `features` add for readers outside the site (pairing.as_paired); not
    to be changed (pairing.paired_view)."""
    if lang is None:
        return page.notebook.cells
    return paired_view(page, lang, features).cells


def page_script(page: Page, outputs: dict[str, list[dict]], header: str, lang: str | None = None,
                features: tuple = ()) -> str:
    """The page as a percent-format script; outputs: the build's, by cell id (decide which cells print); lang: the
    page's language, for the cells features add."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["jupytext"] = {"notebook_metadata_filter": "-all", "cell_metadata_filter": "-all"}
    notebook.cells.append(new_cell("markdown", header, "header"))
    notebook.cells.append(new_cell("code", SEEDS, "seeds"))
    for number, cell in enumerate(reader_cells(page, lang, features)):
        if cell.cell_type == "markdown":
            notebook.cells.append(new_cell("markdown", cell.source, f"cell-{number}"))
        elif cell.cell_type == "code":
            notebook.cells.append(new_cell("code", script_cell(cell, outputs.get(cell.get("id"), [])), f"cell-{number}"))
    return jupytext.writes(notebook, fmt="py:percent")


def script_cell(cell, outputs: list[dict]) -> str:
    tags = set(cell.metadata.get("tags", []))
    source = cell.source.rstrip()
    if SKIP_EXECUTION in tags:
        return _commented("not run by the site's build (skip-execution): shown, not executed", source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _commented("a SyntaxError on purpose: the page shows the error", source)
    source = _print_last_expression(source, tree, outputs, ran=NEEDS_CUDA not in tags)
    if RAISES in tags:
        source = _expecting(source, cell.metadata["raises"])
    if NEEDS_CUDA in tags:
        source = "if torch.cuda.is_available():  # needs a CUDA GPU (needs-cuda)\n" + textwrap.indent(source, "    ")
    return source


def _print_last_expression(source: str, tree: ast.Module, outputs: list[dict], ran: bool) -> str:
    """The cell's last expression printed, as the notebook shows it; a value the notebook did not show stays."""
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or source.endswith(";") or _is_print(last.value):
        return source
    shown = [o for o in outputs if o.get("output_type") == "execute_result"]
    if ran and not shown:
        return source  # the value was None: the notebook printed nothing
    text = "".join(shown[0]["data"].get("text/plain", "")) if shown else ""
    lines = source.splitlines()
    first, final = last.lineno - 1, last.end_lineno - 1
    expression = ast.get_source_segment(source, last.value)
    if isinstance(last.value, ast.Tuple) and not expression.startswith("("):
        expression = f"({expression})"  # `a, b` shows the tuple
    # A string shows with its quotes in a notebook (its repr); every other value here prints the same by str.
    call = f"print(repr({expression}))" if text[:1] in ("'", '"') else f"print({expression})"
    line = lines[first][:last.col_offset] + call + lines[final].encode()[last.end_col_offset:].decode()
    return "\n".join(lines[:first] + [line] + lines[final + 1:])


def _is_print(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"


def _expecting(source: str, raises: str) -> str:
    body = textwrap.indent(source, "    ")
    if isinstance(getattr(builtins, raises, None), type):
        return (f"try:\n{body}\nexcept {raises} as error:  # raises on purpose: the page shows this error\n"
                f'    print(f"{raises}: {{error}}")')
    # Not a built-in name (torch's AcceleratorError, pickle's UnpicklingError): matched by its class name.
    return (f"try:\n{body}\nexcept Exception as error:  # raises on purpose: the page shows this error\n"
            f"    if type(error).__name__ != {raises!r}:\n        raise\n"
            f'    print(f"{{type(error).__name__}}: {{error}}")')


def _commented(why: str, source: str) -> str:
    return f"# {why}\n" + textwrap.indent(source, "# ", lambda line: True)
