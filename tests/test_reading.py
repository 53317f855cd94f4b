"""What every build does before any kernel: learn the environment, read the pages. Both must be cheap when
nothing changed (a no-change rebuild is mostly this) and never give a stale answer."""

from __future__ import annotations

import importlib.machinery
import json

import jupytext
import pytest

from torchnotes import environment, pages
from torchnotes.errors import InvalidFrontMatter

PAGE = "---\ntitle: T\ndescription: D\n---\n\n# T\n\nProse.\n\n```python\nprint(1)\n```\n"


# --- the environment --------------------------------------------------------------------------------------

def test_the_fast_probe_agrees_with_the_child_probe_for_the_installed_build():
    """A CPU build is read from torch/version.py and must agree with a child that imports torch; a CUDA build (PyPI's
    wheel, which the site is built with) must go to the child, since a GPU can change its answers."""
    fast, child = environment.cpu_build(), environment.probe_child()
    if child["torch_build"] == "cpu":
        assert fast == child
    else:
        assert fast is None, f"a {child['torch_build']} build was read without asking torch: {fast}"


@pytest.mark.parametrize("line, expected", [
    ("cuda: Optional[str] = None", "cpu"),
    ("cuda: Optional[str] = '13.0'", None),  # a CUDA build: whether a GPU is there decides, so import torch
])
def test_a_cuda_build_of_torch_is_probed_in_a_child(tmp_path, monkeypatch, line, expected):
    package = tmp_path / "torch"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('the probe must not import torch here')\n")
    (package / "version.py").write_text(
        "from typing import Optional\n__version__ = '9.9.9+cpu'\ndebug = False\n" + line + "\n"
        "git_version = 'abcdef0123456789'\nhip: Optional[str] = None\nxpu: Optional[str] = None\n")
    spec = importlib.machinery.ModuleSpec("torch", None, origin=str(package / "__init__.py"))
    monkeypatch.setattr(environment.importlib.util, "find_spec", lambda name: spec if name == "torch" else None)
    found = environment.cpu_build()
    if expected is None:
        assert found is None
    else:
        assert found["torch"] == "9.9.9+cpu" and found["torch_git"] == "abcdef012345" and found["cuda"] is False


def test_a_version_file_it_cannot_read_falls_back_to_the_child(tmp_path, monkeypatch):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text("__version__ = compute()\n")
    spec = importlib.machinery.ModuleSpec("torch", None, origin=str(tmp_path / "torch" / "__init__.py"))
    monkeypatch.setattr(environment.importlib.util, "find_spec", lambda name: spec)
    assert environment.cpu_build() is None


# --- the pages ---------------------------------------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch, tmp_path):
    """jupytext's reads, counted; an empty memo in this process, kept pages under tmp_path/parsed."""
    calls = []
    real = jupytext.reads
    monkeypatch.setattr(pages.jupytext, "reads", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(pages, "_parsed", {})
    monkeypatch.setattr(pages, "_parsed_dir", None)
    pages.keep_parsed_in(tmp_path / "parsed")
    return calls


def test_a_page_is_parsed_once_per_text_in_a_process_and_across_builds(tmp_path, counted, monkeypatch):
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    first = pages.read_page(path)
    first.notebook.cells[0].source = "changed by a caller"
    second = pages.read_page(path)
    assert len(counted) == 1
    assert second.notebook.cells[0].source != "changed by a caller"  # each reader gets its own copy
    monkeypatch.setattr(pages, "_parsed", {})  # the next build: a new process, same folder
    assert pages.read_page(path).notebook == second.notebook and len(counted) == 1
    path.write_text(PAGE.replace("Prose.", "Other prose."))  # any edit is a new text: parsed again
    assert "Other prose." in pages.read_page(path).notebook.cells[0].source and len(counted) == 2


def test_a_damaged_kept_page_is_parsed_again(tmp_path, counted, monkeypatch):
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    pages.read_page(path)
    (kept,) = (tmp_path / "parsed").glob("*.json")
    body = json.loads(kept.read_text())
    body["body"]["notebook"]["cells"][0]["source"] = "# Hand-edited"
    kept.write_text(json.dumps(body))
    monkeypatch.setattr(pages, "_parsed", {})
    assert "Prose." in pages.read_page(path).notebook.cells[0].source and len(counted) == 2
    kept.write_text("{trunc")
    monkeypatch.setattr(pages, "_parsed", {})
    assert "Prose." in pages.read_page(path).notebook.cells[0].source and len(counted) == 3


def test_a_page_that_fails_is_never_kept(tmp_path, counted):
    path = tmp_path / "p.md"
    path.write_text("---\ntitle: [unclosed\n---\n\n# T\n")
    for _ in range(2):
        with pytest.raises(InvalidFrontMatter):
            pages.read_page(path)
    assert len(counted) == 2 and not list((tmp_path / "parsed").glob("*.json"))


def test_prune_keeps_the_pages_read_in_this_process(tmp_path, counted, monkeypatch):
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(PAGE)
    new.write_text(PAGE.replace("Prose.", "New."))
    pages.read_page(old)
    pages.read_page(new)
    monkeypatch.setattr(pages, "_parsed", {})
    pages.read_page(new)
    assert len(pages.prune_parsed()) == 1
    assert len(list((tmp_path / "parsed").glob("*.json"))) == 1


def test_code_fingerprints_come_back_with_a_kept_page(tmp_path, counted, monkeypatch):
    """The cache key tokenizes every code cell on every build; a kept page brings its cells' fingerprints."""
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    expected = pages._fingerprint("print(1)")
    pages.read_page(path)
    monkeypatch.setattr(pages, "_parsed", {})  # the next build: a new process, same folder
    monkeypatch.setattr(pages, "_fingerprints", {})
    tokenized = []
    monkeypatch.setattr(pages, "_fingerprint", lambda source: tokenized.append(source) or "")
    pages.read_page(path)
    assert pages.code_fingerprint("print(1)") == expected and tokenized == []
    assert pages.code_fingerprint("print(2)") == "" and tokenized == ["print(2)"]  # a new cell is tokenized


def test_a_notebook_is_written_once_per_content(tmp_path, counted, monkeypatch):
    """Writing a notebook (nbformat validates it) is kept like parsing: by its content, across builds."""
    from torchnotes import checks

    writes = []
    real = jupytext.writes
    monkeypatch.setattr(checks.jupytext, "writes", lambda *a, **k: writes.append(1) or real(*a, **k))
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    notebook = checks.as_paired(pages.read_page(path).notebook)
    text = checks.notebook_text(notebook)
    assert text == real(notebook, fmt="ipynb") and len(writes) == 1
    monkeypatch.setattr(pages, "_parsed", {})  # the next build
    assert checks.notebook_text(notebook) == text and len(writes) == 1
    notebook.cells[0].source = "Other prose."
    assert "Other prose." in checks.notebook_text(notebook) and len(writes) == 2
