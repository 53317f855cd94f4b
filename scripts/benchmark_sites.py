"""The two sites the benchmark builds, from scratch copies: this project's (ours) and the naive stack's
(mkdocs-jupyter with Material, one project per language), and the edits every rebuild scenario makes."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
EDITED = "tensors/views"  # the page both edits touch

BASELINE_CONFIG = """site_name: PyTorch Notes (baseline, {lang})
theme:
  name: material
  language: {lang}
markdown_extensions: [admonition, pymdownx.details, pymdownx.superfences, pymdownx.tabbed, pymdownx.arithmatex]
plugins:
  - search
  - mkdocs-jupyter:
      execute: true
      allow_errors: true
      cache: true
"""


def prepare_ours(folder: Path, jobs: int = 0) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in ("docs", "notebooks", "overrides"):
        shutil.copytree(ROOT / name, folder / name)
    # CONTRIBUTING.zh.md holds the glossary the search's query expansion reads.
    for name in ("mkdocs.yml", "requirements.txt", "jupytext.toml", "CONTRIBUTING.zh.md"):
        shutil.copy(ROOT / name, folder / name)
    # The files mkdocs.yml names under torchnotes/ (the search's words and synonyms), relative to the project.
    for data in ("search_words_zh.txt", "search_synonyms_zh.yml"):
        (folder / "torchnotes" / "publish").mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "torchnotes" / "publish" / data, folder / "torchnotes" / "publish" / data)
    # A snapshot of the build code, first on PYTHONPATH: edits to the repository during a long run change nothing.
    shutil.copytree(ROOT / "torchnotes", folder / "_code" / "torchnotes", ignore=shutil.ignore_patterns("__pycache__"))
    # The Benchmarks page includes this script's own output; the copy builds without it.
    for lang in ("en", "zh"):
        (folder / "docs" / lang / "benchmarks.md").unlink(missing_ok=True)
    config = folder / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("      - Benchmarks: benchmarks.md\n", "")
    if jobs:
        text = text.replace("  - torchnotes:\n", f"  - torchnotes:\n      jobs: {jobs}\n", 1)
    config.write_text(text, encoding="utf-8")
    return folder


def prepare_baseline(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    for lang in ("en", "zh"):
        shutil.copytree(ROOT / "notebooks" / lang, folder / lang / "docs")
        (folder / lang / "mkdocs.yml").write_text(BASELINE_CONFIG.format(lang=lang), encoding="utf-8")
    return folder


def page_count() -> int:
    return len(list((ROOT / "notebooks").rglob("*.ipynb")))


def edit_prose(name: str, folder: Path, run: int) -> None:
    sentence = f" Benchmark edit {run}."
    if name == "ours":
        page = folder / "docs" / "en" / f"{EDITED}.md"
        lines = page.read_text(encoding="utf-8").split("\n")
        title = next(i for i, line in enumerate(lines) if line.startswith("# "))
        # The first paragraph after the title is prose in every page.
        target = next(i for i in range(title + 1, len(lines)) if lines[i].strip())
        lines[target] += sentence
        page.write_text("\n".join(lines), encoding="utf-8")  # the build re-syncs the notebook (timed)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "markdown", sentence)


def edit_code(name: str, folder: Path, run: int) -> None:
    line = f"\n_benchmark_edit = {run}"
    if name == "ours":
        page = folder / "docs" / "en" / f"{EDITED}.md"
        text = page.read_text(encoding="utf-8")
        start = text.index("```python")
        end = text.index("\n```", start + 9)
        page.write_text(text[:end] + line + text[end:], encoding="utf-8")  # the build re-syncs (timed)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "code", line)


def edit_notebook(path: Path, kind: str, addition: str) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == kind and (kind == "code" or not c.source.startswith("#")))
    cell.source += addition
    nbformat.write(nb, path)


