"""Every cell tag and every failure of one page, run in real kernels."""

from pathlib import Path

import pytest
from helpers import code, page

from torchnotes.engine.cache import Cache
from torchnotes.errors import (
    CellFailed,
    CellTimeout,
    ExpectedErrorMismatch,
    ExpectedErrorMissing,
    InvalidCell,
    InvalidFrontMatter,
    InvalidTags,
    KernelDied,
)
from torchnotes.pages.read import read_page

RAISES = 'tags=["raises-exception"] raises="RuntimeError"'


def run_one(make_engine, path, **kwargs):
    report = make_engine(**kwargs).run([path])
    return report.results[0]


def test_outputs_of_every_kind(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("""
        import sys, torch
        print("out")
        print("err", file=sys.stderr)
        torch.tensor([1, 2])
    """))
    result = run_one(make_engine, path)
    kinds = [(o["output_type"], o.get("name")) for o in result.cell_outputs()[0]]
    assert kinds == [("stream", "stdout"), ("stream", "stderr"), ("execute_result", None)]
    assert result.cell_outputs()[0][2]["data"]["text/plain"] == "tensor([1, 2])"


def test_seeds_are_fixed_and_cwd_is_a_scratch_folder_that_sees_the_page_folder(tmp_path, make_engine):
    path = page(tmp_path, "en/sub/a.md", code("""
        import os, random, torch
        print(torch.rand(1).item(), random.random(), os.getcwd(), os.path.realpath("data.txt"), open("data.txt").read())
    """))
    (tmp_path / "en" / "sub" / "data.txt").write_text("beside")
    out = run_one(make_engine, path).cell_outputs()[0][0]["text"].split()
    import random

    import torch
    torch.manual_seed(0)
    random.seed(0)
    assert float(out[0]) == pytest.approx(torch.rand(1).item())
    assert float(out[1]) == pytest.approx(random.random())
    # A folder of the page's own (issue 45: what a page writes never reaches docs/), linking the files beside it.
    assert out[2] != str((tmp_path / "en" / "sub").resolve()) and "-page-" in Path(out[2]).name
    assert out[3:] == [str((tmp_path / "en" / "sub" / "data.txt").resolve()), "beside"]


def test_setup_leaves_no_names_behind(tmp_path, make_engine):
    # A page that forgets 'import torch' must fail here as it would in Colab.
    path = page(tmp_path, "en/a.md", code("torch.zeros(1)"))
    result = run_one(make_engine, path)
    assert isinstance(result.error, CellFailed)
    assert "NameError" in result.error.reason


MATPLOTLIB_PAGE = """
    import sys
    print("before:", "matplotlib" in sys.modules)
    {statement}
    import matplotlib
    import matplotlib.pyplot
    from matplotlib_inline.config import InlineBackend
    print(matplotlib.rcParams["savefig.dpi"], matplotlib.rcParams["svg.hashsalt"])
    print(sorted(InlineBackend.instance().figure_formats), InlineBackend.instance().print_figure_kwargs["metadata"])
    print(matplotlib.__loader__ is matplotlib.__spec__.loader, type(matplotlib.__loader__).__name__)
    print([type(f).__qualname__ for f in sys.meta_path if "_when_imported" in type(f).__qualname__])
"""


def test_matplotlib_is_configured_when_the_page_imports_it(tmp_path, make_engine):
    """kernel_setup.py sets the figures' settings once the page imports matplotlib, however it does, and leaves
    nothing behind; a page that never imports it does not pay for it nor record it among its packages."""
    statements = ("import matplotlib.pyplot as plt", "from matplotlib import pyplot", "import matplotlib as mpl")
    paths = [page(tmp_path, f"en/p{n}.md", code(MATPLOTLIB_PAGE.format(statement=s))) for n, s in enumerate(statements)]
    plain = page(tmp_path, "en/plain.md", code("import sys\nprint('matplotlib' in sys.modules)"))
    report = make_engine().run([*paths, plain])
    assert not report.failures
    for result in report.results[:3]:
        assert result.cell_outputs()[0][0]["text"].splitlines() == [
            "before: False", "100.0 torchnotes", "['png'] {'Software': None}",
            "True SourceFileLoader", "[]"]
    assert report.results[3].cell_outputs()[0][0]["text"] == "False\n"
    cache = Cache(tmp_path / "cache")
    assert "matplotlib" in cache.get(report.results[0].key)["inputs"]["packages"]
    assert "matplotlib" not in cache.get(report.results[3].key)["inputs"]["packages"]


