"""The package stays readable: no function over 60 lines, no class over 150, no module of 300 lines or more
(issue 24: a newcomer reads a step's file, not a scroll)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "torchnotes"


def sizes():
    for module in sorted(PACKAGE.rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        yield module, len(text.splitlines()), ast.parse(text)


def test_functions_classes_and_modules_stay_small():
    too_long = []
    for module, lines, tree in sizes():
        name = module.relative_to(PACKAGE.parent)
        if lines >= 300:
            too_long.append(f"{name}: {lines} lines (a module stays under 300)")
        for node in ast.walk(tree):
            length = getattr(node, "end_lineno", 0) - getattr(node, "lineno", 0) + 1
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and length > 60:
                too_long.append(f"{name}:{node.lineno} {node.name}(): {length} lines (a function stays within 60)")
            if isinstance(node, ast.ClassDef) and length > 150:
                too_long.append(f"{name}:{node.lineno} class {node.name}: {length} lines (a class stays within 150)")
    assert too_long == [], "split these:\n" + "\n".join(too_long)


def test_the_check_sees_every_module():
    found = {module.relative_to(PACKAGE).as_posix() for module, _, _ in sizes()}
    assert {"pages/read.py", "engine/scheduler.py", "publish/tree.py", "generators/mkdocs/plugin.py"} <= found
    assert len(found) > 40
