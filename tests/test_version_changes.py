"""Issue 44 §1, without running any older release: what the changes page and the pills count as a change.

Version strings and build numbers are masked (so the home page, which prints the version, has no pill); a cell
whose own code fails under an older release is the page's check failing, not PyTorch raising; a warning the page
provokes and explains is apart from those it does not explain; a diff reads old to new, each line labelled with its
release; the changes page names the pages that raise, with the same release labels as the pills, and its intro
names every section.
"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT, code, page

from torchnotes.engine.results import PageResult
from torchnotes.pages.read import read_page
from torchnotes.publish.render import drift_html
from torchnotes.strings import strings
from torchnotes.versions.changes import Comparison, changes_markdown
from torchnotes.versions.drift import (
    BOTH,
    DIFFERS,
    FAILS,
    NEW,
    OLD,
    RAISES,
    CellDrift,
    compare_cells,
    normalise,
    own_failure,
    warnings_in,
)
from torchnotes.versions.record import Record, read_today

# What the site's release and an older one printed in cells that only show the version or the build
# (compared/2.14.1: the home page's cell 1, installation's cells 1 and 3).
VERSION_ONLY = [
    ("PyTorch: 2.15.0+cu132\nPython: 3.11.7\nCUDA available: False",
     "PyTorch: 2.14.1+cu130\nPython: 3.11.7\nCUDA available: False"),
    ("pip's version of the package: 2.15.0\nbuilt with CUDA: 13.2", "pip's version of the package: 2.14.1\nbuilt with CUDA: 13.0"),
    ("cudnn.version():      92600\ncudnn.enabled:        True", "cudnn.version():      92400\ncudnn.enabled:        True"),
    ("wheel index: https://download.pytorch.org/whl/cu132", "wheel index: https://download.pytorch.org/whl/cu130"),
    ("UserWarning: deprecated. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:668.)",
     "UserWarning: deprecated. (Triggered internally at /pytorch/torch/csrc/utils/tensor_new.cpp:654.)"),
]
REAL_CHANGES = [
    ("tensor([1.5000, 2.0000], dtype=torch.float64)", "tensor([1.5000, 2.5000], dtype=torch.float64)"),
    ("RuntimeError: mm: self must be a matrix, got 3-D tensor", "RuntimeError: self must be a matrix"),
    ("torch.cuda.memory_allocated(): 512", "torch.cuda.memory_allocated(): 1024"),
    ("version counter: 1", "version counter: 2"),
]
OWN_ERROR = "AttributeError: 'NoneType' object has no attribute 'group'"


def test_version_and_build_strings_are_not_a_change():
    for shown, other in VERSION_ONLY:
        assert normalise(shown) == normalise(other), (shown, normalise(shown), normalise(other))
    for shown, other in REAL_CHANGES:
        assert normalise(shown) != normalise(other), shown


def test_a_recorded_difference_that_was_only_the_version_reads_as_the_same():
    entry = {"cell": 1, "code": "f9c403fdcdc99a8f", "state": DIFFERS,
             "shown": VERSION_ONLY[0][0].split("\n"), "other": VERSION_ONLY[0][1].split("\n")}
    assert read_today(entry) == {"cell": 1, "code": "f9c403fdcdc99a8f", "state": "same"}
    real = {**entry, "shown": [REAL_CHANGES[1][0]], "other": [REAL_CHANGES[1][1]]}
    assert read_today(real)["state"] == DIFFERS


def test_the_home_and_installation_pages_have_no_pill_from_the_committed_record():
    """Every release's committed record, read by this build: the pages that print the version show no pill."""
    record = Record(ROOT, ROOT / "docs")
    for lang in ("en", "zh"):
        for rel, cells in (("index.md", None), ("advanced/installation.md", (1, 3))):
            source = read_page(ROOT / "docs" / lang / rel)
            for release in record.releases():
                states = record.states(release, source) or []
                marked = [n for n, entry in enumerate(states, 1) if entry["state"] in (DIFFERS, RAISES)
                          and (cells is None or n in cells)]
                assert not marked, f"{lang}/{rel} under {release}: cells {marked} marked"


def test_a_cells_own_failure_is_the_pages_not_pytorchs(tmp_path):
    assert own_failure(OWN_ERROR)
    assert own_failure("AssertionError: ")
    assert not own_failure("AttributeError: module 'torch' has no attribute 'foreach'")
    assert not own_failure("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 2x3)")
    assert not own_failure("TypeError: 'Tensor' object is not callable")
    in_torch = [{"output_type": "error", "ename": "TypeError", "evalue": "bad argument",
                 "traceback": ["Cell In[3], line 2\n----> 2 f(x)", "File /x/site-packages/torch/f.py:9, in f()\n",
                               "TypeError: bad argument"]}]
    in_cell = [{**in_torch[0], "traceback": ["Cell In[3], line 2\n----> 2 f(x)", "TypeError: bad argument"]}]
    assert not own_failure("TypeError: bad argument", in_torch)
    assert own_failure("TypeError: bad argument", in_cell)

    # Recorded as such when the release ran the page, and read as such from a record written before.
    source = read_page(page(tmp_path, "en/p.md", code("import re\nprint(re.search('x', 'y').group())")))
    cell = source.code_cells[0].id
    other = {"outputs": {cell: [{"output_type": "error", "ename": "AttributeError", "evalue": OWN_ERROR[16:],
                                 "traceback": ["Cell In[1], line 2", OWN_ERROR]}]}, "cell": 1, "error": OWN_ERROR}
    found = compare_cells(source, {cell: [{"output_type": "stream", "name": "stdout", "text": "x\n"}]}, other)
    assert found[0]["state"] == RAISES and found[0]["origin"] == "page"
    assert read_today({"cell": 1, "state": RAISES, "error": OWN_ERROR, "shown": ["x"], "other": [OWN_ERROR]})[
        "origin"] == "page"