def test_expected_error_is_shown(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("import torch\ntorch.zeros(2, 3).view(4)", RAISES + ' match="invalid for input of size 6"'))
    result = run_one(make_engine, path)
    assert result.error is None
    error = result.cell_outputs()[0][0]
    assert error["output_type"] == "error" and error["ename"] == "RuntimeError"


def test_cells_after_an_expected_error_still_run(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("1/0", 'tags=["raises-exception"] raises="ZeroDivisionError"') + code("print('after')"))
    result = run_one(make_engine, path)
    assert result.error is None and result.cell_outputs()[1][0]["text"] == "after\n"


def test_expected_error_missing(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("x = 1") + code("y = 2", RAISES))
    error = run_one(make_engine, path).error
    assert isinstance(error, ExpectedErrorMissing)
    assert error.cell == 2 and error.line is not None
    assert "en/a.md" in error.message and "code cell 2" in error.message and "RuntimeError" in error.message


def test_expected_error_of_another_type(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("[][1]", RAISES))
    error = run_one(make_engine, path).error
    assert isinstance(error, ExpectedErrorMismatch)
    assert "expected RuntimeError, got IndexError" in error.reason


def test_expected_error_message_must_match(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("raise RuntimeError('other words')", RAISES + ' match="0D or 1D"'))
    error = run_one(make_engine, path).error
    assert isinstance(error, ExpectedErrorMismatch) and "does not match" in error.reason


