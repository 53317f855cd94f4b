"""The engine's own source, derived from its imports: editing any module the scheduler runs re-executes pages."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # torchnotes/
START = "engine/scheduler.py"


def engine_sources(package: Path = PACKAGE, start: str = START) -> list[str]:
    """The modules whose code decides what a cached entry holds, derived, never kept by hand: the scheduler, every
    module of this package it imports (directly or not, `from torchnotes.x import y` or relative), and every file
    those modules name beside them (engine/kernel_setup.py, which the kernel runs from its path). A new module the
    engine imports is in the key by being imported; the renderer and the generators are not, since they run on
    every build, from the entry. Paths are relative to the package folder."""
    package = Path(package)
    todo, seen = [start], set()
    while todo:
        name = todo.pop()
        if name in seen or not (package / name).is_file():
            continue
        seen.add(name)
        here = Path(name).parent
        tree = ast.parse((package / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                todo += _imported(node, here, package.name)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(".py"):
                todo.append((here / node.value).as_posix())
    return sorted(seen)


def _imported(node: ast.ImportFrom, here: Path, top: str) -> list[str]:
    """The files of this package an import may name: the module, and each name as a module of it."""
    if node.level:
        base = here.parts[: len(here.parts) - (node.level - 1)] if node.level > 1 else here.parts
        parts = [*base, *(node.module.split(".") if node.module else [])]
    elif node.module and node.module.split(".")[0] == top:
        parts = node.module.split(".")[1:]
    else:
        return []
    found = []
    for module in [parts, *([*parts, alias.name] for alias in node.names)]:
        path = "/".join(module)
        found += [f"{path}.py", f"{path}/__init__.py"] if path else ["__init__.py"]
    return found


def engine_version(folder: Path = PACKAGE) -> str:
    """A hash of the engine's own source: editing it re-executes pages without a manual version bump."""
    running = hashlib.sha256()
    for name in engine_sources(folder):
        running.update(name.encode() + b"\0" + (Path(folder) / name).read_bytes() + b"\0")
    return running.hexdigest()[:16]


ENGINE_VERSION = engine_version()
