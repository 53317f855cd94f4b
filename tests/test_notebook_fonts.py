"""The notebooks and scripts readers take away draw Chinese labels on a machine without a CJK font
(torchnotes/publish/features/notebook_fonts.py): the set-up cell installs Noto Sans CJK with pip, no root.

A machine without a CJK font, as matplotlib sees it: a font list of its own (MPLCONFIGDIR) made under
MPL_IGNORE_SYSTEM_FONTS (only the fonts matplotlib ships, as tests/test_fonts.py hides them), which matplotlib then
reads instead of scanning the machine. The variable itself cannot stay set: it also hides any font added later.

The cell's own pip command runs (--require-hashes, --target under XDG_CACHE_HOME, here tmp_path), with the index
swapped for a folder holding the pinned wheel (PIP_NO_INDEX, PIP_FIND_LINKS): the wheel is fetched from PyPI once
and kept in pytest's cache, so later runs need no network and take no download time.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT
from nbclient import NotebookClient

from torchnotes.pages.listing import page_paths
from torchnotes.pages.read import Reader, read_page
from torchnotes.publish.features import FEATURES
from torchnotes.publish.features.notebook_fonts import (
    CACHE_FOLDER,
    CELL_ID,
    FONT_FILE,
    PACKAGE,
    VERSION,
    WHEEL_SHA256,
    draws,
)
from torchnotes.publish.features.notebooks import executed_notebook
from torchnotes.publish.paired import as_paired, check_pairs, sync_pairs
from torchnotes.publish.script import SEEDS, page_script
from torchnotes.strings import strings

PAGE = "tensors/memory-format"  # the smallest real zh page that draws (its labels and title are Chinese)
MISSING = "missing from font"
FAILED = strings("zh")["notebook_fonts"]["failed"].split("（")[0]  # 无法下载中文字体


@pytest.fixture(scope="session")
def wheels(pytestconfig):
    """A folder holding the pinned wheel: pip downloads it from PyPI the first time, checking its hash."""
    folder = pytestconfig.cache.mkdir("noto-cjk-wheel")
    wheel = folder / f"{PACKAGE.replace('-', '_')}-{VERSION}-py3-none-any.whl"
    if not wheel.exists() or hashlib.sha256(wheel.read_bytes()).hexdigest() != WHEEL_SHA256:
        requirement = folder / "requirement.txt"
        requirement.write_text(f"{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
                        "-r", str(requirement), "-d", str(folder)], check=True, timeout=600)
    return folder


@pytest.fixture(scope="module")
def font_list(tmp_path_factory) -> Path:
    """A matplotlib config folder whose font list has only the fonts matplotlib ships."""
    config = tmp_path_factory.mktemp("mplconfig")
    hidden = {**os.environ, "MPLCONFIGDIR": str(config), "MPL_IGNORE_SYSTEM_FONTS": "1"}
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=hidden, check=True)
    return config


@pytest.fixture
def no_cjk_font(tmp_path, font_list):
    """Environment variables of a machine whose matplotlib knows no CJK font and whose pip reaches no index;
    the cache folders in tmp_path."""
    config = tmp_path / "mplconfig"
    shutil.copytree(font_list, config)
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TORCHNOTES_", "MPL", "PIP_"))}
    return {**env, "MPLCONFIGDIR": str(config), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(empty), "PIP_CONFIG_FILE": os.devnull}


def installed_font(env: dict) -> Path:
    return Path(env["XDG_CACHE_HOME"]) / CACHE_FOLDER / FONT_FILE


def test_the_zh_notebook_draws_chinese_where_no_cjk_font_is_installed(no_cjk_font, wheels, monkeypatch):
    """The paired notebook under notebooks/ (what the Colab link opens), run as Jupyter runs it."""
    notebook = nbformat.read(ROOT / "notebooks" / "zh" / f"{PAGE}.ipynb", as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code[0].id == CELL_ID and not any(cell.id == CELL_ID for cell in code[1:])
    probe = "from matplotlib import font_manager\nprint(font_manager.findfont('Noto Sans CJK SC'))"
    notebook.cells.append(nbformat.v4.new_code_cell(probe))
    for key in [k for k in os.environ if k.startswith(("TORCHNOTES_", "MPL", "PIP_"))]:
        monkeypatch.delenv(key)
    for key, value in {**no_cjk_font, "PIP_FIND_LINKS": str(wheels)}.items():
        monkeypatch.setenv(key, value)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "docs" / "zh" / "tensors")}}).execute()

    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    said = json.dumps(outputs, ensure_ascii=False)
    assert MISSING not in said and "not found" not in said
    assert any("image/png" in output.get("data", {}) for output in outputs)  # the page drew its figure
    assert "".join(o.text for o in notebook.cells[-1].outputs) == f"{installed_font(no_cjk_font)}\n"
    assert [o.text for o in code[0].outputs][0].startswith("本机没有中文字体")


@pytest.fixture
def zh_script(tmp_path) -> Path:
    """The page's .py as the build writes it beside the zh page (outputs decide only which lines print)."""
    page = read_page(ROOT / "docs" / "zh" / f"{PAGE}.md")
    path = tmp_path / "memory-format-page.py"
    path.write_text(page_script(page, {}, "header", "zh", FEATURES), encoding="utf-8")
    return path


