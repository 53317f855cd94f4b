"""A CJK font in the notebooks and scripts readers take away: a page whose figures have Chinese labels draws them
as boxes in Colab, or in a Jupyter on a machine without a Chinese font.

The site's kernel sets Noto Sans CJK SC, from the build machine's fonts-noto-cjk (torchnotes/engine/kernel_setup.py).
A reader's kernel has no such set-up, so every notebook of a zh page that draws (the paired notebook under
notebooks/, which the Colab link opens; the executed download; the .py script) gets, before its first code cell, a
cell that uses a Chinese font the machine has and otherwise installs the very font the site draws with:
noto-cjk-sans-otc from PyPI, whose NotoSansCJK-Regular.ttc is byte for byte Debian's (SIL OFL 1.1, a 15 MB
wheel, no dependencies), pinned by version and hash. pip puts it under the user's cache folder with --target: no
root, and the reader's Python environment stays as it was. Offline, the cell says why it could not and the
figures draw as they would have.

The cell is not in the page: the site's cell numbers and the execution cache are those of the page alone.
"""

from __future__ import annotations

import json
import re

import nbformat

from torchnotes.publish.features.base import Feature
from torchnotes.strings import strings

# The languages whose figures have CJK labels.
CJK_LANGUAGES = ("zh",)
PACKAGE = "noto-cjk-sans-otc"
VERSION = "0.0.1"
WHEEL_SHA256 = "44596df7f0c1590cb9c4cfe85b9213b7e91e1086a8a024f1a05df6d6badd33ec"
FONT_FILE = "noto_cjk_sans_otc/NotoSansCJK-Regular.ttc"  # inside the wheel
CACHE_FOLDER = f"pytorch-notes/{PACKAGE}-{VERSION}"  # under XDG_CACHE_HOME, or ~/.cache
CELL_ID = "cjk-font"
# Fonts a reader's machine may have that draw Simplified Chinese, best first. matplotlib before 3.11 names a
# .ttc by its first face: Debian's Noto Sans CJK is then "Noto Sans CJK JP", which draws every Chinese character.
INSTALLED = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei",
             "Hiragino Sans GB", "Heiti SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "SimHei",
             "Noto Sans CJK JP")
_DRAWS = re.compile(r"^\s*(?:import|from)\s+matplotlib\b", re.MULTILINE)

_CELL = '''\
# @title {title}
{why}
def _use_cjk_font():
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    import matplotlib
    from matplotlib import font_manager

    have = {{font.name for font in font_manager.fontManager.ttflist}}
    installed = ({installed})
    name = next((name for name in installed if name in have), None)
    if name is None:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(cache, {folder})
        font = os.path.join(folder, {font_file})
        if not os.path.exists(font):
            print({downloading}.format(folder=folder), flush=True)
            try:
                os.makedirs(os.path.dirname(folder), exist_ok=True)
                with tempfile.TemporaryDirectory(dir=os.path.dirname(folder)) as temp:
                    requirement = os.path.join(temp, "requirement.txt")
                    with open(requirement, "w") as handle:
                        handle.write({requirement})
                    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "--no-deps", "--require-hashes", "--retries", "1", "--timeout", "20",
                           "--target", os.path.join(temp, "font"), "-r", requirement]
                    subprocess.run(pip, check=True, capture_output=True, text=True, timeout=600)
                    shutil.rmtree(folder, ignore_errors=True)
                    os.replace(os.path.join(temp, "font"), folder)
            except (OSError, subprocess.SubprocessError) as error:
                said = (getattr(error, "stderr", None) or str(error)).strip().splitlines()
                print({failed}.format(reason=said[-1] if said else type(error).__name__))
                return
        font_manager.fontManager.addfont(font)
        faces = [face.name for face in font_manager.fontManager.ttflist if face.fname == font]
        name = "Noto Sans CJK SC" if "Noto Sans CJK SC" in faces else faces[0]
    matplotlib.rcParams["font.family"] = ["DejaVu Sans", name]


_use_cjk_font()
del _use_cjk_font'''


def draws(notebook: nbformat.NotebookNode) -> bool:
    """The page imports matplotlib in a code cell (pyplot, patches, ...: every figure of the site is drawn so)."""
    return any(cell.cell_type == "code" and _DRAWS.search(cell.source) for cell in notebook.cells)


def font_cell(lang: str) -> nbformat.NotebookNode:
    w = strings(lang)["notebook_fonts"]
    names = [", ".join(_py(name) for name in INSTALLED[i:i + 4]) for i in range(0, len(INSTALLED), 4)]
    source = _CELL.format(
        title=w["title"], why="\n".join(f"# {line}" for line in w["why"].split("\n")),
        installed=",\n                 ".join(names), folder=_py(CACHE_FOLDER), font_file=_py(FONT_FILE),
        downloading=_py(w["downloading"]), failed=_py(w["failed"]),
        requirement=_py(f"{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n"))
    # cellView "form": Colab shows the cell as its @title, its code a click away.
    return nbformat.v4.new_code_cell(source, id=CELL_ID, metadata={"cellView": "form"})


def _py(text: str) -> str:
    """A string as Python source, in double quotes like the rest of the cell."""
    return json.dumps(text, ensure_ascii=False)


class NotebookFonts(Feature):
    @classmethod
    def notebook(cls, notebook: nbformat.NotebookNode, lang: str) -> nbformat.NotebookNode:
        if lang not in CJK_LANGUAGES or not draws(notebook):
            return notebook
        first = next(index for index, cell in enumerate(notebook.cells) if cell.cell_type == "code")
        notebook.cells.insert(first, font_cell(lang))
        return notebook
