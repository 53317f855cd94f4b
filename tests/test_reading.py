"""What every build does before any kernel: learn the environment, read the pages. Both must be cheap when
nothing changed (a no-change rebuild is mostly this) and never give a stale answer."""

from __future__ import annotations

import importlib.machinery
import json
import os

import jupytext
import pytest

from torchnotes.engine import environment
from torchnotes.errors import InvalidFrontMatter
from torchnotes.pages import read as pages

PAGE = "---\ntitle: T\ndescription: D\n---\n\n# T\n\nProse.\n\n```python\nprint(1)\n```\n"


# --- the environment --------------------------------------------------------------------------------------

def test_the_fast_probe_agrees_with_the_child_probe_for_the_installed_build():
    """Read from torch/version.py, the answer must be what a child that imports torch says; where a GPU device file
    exists (a GPU could change the answer), the child must be asked."""
    fast, child = environment.read_build(), environment.probe_child()
    if any(os.path.exists(path) for path in environment.GPU_DEVICE_FILES):
        assert fast is None or child["torch_build"] == "cpu"
    else:
        assert fast == child


@pytest.fixture
def fake_torch(tmp_path, monkeypatch):
    """A torch package whose version.py says what the test writes, and that fails if imported."""
    package = tmp_path / "torch"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('the probe must not import torch here')\n")
    spec = importlib.machinery.ModuleSpec("torch", None, origin=str(package / "__init__.py"))
    monkeypatch.setattr(environment.importlib.util, "find_spec", lambda name: spec if name == "torch" else None)

    def write(cuda: str = "None", hip: str = "None", xpu: str = "None") -> None:
        (package / "version.py").write_text(
            f"from typing import Optional\n__version__ = '9.9.9'\ndebug = False\ncuda: Optional[str] = {cuda}\n"
            f"git_version = 'abcdef0123456789'\nhip: Optional[str] = {hip}\nxpu: Optional[str] = {xpu}\n")
    return write


@pytest.mark.parametrize("build, gpu_file, expected", [
    ({}, False, "cpu"),
    ({}, True, "cpu"),                        # a CPU build: no device changes its answer
    ({"cuda": "'13.0'"}, False, "cuda 13.0"),  # PyPI's CUDA wheel on a machine without a GPU
    ({"cuda": "'13.0'"}, True, None),          # ... with a GPU: import torch and ask
    ({"hip": "'6.4'"}, True, None),
    ({"xpu": "'2025.2'"}, False, None),        # no device file tells about an XPU
])
def test_which_builds_are_read_without_importing_torch(tmp_path, fake_torch, build, gpu_file, expected):
    fake_torch(**build)
    device = tmp_path / "nvidia0"
    if gpu_file:
        device.touch()
    found = environment.read_build((str(device),))
    if expected is None:
        assert found is None
    else:
        assert found == {"python": found["python"], "torch": "9.9.9", "torch_build": expected,
                         "torch_git": "abcdef012345", "device": "CPU", "cuda": False}


def test_a_version_file_it_cannot_read_falls_back_to_the_child(tmp_path, monkeypatch):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "version.py").write_text("__version__ = compute()\n")
    spec = importlib.machinery.ModuleSpec("torch", None, origin=str(tmp_path / "torch" / "__init__.py"))
    monkeypatch.setattr(environment.importlib.util, "find_spec", lambda name: spec)
    assert environment.read_build() is None


# --- the pages ---------------------------------------------------------------------------------------------