def run_script(path: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path)], env={**env, "MPLBACKEND": "Agg"}, cwd=path.parent,
                          capture_output=True, text=True, timeout=300)


def test_the_zh_script_draws_chinese_where_no_cjk_font_is_installed(zh_script, no_cjk_font, wheels):
    done = run_script(zh_script, {**no_cjk_font, "PIP_FIND_LINKS": str(wheels)})
    assert done.returncode == 0, done.stderr
    assert MISSING not in done.stderr, done.stderr
    assert done.stdout.startswith("本机没有中文字体")
    assert installed_font(no_cjk_font).is_file()
    # The next run finds the font it installed, offline: no download.
    again = run_script(cell_and_figure(zh_script.parent), no_cjk_font)
    assert again.returncode == 0 and MISSING not in again.stderr and again.stdout == "drawn\n"


def cell_and_figure(folder: Path) -> Path:
    """The set-up cell, then a figure with a Chinese title drawn (Agg draws only when asked)."""
    notebook = as_paired(read_page(ROOT / "docs" / "zh" / f"{PAGE}.md").notebook, "zh")
    cell = next(c.source for c in notebook.cells if c.get("id") == CELL_ID)
    path = folder / "cell.py"
    path.write_text(cell + "\n\nimport io\nimport matplotlib.pyplot as plt\n\nfigure, axes = plt.subplots()\n"
                    "axes.set_title('内存中的位置')\nfigure.savefig(io.BytesIO())\nprint('drawn')\n", encoding="utf-8")
    return path


def test_offline_the_cell_says_why_and_the_notebook_goes_on(tmp_path, no_cjk_font):
    """No index and no wheel: the cell says it could not download the font, and what follows runs; its Chinese
    labels are boxes (which also shows that the tests really hide this machine's CJK fonts)."""
    done = run_script(cell_and_figure(tmp_path), no_cjk_font)
    assert done.returncode == 0, done.stderr
    assert FAILED in done.stdout and "fonts-noto-cjk" in done.stdout and done.stdout.endswith("drawn\n")
    assert re.search(r"Glyph \d+ .* missing from font\(s\) DejaVu Sans", done.stderr)
    assert not installed_font(no_cjk_font).exists()
    assert not list(Path(no_cjk_font["XDG_CACHE_HOME"]).rglob("*.ttc"))  # nothing half-installed is left


