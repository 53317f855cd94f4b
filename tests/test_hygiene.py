"""The test suite's own rules (issue 36): what test modules share lives in tests/helpers.py (or conftest's
fixtures), so that no module's tests run, or break, because another module was imported; the checkout's root is
named in one place."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT

TESTS = ROOT / "tests"


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (test_*) that the module at path imports, however it spells the import."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [name for name in names if any(part.startswith("test_") for part in name.split("."))]
    return found


def test_no_test_module_imports_another():
    offenders = {path.name: names for path in sorted(TESTS.glob("test_*.py")) if (names := imported_test_modules(path))}
    assert offenders == {}, (f"test modules import other test modules: {offenders}. Move what they share to "
                             "tests/helpers.py (or a conftest fixture) and import it from there.")


def test_the_check_sees_every_spelling_of_such_an_import(tmp_path):
    spellings = ["from test_build import build", "import test_build", "from tests.test_build import build",
                 "from tests import test_build", "def f():\n    from test_build import build"]
    for source in spellings:
        path = tmp_path / "test_planted.py"
        path.write_text(source + "\n", encoding="utf-8")
        assert imported_test_modules(path), source
    path.write_text("from helpers import build\nimport testing_tools\n", encoding="utf-8")
    assert imported_test_modules(path) == []


def test_the_root_is_defined_once():
    defining = [path.name for path in sorted(TESTS.glob("*.py")) for node in ast.parse(path.read_text()).body
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ROOT" for t in node.targets)]
    assert defining == ["helpers.py"], f"ROOT is assigned in {defining}: import it from tests/helpers.py"