@pytest.fixture
def counted(monkeypatch):
    """jupytext's reads, counted."""
    calls = []
    real = jupytext.reads
    monkeypatch.setattr(pages.jupytext, "reads", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_page_is_parsed_once_per_text_by_a_reader_and_across_builds(tmp_path, counted):
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    reader = pages.Reader(tmp_path / "parsed")
    first = reader.page(path)
    assert reader.page(path) is first and len(counted) == 1  # the checks, the GPU store, the engine: one page
    nxt = pages.Reader(tmp_path / "parsed")  # the next build: a new reader, same folder
    again = nxt.page(path)
    assert again is not first and again.notebook == first.notebook and len(counted) == 1
    path.write_text(PAGE.replace("Prose.", "Other prose."))  # any edit is a new text: parsed again
    edited = nxt.page(path)
    assert "Other prose." in edited.notebook.cells[0].source and len(counted) == 2
    assert list(nxt.pages) == [path] and nxt.pages[path][1] is edited  # a serve session keeps the last text only


def test_readers_share_nothing_but_their_folder(tmp_path, counted):
    """No state outside a reader: without a folder each reader parses afresh, and so does read_page without one."""
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    pages.Reader().page(path)
    pages.Reader().page(path)
    pages.read_page(path)
    pages.read_page(path)
    assert len(counted) == 4
    reader = pages.Reader()
    pages.read_page(path, reader=reader)
    pages.read_page(path, reader=reader)
    assert len(counted) == 5 and not (tmp_path / "parsed").exists()


def test_a_damaged_kept_page_is_parsed_again(tmp_path, counted):
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    pages.Reader(tmp_path / "parsed").page(path)
    (kept,) = (tmp_path / "parsed").glob("*.json")
    body = json.loads(kept.read_text())
    body["body"]["notebook"]["cells"][0]["source"] = "# Hand-edited"
    kept.write_text(json.dumps(body))
    assert "Prose." in pages.Reader(tmp_path / "parsed").page(path).notebook.cells[0].source and len(counted) == 2
    kept.write_text("{trunc")
    assert "Prose." in pages.Reader(tmp_path / "parsed").page(path).notebook.cells[0].source and len(counted) == 3


def test_a_page_that_fails_is_never_kept(tmp_path, counted):
    path = tmp_path / "p.md"
    path.write_text("---\ntitle: [unclosed\n---\n\n# T\n")
    reader = pages.Reader(tmp_path / "parsed")
    for _ in range(2):
        with pytest.raises(InvalidFrontMatter):
            reader.page(path)
    assert len(counted) == 2 and not list((tmp_path / "parsed").glob("*.json"))


def test_prune_keeps_the_pages_this_reader_read(tmp_path, counted):
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(PAGE)
    new.write_text(PAGE.replace("Prose.", "New."))
    first = pages.Reader(tmp_path / "parsed")
    first.page(old)
    first.page(new)
    second = pages.Reader(tmp_path / "parsed")
    second.page(new)
    assert len(second.prune()) == 1
    assert len(list((tmp_path / "parsed").glob("*.json"))) == 1
    assert pages.Reader().prune() == []  # a reader without a folder keeps nothing to prune


def test_code_fingerprints_come_back_with_a_kept_page(tmp_path, monkeypatch):
    """The cache key reads every code cell's fingerprint on every build; a kept page brings them along."""
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    expected = pages.code_fingerprint("print(1)")
    pages.Reader(tmp_path / "parsed").page(path)
    tokenized = []
    real = pages.code_fingerprint
    monkeypatch.setattr(pages, "code_fingerprint", lambda source: tokenized.append(source) or real(source))
    page = pages.Reader(tmp_path / "parsed").page(path)  # the next build: a new reader, same folder
    (cell,) = page.code_cells
    assert page.fingerprint(cell) == expected and tokenized == []
    cell.source = "print(2)"  # a cell changed after reading is fingerprinted now, never given the old one
    assert page.fingerprint(cell) == real("print(2)") != expected and tokenized == ["print(2)"]


def test_a_notebook_is_written_once_per_content(tmp_path, monkeypatch):
    """Writing a notebook (nbformat validates it) is kept like parsing: by its content, across builds."""
    from torchnotes.publish import pairing as checks

    writes = []
    real = jupytext.writes
    monkeypatch.setattr(checks.jupytext, "writes", lambda *a, **k: writes.append(1) or real(*a, **k))
    path = tmp_path / "p.md"
    path.write_text(PAGE)
    reader = pages.Reader(tmp_path / "parsed")
    notebook = checks.as_paired(reader.page(path).notebook)
    text = checks.notebook_text(notebook, reader)
    assert text == real(notebook, fmt="ipynb") and len(writes) == 1
    assert checks.notebook_text(notebook, pages.Reader(tmp_path / "parsed")) == text and len(writes) == 1  # the next build
    notebook.cells[0].source = "Other prose."
    assert "Other prose." in checks.notebook_text(notebook, reader) and len(writes) == 2


def test_a_cell_fingerprints_the_same_under_python_3_12s_tokens():
    """A GPU machine's Python 3.12 numbers OP 55 and splits f-strings into FSTRING_* tokens: its recordings were all
    'out of date' on the 3.11 build until the fingerprint read 3.12's tokens as 3.11 reads the same code."""
    source = 'x = f"a {y!r:>{w}}"  # why\nprint(x)\n'
    # What tokenize gives on Python 3.12.1 for this source (name, text, start, end).
    py312 = [("NAME", "x", (1, 0), (1, 1)), ("OP", "=", (1, 2), (1, 3)), ("FSTRING_START", 'f"', (1, 4), (1, 6)),
             ("FSTRING_MIDDLE", "a ", (1, 6), (1, 8)), ("OP", "{", (1, 8), (1, 9)), ("NAME", "y", (1, 9), (1, 10)),
             ("OP", "!", (1, 10), (1, 11)), ("NAME", "r", (1, 11), (1, 12)), ("OP", ":", (1, 12), (1, 13)),
             ("FSTRING_MIDDLE", ">", (1, 13), (1, 14)), ("OP", "{", (1, 14), (1, 15)), ("NAME", "w", (1, 15), (1, 16)),
             ("OP", "}", (1, 16), (1, 17)), ("OP", "}", (1, 17), (1, 18)), ("FSTRING_END", '"', (1, 18), (1, 19)),
             ("COMMENT", "# why", (1, 21), (1, 26)), ("NEWLINE", "\n", (1, 26), (1, 27)),
             ("NAME", "print", (2, 0), (2, 5)), ("OP", "(", (2, 5), (2, 6)), ("NAME", "x", (2, 6), (2, 7)),
             ("OP", ")", (2, 7), (2, 8)), ("NEWLINE", "\n", (2, 8), (2, 9)), ("ENDMARKER", "", (3, 0), (3, 0))]
    assert json.dumps(pages.stable_tokens(py312, source), ensure_ascii=False) == pages.code_fingerprint(source)
    assert pages.stable_tokens(py312, source)[2] == (3, 'f"a {y!r:>{w}}"')  # one STRING, as 3.11 reads it
    # Numbers fixed at 3.11's, whichever Python runs this: OP is 54 (3.12 says 55).
    assert pages.stable_tokens([("OP", "=", (1, 0), (1, 1))], "=") == [(54, "=")]