def test_a_cjk_font_the_machine_has_is_used_without_a_download(tmp_path, no_cjk_font):
    """This machine has fonts-noto-cjk (scripts/setup.sh installs it for the build): matplotlib scans it afresh."""
    env = {**no_cjk_font, "MPLCONFIGDIR": str(tmp_path / "fresh-mplconfig")}
    done = run_script(cell_and_figure(tmp_path), env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "drawn\n" and MISSING not in done.stderr
    assert not Path(no_cjk_font["XDG_CACHE_HOME"]).exists()


@pytest.fixture(scope="module")
def reader():
    return Reader()


def test_only_zh_pages_that_draw_get_the_cell_and_english_notebooks_are_unchanged(reader):
    drawing = []
    for lang in ("en", "zh"):
        for path in page_paths(ROOT / "docs", lang):
            notebook = reader.page(path).notebook
            added = [c for c in as_paired(notebook, lang).cells if c.get("id") == CELL_ID]
            if lang == "en":
                assert added == []  # other features may add cells of their own (exercises' answer cells)
            else:
                assert len(added) == (1 if draws(notebook) else 0), path
                drawing += [path.relative_to(ROOT / "docs" / lang).with_suffix("").as_posix()] if added else []
    assert PAGE in drawing and "tensors/views" not in drawing
    assert not draws(reader.page(ROOT / "docs" / "zh" / "tensors" / "views.md").notebook)


def test_check_accepts_the_paired_notebooks_with_the_cell(reader):
    assert check_pairs(ROOT / "docs", ROOT / "notebooks", ["en", "zh"], reader) == []


def test_sync_adds_the_cell_and_check_requires_it(fixture_site):
    demo = fixture_site / "docs" / "zh" / "demo.md"
    demo.write_text(demo.read_text(encoding="utf-8").replace("plt.plot([0, 1], [0, 1])\n",
                                                             "plt.plot([0, 1], [0, 1])\nplt.title(\"直线\")\n"),
                    encoding="utf-8")
    docs, notebooks = fixture_site / "docs", fixture_site / "notebooks"
    sync_pairs(docs, notebooks, ["en", "zh"])
    assert check_pairs(docs, notebooks, ["en", "zh"]) == []
    paired = notebooks / "zh" / "demo.ipynb"
    cells = nbformat.read(paired, as_version=4).cells
    first = next(i for i, c in enumerate(cells) if c.cell_type == "code")
    assert cells[first].id == CELL_ID and cells[first].metadata == {"cellView": "form"}
    assert CELL_ID not in (notebooks / "en" / "demo.ipynb").read_text(encoding="utf-8")
    # The page itself has no such cell: its code cells, and so its cell numbers and cache keys, are its own.
    assert CELL_ID not in demo.read_text(encoding="utf-8")

    notebook = nbformat.read(paired, as_version=4)
    notebook.cells = [c for c in notebook.cells if c.id != CELL_ID]
    nbformat.write(notebook, paired)
    errors = check_pairs(docs, notebooks, ["en", "zh"])
    assert len(errors) == 1 and f"page and {paired} differ" in errors[0].message
    assert sync_pairs(docs, notebooks, ["en", "zh"]) == [paired]
    assert check_pairs(docs, notebooks, ["en", "zh"]) == []


def test_the_download_and_the_script_carry_the_cell_with_the_page_cells_as_they_were():
    page = read_page(ROOT / "docs" / "zh" / f"{PAGE}.md")
    outputs = {c.id: [{"output_type": "stream", "name": "stdout", "text": f"{c.id}\n"}] for c in page.code_cells}
    executed = executed_notebook(page, outputs, None, "zh", features=FEATURES)
    # The exercises feature's answer cells are its own (tests/test_exercises.py).
    code = [c for c in executed.cells if c.cell_type == "code" and not c.id.startswith("exercise-")]
    assert code[0].id == CELL_ID and code[0].outputs == [] and code[0].execution_count is None
    assert [(c.id, c.execution_count, c.outputs[0].text) for c in code[1:]] == \
        [(c.id, n, f"{c.id}\n") for n, c in enumerate(page.code_cells, 1)]
    english = read_page(ROOT / "docs" / "en" / f"{PAGE}.md")
    assert CELL_ID not in json.dumps(executed_notebook(english, {}, None, "en", features=FEATURES))

    script = page_script(page, {}, "header", "zh", FEATURES)
    setup = script.index("def _use_cjk_font():")
    assert script.index(SEEDS) < setup < script.index(page.code_cells[0].source)
    assert "_use_cjk_font" not in page_script(english, {}, "header", "en", FEATURES)
