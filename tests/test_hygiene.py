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


# --- the house: layers and the import graph (issue 46 §4) -----------------------------------------------------------

# Lower layers first: a module may import from its own layer or a lower one, never a higher one.
LAYERS = [
    ("torchnotes.errors", "torchnotes.strings", "torchnotes.settings", "torchnotes.log", "torchnotes.storage",
     "torchnotes.kept", "torchnotes.layout"),
    ("torchnotes.pages",),
    ("torchnotes.engine", "torchnotes.gpu", "torchnotes.versions"),
    ("torchnotes.publish",),
    ("torchnotes.ci", "torchnotes.generators"),
    ("torchnotes.cli", "torchnotes.__main__", "torchnotes"),
]


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / "torchnotes").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at any depth of the file (a function-level import counts: it would
    only hide an edge). `from package import name` counts as the submodule when name is one."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{alias.name}" for alias in node.names} & modules.keys()
                graph[name] |= subs or ({node.module} & modules.keys())
            elif isinstance(node, ast.Import):
                graph[name] |= {alias.name for alias in node.names} & modules.keys()
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _layer(module: str) -> int:
    best = max((prefix for layer in LAYERS for prefix in layer if module == prefix or module.startswith(prefix + ".")),
               key=len)
    return next(i for i, layer in enumerate(LAYERS) if best in layer)


def test_the_import_graph_has_no_cycle_and_no_import_upwards():
    graph = import_graph(ROOT)
    assert cycles(graph) == []
    upwards = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets if _layer(b) > _layer(a))
    assert upwards == []


def test_the_graph_check_finds_a_cycle_and_an_upward_import(tmp_path):
    package = tmp_path / "torchnotes"
    (package / "pages").mkdir(parents=True)
    (package / "publish").mkdir()
    (package / "__init__.py").write_text("")
    (package / "pages" / "__init__.py").write_text("")
    (package / "publish" / "__init__.py").write_text("")
    (package / "pages" / "checks.py").write_text("def f():\n    from torchnotes.publish.features import FEATURES\n")
    (package / "publish" / "features.py").write_text("from torchnotes.pages.checks import f\nFEATURES = []\n")
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["torchnotes.pages.checks", "torchnotes.publish.features"]]
    assert _layer("torchnotes.publish.features") > _layer("torchnotes.pages.checks")  # the function-level edge


def function_level_imports(root: Path) -> list[str]:
    """`module: imported` for each import of a project module made inside a function, outside torchnotes.cli (the
    commands import what they run when they run, so that `python -m torchnotes --help` stays quick)."""
    found = []
    for name, path in _modules(root).items():
        if name == "torchnotes.cli" or name.startswith("torchnotes.cli."):
            continue
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("torchnotes")):
                    found.append(f"{name}: {node.module}")
                elif isinstance(node, ast.Import):
                    found += [f"{name}: {a.name}" for a in node.names if a.name.startswith("torchnotes")]
    return sorted(set(found))


def test_no_function_level_import_hides_an_edge_of_the_graph():
    assert function_level_imports(ROOT) == [], "import these at the top of the module: the graph check then sees them"


def test_the_function_level_check_finds_one(tmp_path):
    package = tmp_path / "torchnotes"
    (package / "versions").mkdir(parents=True)
    (package / "cli").mkdir()
    (package / "versions" / "run.py").write_text("def keys():\n    from torchnotes.engine.scheduler import current_keys\n")
    (package / "cli" / "build.py").write_text("def render():\n    from torchnotes.publish.tree import Publisher\n")
    assert function_level_imports(tmp_path) == ["torchnotes.versions.run: torchnotes.engine.scheduler"]