def test_a_diff_reads_old_to_new_with_each_line_labelled_by_its_release():
    drift = CellDrift("code-1-a", 1, "2.14.1", DIFFERS, "same\nRuntimeError: mm: self must be a matrix",
                      "same\nRuntimeError: self must be a matrix")
    assert drift.diff() == [(BOTH, "same"), (OLD, "RuntimeError: self must be a matrix"),
                            (NEW, "RuntimeError: mm: self must be a matrix")]
    for lang in ("en", "zh"):
        shown = drift_html("code-1-a", [drift], "2.15.0", strings(lang))
        assert "@@" not in shown and "+RuntimeError" not in shown and "-RuntimeError" not in shown
        labels = re.findall(r'nb-drift-(old|new|both)"><span class="nb-drift-release">([^<]*)</span>', shown)
        assert labels == [("both", ""), ("old", "2.14"), ("new", "2.15")], labels
        assert shown.index("self must be a matrix</span>") < shown.index("mm: self")  # old above new
        assert ">" + strings(lang)["drift_differs"].format(version="2.14") + "<" in shown


def _warned(tmp_path: Path, rel: str, body: str, stderr: str) -> bool:
    source = read_page(page(tmp_path, rel, body))
    outputs = {source.code_cells[0].id: [{"output_type": "stream", "name": "stderr", "text": stderr}]}
    (found,) = warnings_in(source, outputs)
    return found.on_purpose


def test_a_warning_the_page_provokes_and_explains_is_provoked(tmp_path):
    warning = "<cell>:1: UserWarning: To copy construct from a tensor, use sourceTensor.detach().clone()\n"
    cell = code("import torch\ndup = torch.tensor(torch.ones(2))")
    assert _warned(tmp_path, "en/a.md", "Passing a tensor to `torch.tensor` works, and PyTorch warns:\n\n" + cell, warning)
    assert _warned(tmp_path, "zh/a.md", "把张量传给 `torch.tensor` 会发出警告：\n\n" + cell, warning)
    assert _warned(tmp_path, "en/b.md", code("import torch\ndup = torch.tensor(torch.ones(2))  # works, but warns"),
                   warning)
    assert _warned(tmp_path, "en/c.md", cell + "\nText.\n\n" + code("print(1)")
                   + "\nThe `UserWarning` under the first of these two cells is expected.\n", warning)
    # Not explained: an admonition's type is no mention of the warning, nor is a warning far down the page.
    assert not _warned(tmp_path, "en/d.md", '!!! warning "Correction"\n    Wrong.\n\n' + cell, warning)
    assert not _warned(tmp_path, "en/e.md", cell + "".join(f"\nText.\n\n{code('print(1)')}" for _ in range(3))
                       + "\nPyTorch warns here.\n", warning)


def _result(tmp_path: Path, rel: str, cells: int) -> PageResult:
    path = page(tmp_path / "docs", f"en/{rel}", "".join(code(f"print({n})") for n in range(cells)), title=rel)
    return PageResult(page=str(path.relative_to(tmp_path)), status="cached", source=read_page(path))


def test_the_changes_page_names_what_raises_with_the_pills_labels(tmp_path):
    matmul, memory, plain = (_result(tmp_path, f"{name}.md", 3) for name in ("matmul", "memory", "plain"))
    states = {r.page: [{"state": "same"}] * 3 for r in (matmul, memory, plain)}
    comparison = Comparison(primary="2.15.0", listed=["2.14.1"], states={"2.14.1": states},
                            pages=[r.page for r in (matmul, memory, plain)], cells={
                                matmul.page: [CellDrift(matmul.source.code_cells[1].id, 2, "2.14.1", RAISES, "a", "b",
                                                        "RuntimeError: no")],
                                memory.page: [CellDrift(memory.source.code_cells[2].id, 3, "2.14.1", FAILS, "a",
                                                        OWN_ERROR, OWN_ERROR)]},
                            failed={"2.14.1": {matmul.page: "RuntimeError: no"}},
                            own_failures={"2.14.1": {memory.page: OWN_ERROR}})
    for lang in ("en",):
        text = changes_markdown(comparison, [matmul, memory, plain], lang, tmp_path / "docs", tmp_path,
                                "https://github.com/o/r")
        w = strings(lang)
        assert "## PyTorch 2.14:" in text and "2.14.1" in text  # the label, and the exact release once
        assert "[matmul.md · code cell 2](matmul.md#cell-2)" in text  # to the cell's number, not to its pills
        raises = next(line for line in text.splitlines() if line.startswith("PyTorch 2.14 raises on"))
        assert "matmul.md" in raises and "memory.md" not in raises, raises
        own = next(line for line in text.splitlines() if "own check fails" in line)
        assert "memory.md" in own and "matmul.md" not in own, own
        assert f"{w['drift_fails'].format(version='2.14')}: `{OWN_ERROR}`" in text
        assert "2.14.1 ·" not in text and "in 2.14.1" not in text
        intro = text.split("\n\n", 1)[0]
        for section in ("2.14", "warnings", "provoke", "do not explain", "never compared"):
            assert section in intro, f"the intro does not mention {section!r}: {intro}"
