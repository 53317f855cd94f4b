"""What reading an imported tutorial's code finds, before and besides running it.

Before a page is written, `check_imports` stops the import on a package this project does not install. Once it is
written, `read_code` reads the page's code cells (numbered as the engine numbers them) and names, each with its fix,
what fails or misleads however the cells run: a module used without its import, a sketch that uses names no cell
above it defines (the fix: the skip-execution tag), a call written for an older API (`OUTDATED`). All from the
syntax tree, never the text: a comment or a string that mentions a call is no call.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util

from tutorial_rst import TutorialImportError

from torchnotes.engine.blame import bound_names
from torchnotes.errors import NotebookError
from torchnotes.pages.read import Page
from torchnotes.pages.tags import NEEDS_CUDA, SKIP_EXECUTION

# The names tutorials use as if imported, by convention, and the import each stands for.
ALIASES = {"np": "import numpy as np", "plt": "import matplotlib.pyplot as plt", "pd": "import pandas as pd",
           "nn": "from torch import nn", "F": "import torch.nn.functional as F", "optim": "from torch import optim"}
# Packages of the official tutorials. One of these used by attribute without its import (the tuning guide's
# getattr(torchvision.models, "resnet50")) is a package to install; any other unbound name used so
# (optimizer.zero_grad() in a sketch) is a sketch's variable, which no package check may stop the import for.
TUTORIAL_PACKAGES = frozenset({"torchvision", "torchaudio", "torchtext", "torchdata", "torchrec", "transformers",
                               "datasets", "PIL", "matplotlib", "pandas", "scipy", "sklearn", "onnx", "onnxruntime",
                               "captum", "tensorboard", "gym", "gymnasium", "cv2", "timm"})
# What IPython gives every cell besides the builtins.
IPYTHON_NAMES = frozenset({"get_ipython", "display", "In", "Out", "exit", "quit", "_"})
# The modes torch.compile knows (torch._inductor.list_mode_options(); the tests compare): its other strings are backends.
COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class MissingModule(TutorialImportError):
    """The tutorial imports a package this project does not install: its page could never build."""


class UnimportedModule(NotebookError):
    """A module the code uses but never imports: a NameError wherever it runs; the hint names the import."""


class SketchCell(NotebookError):
    """A cell that uses names no code cell that runs above it defines: a sketch, which cannot run here."""
    hint = ('A sketch is shown, not run: tag it ```python tags=["skip-execution"]; or define the names in a cell '
            "above it.")


class OutdatedCall(NotebookError):
    """A call written for an older PyTorch API; the hint is the call written for this one."""


def module_import(name: str) -> str | None:
    """The import that binds `name` as a module, when it names one: a conventional alias (np), or a module this
    interpreter (the build's kernel) finds."""
    if name in ALIASES:
        return ALIASES[name]
    return f"import {name}" if importlib.util.find_spec(name) is not None else None


def check_imports(code: list[str], where: str) -> None:
    """Fail on the first top-level module this interpreter cannot find: one the tutorial imports, or a package it
    uses by attribute without importing it (`torchvision.models.resnet18()`, with torchvision imported by some other
    page of the official tutorials)."""
    bound = {name for source in code for name in bound_names(source)}
    for number, source in enumerate(code, 1):
        for node in ast.walk(ast.parse(source)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            how = "imports"
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in bound
                    and (node.value.id in TUTORIAL_PACKAGES or node.value.id in ALIASES)):
                name = node.value.id
                names, how = [ALIASES[name].split()[1] if name in ALIASES else name], "uses, without importing it,"
            for name in names:
                top = name.split(".")[0]
                if top != "__future__" and importlib.util.find_spec(top) is None:
                    raise MissingModule(
                        f"{where} (code cell {number}, line {node.lineno}): {how} '{top}', which this project does "
                        f"not install, so the page cannot run. Either add the package to requirements.txt with a "
                        f"pinned version (e.g. {top}==X.Y.Z) and run 'bash scripts/setup.sh', or drop "
                        f"{'the import and ' if how == 'imports' else ''}the code that uses it from the .py file; "
                        "then import again.")


def read_code(page: Page, shown: str) -> list[NotebookError]:
    """Every problem the page's code shows before it runs, in cell order, each naming its fix."""
    cells = page.code_cells
    trees = [_parse(cell.source) for cell in cells]
    runs = [tree is not None and not {SKIP_EXECUTION, NEEDS_CUDA} & set(cell.metadata.get("tags", []))
            for cell, tree in zip(cells, trees)]
    found = _names(page, shown, trees, runs) + _outdated(page, shown, trees)
    return sorted(found, key=lambda error: error.cell)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:  # the run reports it, with its line
        return None


def _loads(node: ast.AST, deferred: bool = False):
    """(name, node, deferred) for each name the code reads; deferred: inside a function body, read when it is
    called, by which time later cells may have defined it."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        yield node.id, node, deferred
    body = node.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else None
    body = body if isinstance(body, list) else [body] if body is not None else []
    for child in ast.iter_child_nodes(node):
        yield from _loads(child, deferred or any(child is part for part in body))


def _attribute_bases(tree: ast.AST) -> set[str]:
    return {node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}


def _unbound(trees: list, runs: list[bool], binds: list[set[str]], skipped: set[int]) -> dict[int, list[tuple]]:
    """{cell index: [(name, node)]}: the names each running cell reads that no running cell before it (or itself)
    binds, the cells in `skipped` left out as if tagged skip-execution."""
    live = [i for i, run in enumerate(runs) if run and i not in skipped]
    anywhere = set().union(*(binds[i] for i in live)) if live else set()
    so_far, missing = set(), {}
    for i in live:
        so_far |= binds[i]
        seen, names = set(), []
        for name, node, deferred in _loads(trees[i]):
            if name in seen or name in (anywhere if deferred else so_far) or hasattr(builtins, name) \
                    or name in IPYTHON_NAMES:
                continue
            seen.add(name)
            names.append((name, node))
        if names:
            missing[i] = names
    return missing


def _names(page: Page, shown: str, trees: list, runs: list[bool]) -> list[NotebookError]:
    """Modules used without an import, and sketches. A cell that only reads what a sketch defines is one too, once
    that sketch is skipped: so the sketches grow until they are all found, and each is named in one report."""
    if any(isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
           for tree in trees if tree is not None for node in ast.walk(tree)):
        return []  # a star import binds names no reading can know
    binds = [bound_names(cell.source) for cell in page.code_cells]
    modules: dict[str, tuple[int, ast.AST]] = {}  # module name -> its first use
    sketches: dict[int, list[tuple[str, ast.AST]]] = {}
    while True:
        missing = _unbound(trees, runs, binds, set(sketches))
        grown = False
        for i, names in missing.items():
            attributes = _attribute_bases(trees[i])
            for name, node in names:
                if (name in ALIASES or name in attributes) and module_import(name):
                    modules.setdefault(name, (i, node))
            unknown = [(name, node) for name, node in names if name not in modules]
            if unknown:  # a cell already found a sketch is left out of _unbound's reading
                sketches[i], grown = unknown, True
        if not grown:
            break
    errors: list[NotebookError] = []
    # The import goes into the first cell that still runs once the sketches are skipped: one in a sketch would not run.
    first = next((i for i, run in enumerate(runs) if run and i not in sketches), 0)
    for name, (i, node) in modules.items():
        errors.append(UnimportedModule(
            shown, f"uses '{name}', a module that no code cell running above it imports", cell=i + 1,
            line=page.lines[i] + node.lineno, hint=f"add `{module_import(name)}` at the top of code cell {first + 1}, "
                                                  "in both pages"))
    for i, names in sketches.items():
        defined = {name: j + 1 for name, _ in names for j in sketches if j < i and name in binds[j]}
        told = ", ".join(f"{name} (only code cell {defined[name]}, itself a sketch, defines it)" if name in defined
                         else name for name, _ in names)
        errors.append(SketchCell(shown, f"uses names that no code cell running above it defines: {told}", cell=i + 1,
                                 line=page.lines[i] + names[0][1].lineno))
    return errors


# --- calls written for an older API ----------------------------------------------------------------------------


def _compile(call: ast.Call, text) -> tuple[str, str | None] | None:
    """torch.compile(m, "reduce-overhead"): its parameters after the model are keyword-only, so the call raises
    TypeError; older tutorials passed the mode by position."""
    if len(call.args) < 2 or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    why = "torch.compile takes only the model by position; its other parameters are keywords"
    extra = call.args[1:]
    if len(extra) == 1 and isinstance(extra[0], ast.Constant) and isinstance(extra[0].value, str):
        key = "mode" if extra[0].value in COMPILE_MODES else "backend"
        parts = [text(call.args[0]), f"{key}={text(extra[0])}", *(text(k) for k in call.keywords)]
        return why, f"{text(call.func)}({', '.join(parts)})"
    return why, None


def _moved(new: str, device: str, old: tuple[str, ...]):
    """A class that moved to torch.amp, which takes the device first: the old call's positional arguments become
    keywords by the old parameters' names."""
    def rewrite(call: ast.Call, text) -> tuple[str, str | None]:
        if len(call.args) > len(old) or any(isinstance(a, ast.Starred) for a in call.args):
            return f"deprecated: use {new}({device}, ...)", None
        parts = [device, *(f"{name}={text(arg)}" for name, arg in zip(old, call.args)), *(text(k) for k in call.keywords)]
        return f"deprecated: {new} takes the device first", f"{new}({', '.join(parts)})"
    return rewrite


# Calls written for an older PyTorch, by the name the code calls (imports followed): each entry gives the reason and
# the call as this release writes it (None where no one rewrite fits). Add a row for the next one found.
OUTDATED = {
    "torch.compile": _compile,
    "torch.cuda.amp.autocast": _moved("torch.amp.autocast", '"cuda"', ("enabled", "dtype", "cache_enabled")),
    "torch.cpu.amp.autocast": _moved("torch.amp.autocast", '"cpu"', ("enabled", "dtype", "cache_enabled")),
    "torch.cuda.amp.GradScaler": _moved("torch.amp.GradScaler", '"cuda"',
                                        ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")),
}


def _imported_as(trees: list) -> dict[str, str]:
    """{local name: what it names}: `import torch as t` gives t -> torch, `from torch import compile` compile ->
    torch.compile."""
    names = {}
    for tree in trees:
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                names.update({a.asname: a.name for a in node.names if a.asname})
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return names


def _dotted(node: ast.AST, names: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([names.get(node.id, node.id), *reversed(parts)])


def _outdated(page: Page, shown: str, trees: list) -> list[NotebookError]:
    """Every call of the OUTDATED table, in every cell (a skipped sketch is still code a reader copies)."""
    names, errors = _imported_as(trees), []
    for i, (cell, tree) in enumerate(zip(page.code_cells, trees)):
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)] if tree is not None else []
        for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset)):
            rule = OUTDATED.get(_dotted(call.func, names) or "")
            fix = rule(call, lambda node, source=cell.source: ast.get_source_segment(source, node)) if rule else None
            if fix is None:
                continue
            why, new = fix
            old = ast.get_source_segment(cell.source, call)
            hint = f"write `{new}` instead of `{old}`, in both pages" if new else "rewrite the call by hand, in both pages"
            errors.append(OutdatedCall(shown, f"outdated API: {why}", cell=i + 1, line=page.lines[i] + call.lineno,
                                       hint=hint))
    return errors