def test_unexpected_exception_names_page_cell_line_and_cause(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", "Intro.\n\n" + code("x = 1") + code("import torch\ntorch.ones(2) @ torch.ones(3)"))
    error = run_one(make_engine, path).error
    assert isinstance(error, CellFailed)
    assert error.cell == 2
    text = path.read_text().splitlines()
    assert text[error.line - 1].startswith("```python") and "torch.ones(2) @" in text[error.line + 1]
    assert "RuntimeError" in error.reason and "en/a.md" in error.message
    assert "raises-exception" in error.message  # says what to do
    assert "torch.ones(2) @ torch.ones(3)" in error.details  # the traceback


def test_needs_cuda_runs_only_with_cuda(tmp_path, make_engine, env):
    path = page(tmp_path, "en/a.md", code("import torch\nx = torch.ones(1, device='cuda')\nprint(x.sum().item())", 'tags=["needs-cuda"]') + code("print('cpu')"))
    result = run_one(make_engine, path)
    assert result.error is None
    cpu = [{"output_type": "stream", "name": "stdout", "text": "cpu\n"}]
    if env.cuda:  # a GPU build runs the cell for real
        assert result.cell_outputs() == [[{"output_type": "stream", "name": "stdout", "text": "1.0\n"}], cpu]
    else:  # a CPU build runs nothing and invents nothing
        assert result.cell_outputs() == [[], cpu]


def test_skip_execution_never_runs(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("raise SystemExit('must not run')", 'tags=["skip-execution"]') + code("print(2)"))
    result = run_one(make_engine, path)
    assert result.error is None and result.cell_outputs()[0] == []


def test_cell_timeout(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("x = 1") + code("import time\ntime.sleep(30)"), extra="timeout: 2\n")
    result = run_one(make_engine, path)
    assert isinstance(result.error, CellTimeout)
    assert result.error.cell == 2 and "2 s" in result.error.reason
    assert result.seconds < 25


def test_kernel_death(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("import os\nos._exit(3)"))
    result = run_one(make_engine, path)
    assert isinstance(result.error, KernelDied) and result.error.cell == 1


def test_memory_blow_up_is_contained(tmp_path, make_engine):
    # 6 GiB of address space: reserved lazily, so without a cap it succeeds; under a 4 GiB cap it must fail.
    big = code("import torch\nx = torch.empty(6 * 2**30, dtype=torch.uint8)\nprint('allocated')")
    path = page(tmp_path, "en/a.md", big)
    result = run_one(make_engine, path, memory_limit_mb=4096)
    assert isinstance(result.error, CellFailed) and "can't allocate memory" in result.error.reason
    assert result.error.cell == 1
    # The same cell without the cap runs: the cap, not the machine, refused it.
    uncapped = run_one(make_engine, page(tmp_path, "en/c.md", big), memory_limit_mb=0)
    assert uncapped.error is None and uncapped.cell_outputs()[0][0]["text"] == "allocated\n"
    # The machine survived: the next page runs.
    ok = page(tmp_path, "en/b.md", code("print('alive')"))
    assert run_one(make_engine, ok, memory_limit_mb=4096).cell_outputs()[0][0]["text"] == "alive\n"


def test_a_cuda_machine_starts_its_kernels_without_the_address_space_cap(make_engine, env):
    """RLIMIT_AS stops CUDA from starting (its runtime reserves address space of the size of the GPU's and the host's
    memory: 'cudaGetDeviceCount ... Error 2: out of memory' in every needs-cuda cell of a recording on an H200)."""
    from dataclasses import replace

    assert make_engine(memory_limit_mb=4096).options.memory_limit_mb == 4096
    gpu = make_engine(replace(env, cuda=True, device="NVIDIA H200"), memory_limit_mb=4096)
    assert gpu.options.memory_limit_mb == 0


def test_syntax_error(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("def f(:\n    pass"))
    error = run_one(make_engine, path).error
    assert isinstance(error, CellFailed) and "SyntaxError" in error.reason and error.cell == 1


@pytest.mark.parametrize("body,extra,kind,words", [
    (code("x = 1", 'tags=["no-such-tag"]'), "", InvalidTags, "unknown tag 'no-such-tag'"),
    (code("1/0", 'tags=["raises-exception"]'), "", InvalidTags, "needs raises="),
    (code("1/0", 'raises="ZeroDivisionError"'), "", InvalidTags, "need the tag 'raises-exception'"),
    (code("1/0", 'tags=["raises-exception"] raises="ZeroDivisionError" match="("'), "", InvalidTags, "regular expression"),
    (code("x = 1", 'colour="red"'), "", InvalidTags, "unknown cell option"),
    # an invalid escape in an option: jupytext's reading would depend on the warning filters
    (code("1/0", 'tags=["raises-exception"] raises="ZeroDivisionError" match="by \\(zero\\)"'), "", InvalidTags, "cannot read the options"),
    ("```bash\necho hi\n```\n", "", InvalidCell, "```bash"),
    (code("x = 1") + "```bash\necho hi\n```\n", "", InvalidCell, "%%bash"),
    (code("x = 1"), "timeout: soon\n", InvalidFrontMatter, "'timeout' must be int"),
    (code("x = 1"), "layout: wide\n", InvalidFrontMatter, "unknown front matter key 'layout'"),
])
def test_invalid_pages_are_refused_before_running(tmp_path, body, extra, kind, words):
    path = page(tmp_path, "en/a.md", body, extra=extra)
    with pytest.raises(kind) as caught:
        read_page(path)
    assert words in str(caught.value) and "en/a.md" in str(caught.value)


def test_missing_front_matter(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# No front matter\n\n" + code("x = 1"))
    with pytest.raises(InvalidFrontMatter, match="no front matter"):
        read_page(path)


def test_broken_yaml_front_matter(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("---\ntitle: [unclosed\n---\n\n# T\n")
    with pytest.raises(InvalidFrontMatter):
        read_page(path)


def test_invalid_page_stops_the_run_before_any_kernel(tmp_path, make_engine):
    good = page(tmp_path, "en/good.md", code("print('ok')"))
    bad = page(tmp_path, "en/bad.md", code("x = 1", 'tags=["nope"]'))
    report = make_engine().run([good, bad])
    assert [r.status for r in report.results] == ["skipped", "failed"]
    assert report.kernels == 0
    assert isinstance(report.failures[0], InvalidTags)
