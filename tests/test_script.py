"""Every page as a plain script: `python <page>-page.py` prints what the site shows under the page's cells."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from torchnotes.publish.script import page_script, script_cell

# Three pages of different kinds: plain prints, a last-expression tuple, errors on purpose (raises-exception).
PAGES = ["tensors/views", "tensors/broadcasting", "autograd/in-place"]


def site_text(notebook: nbformat.NotebookNode) -> str:
    """What the site shows under the cells the script runs: printed text, last values, expected errors."""
    shown = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or {"needs-cuda", "skip-execution"} & set(cell.metadata.get("tags", [])):
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "stream" and output.name == "stdout":
                shown.append(output.text)
            elif output.output_type == "execute_result":
                shown.append(output.data["text/plain"] + "\n")
            elif output.output_type == "error":
                shown.append(f"{output.ename}: {output.evalue}\n")
    return "".join(shown)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_script_prints_what_the_page_shows(built_site, tmp_path, page, lang):
    folder = built_site / ("" if lang == "en" else "zh") / page
    stem = Path(page).name
    script = folder / f"{stem}-page.py"
    html = (folder / "index.html").read_text(encoding="utf-8")
    assert f'href="{stem}-page.py"' in html and "download" in html, "the page links its script for download"
    # Run from a copy: a page may write files where it runs.
    copy = tmp_path / script.name
    copy.write_bytes(script.read_bytes())
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, copy.name], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = site_text(nbformat.read(folder / f"{stem}.ipynb", as_version=4))
    assert expected.count("\n") > 10, "the page shows outputs to compare"
    assert done.stdout == expected


def cell(source: str, tags=(), **meta) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags), **meta})


def result(text: str) -> list[dict]:
    return [{"output_type": "execute_result", "data": {"text/plain": text}, "metadata": {}, "execution_count": 1}]


def test_last_expression_prints_as_the_notebook_shows_it():
    assert script_cell(cell("x = 1\nx"), result("1")) == "x = 1\nprint(x)"
    assert script_cell(cell("a, b"), result("(1, 2)")) == "print((a, b))"
    assert script_cell(cell("name"), result("'abc'")) == "print(repr(name))"
    assert script_cell(cell("f(x)  # why"), result("3")) == "print(f(x))  # why"
    assert script_cell(cell("f(\n  x)\n"), result("3")) == "print(f(\n  x))"
    # The notebook showed nothing: None, a `;`, a print, an assignment.
    assert script_cell(cell("setup()"), []) == "setup()"
    assert script_cell(cell("plot();"), result("[]")) == "plot();"
    assert script_cell(cell("print(1)"), [{"output_type": "stream", "name": "stdout", "text": "1\n"}]) == "print(1)"


def test_cells_a_script_cannot_run_as_they_are():
    raising = script_cell(cell("x.view(5)", ["raises-exception"], raises="RuntimeError"), [])
    assert raising.startswith("try:\n    x.view(5)\nexcept RuntimeError as error:")
    not_builtin = script_cell(cell("torch.load(f)", ["raises-exception"], raises="UnpicklingError"), [])
    assert "if type(error).__name__ != 'UnpicklingError':\n        raise" in not_builtin
    syntax = script_cell(cell("def f(:", ["raises-exception"], raises="SyntaxError"), [])
    skipped = script_cell(cell("train(model)", ["skip-execution"]), [])
    gpu = script_cell(cell("torch.cuda.memory_allocated()", ["needs-cuda"]), [])
    assert gpu == ("if torch.cuda.is_available():  # needs a CUDA GPU (needs-cuda)\n"
                   "    print(torch.cuda.memory_allocated())")
    for source in (raising, not_builtin, syntax, skipped, gpu):
        ast.parse(source)  # every cell compiles: the script runs to its end
    assert syntax.splitlines()[1:] == ["# def f(:"] and skipped.splitlines()[1:] == ["# train(model)"]


def test_script_is_percent_format_with_prose_as_comments(tmp_path):
    from torchnotes.pages.read import read_page

    path = tmp_path / "p.md"
    path.write_text("---\ntitle: T\ndescription: D\n---\n\n# Title\n\nSome *prose*.\n\n```python\nx = 2\nx\n```\n", encoding="utf-8")
    page = read_page(path)
    code = next(c for c in page.notebook.cells if c.cell_type == "code")
    text = page_script(page, {code.id: result("2")}, "Header line")
    assert "# %% [markdown]\n# Header line\n" in text
    assert "# %% [markdown]\n# # Title\n#\n# Some *prose*.\n" in text
    assert "# %%\nx = 2\nprint(x)\n" in text
    assert "torch.manual_seed(0)" in text and "jupyter:" not in text
