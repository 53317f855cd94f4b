"""Which error a failing cell is: a package not installed, an API an older release had, a page writing into
docs/, an exercise's wrong solution, or a plain failure; and which earlier failure a NameError comes from."""

from __future__ import annotations

import ast
import re

from torchnotes.errors import CellFailed, MissingModule, NotebookError, OutdatedApi, SolutionFailed, WroteIntoPages
from torchnotes.pages.tags import SOLUTION

# What code written for an older release raises: an argument, attribute or name the API no longer has.
_API_CHANGE = {
    # A value that is None where an older release returned a tensor (zero_grad() sets .grad to None since 2.0).
    "TypeError": re.compile(r"unexpected keyword argument|got an invalid combination of arguments|"
                            r"takes \d+ positional arguments? but \d+ (?:was|were) given|missing \d+ required|"
                            r"'NoneType' object is not (?:subscriptable|iterable|callable)"),
    "AttributeError": re.compile(r"has no attribute"),
    "ImportError": re.compile(r"cannot import name"),
    "RuntimeError": re.compile(r"\b(?:deprecated|no longer supported|has been removed)\b"),
}


def bound_names(source: str) -> set[str]:
    """The names a cell's code binds (assigns, imports, defines, takes as a parameter or an exception); none for
    code that does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def solution_named(cells, index: int, kind, reason: str):
    """A failing solution cell names its exercise, numbered as the page numbers them (the n-th solution cell solves
    the n-th exercise: the exercises feature checks that every page pairs them so)."""
    if SOLUTION not in cells[index].metadata.get("tags", []):
        return kind, reason
    number = sum(SOLUTION in cell.metadata.get("tags", []) for cell in cells[:index + 1])
    return SolutionFailed, f"the solution of exercise {number} fails: {reason}"


# What kernel_setup._guard_pages raises for a write into the pages' folder.
WROTE_INTO_PAGES = "[torchnotes] the page writes into the pages' folder"


def error_kind(ename: str, evalue: str) -> type[CellFailed]:
    """The error type of a cell that raised: a package that is not installed (the fix is in requirements.txt), an
    API change (the fix is in the code), or a failure (the code, or a raises-exception tag when it is the point)."""
    if ename == "ModuleNotFoundError":
        return MissingModule
    if ename == "PermissionError" and evalue.startswith(WROTE_INTO_PAGES):
        return WroteIntoPages
    pattern = _API_CHANGE.get(ename.rsplit(".", 1)[-1])
    return OutdatedApi if pattern is not None and pattern.search(evalue) else CellFailed


def relocated(error: NotebookError, shown: str, page, twins: list[str]) -> NotebookError:
    """The same failure, named against this page (its own file and fence line), naming the pages that share the code."""
    line = page.lines[error.cell - 1] if error.cell is not None and error.cell - 1 < len(page.lines) else error.line
    reason = error.reason
    if twins:
        reason += f" (the same code as {', '.join(twins)})"
    return type(error)(shown, reason, cell=error.cell, line=line, hint=error.hint, details=error.details)
