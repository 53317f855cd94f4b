"""Issue 45 §2: what an import changes besides its own page. An import whose cells fail writes only its own files
and names them; only an import whose page runs takes over other pages' links to its tutorial, and a link rewritten
in both twins leaves their translation as fresh as it was; a fresh untranslated twin shows only its notice.

Issue 45's "Done when": a tutorial in the shape of the Performance Tuning Guide reports every problem in one import,
and the fixes that report names, and only those, make it check and build with its twin untranslated."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
from helpers import ROOT, build, fixture_copy

from torchnotes.pages.read import read_page
from torchnotes.pages.translations import TRANSLATE_MARKER

pytestmark = pytest.mark.slow  # imports with pandoc and runs the pages, builds the site

TUTORIALS = ROOT / "tests" / "fixtures" / "tutorials" / "beginner_source" / "basics"
PUBLISHED = "https://docs.pytorch.org/tutorials/beginner/basics/"


def _site(tmp_path: Path, tutorial: str) -> Path:
    """The fixture site with a ledger of its translations and a page pair that links to the tutorial's published
    page, as a page imported earlier does."""
    src = fixture_copy(tmp_path)
    for lang, words in (("en", "See [the tutorial]"), ("zh", "见[该教程]")):
        (src / f"docs/{lang}/older.md").write_text(
            f"---\ntitle: Older\ndescription: An older page.\n---\n\n# Older\n\n{words}({PUBLISHED}{tutorial}.html).\n",
            encoding="utf-8")
    done = _cli(src, "sync")
    assert done.returncode == 0, done.stderr
    done = _cli(src, "translated", "--all")
    assert done.returncode == 0, done.stdout + done.stderr
    return src


def _cli(src: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchnotes", *args], cwd=src, capture_output=True, text=True,
                          timeout=600)


def _import(src: Path, tutorial: str, path: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(TUTORIALS / f"{tutorial}.py"),
                           path, "--root", str(src), "--section-zh", "教程"], capture_output=True, text=True, timeout=600)


def test_an_import_that_fails_writes_only_its_own_files_and_names_them(tmp_path):
    src = _site(tmp_path, "outdated_api")
    before = {lang: (src / f"docs/{lang}/older.md").read_text(encoding="utf-8") for lang in ("en", "zh")}
    done = _import(src, "outdated_api", "tutorials/outdated")
    assert done.returncode == 1
    assert "The import wrote only these files, and changed no other page: " in done.stderr
    listed = done.stderr.split("changed no other page: ", 1)[1]
    for wanted in ("docs/en/tutorials/outdated.md", "docs/zh/tutorials/outdated.md", "mkdocs.yml",
                   "notebooks/en/tutorials/outdated.ipynb", "notebooks/zh/tutorials/outdated.ipynb"):
        assert str(src / wanted) in listed, wanted
    assert {lang: (src / f"docs/{lang}/older.md").read_text(encoding="utf-8") for lang in ("en", "zh")} == before
    assert "link: " not in done.stdout


def test_a_link_rewritten_in_both_twins_keeps_the_translation_fresh_and_the_new_twin_shows_only_its_notice(tmp_path):
    src = _site(tmp_path, "gradients")
    done = _import(src, "gradients", "tutorials/gradients")
    assert done.returncode == 0, done.stdout + done.stderr
    for lang in ("en", "zh"):
        assert "](tutorials/gradients.md)" in (src / f"docs/{lang}/older.md").read_text(encoding="utf-8")
    checked = _cli(src, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "older.md" not in checked.stderr  # not "the English page's prose changed since this translation"
    assert "untranslated: docs/zh/tutorials/gradients.md" in checked.stderr
    built = build(src, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    twin = (tmp_path / "site/zh/tutorials/gradients/index.html").read_text(encoding="utf-8")
    assert 'class="nb-untranslated"' in twin and 'class="nb-stale"' not in twin
    older = (tmp_path / "site/zh/older/index.html").read_text(encoding="utf-8")
    assert 'class="nb-stale"' not in older


# --- the tuning guide's problems, all in one fixture --------------------------------------------------------------

TUNING = ROOT / "tests/fixtures/tutorials/recipes_source/recipes/tuning_sketches.py"
SKETCH = "uses names that no code cell running above it defines"


def _cell(page: Path, text: str) -> int:
    """The number of the code cell whose code holds `text`, as the engine and the report number them."""
    return next(n for n, cell in enumerate(read_page(page).code_cells, 1) if text in cell.source)


def _apply(text: str, report: str) -> str:
    """The fixes the import's report names, applied as a contributor would: each call it rewrites, each import it
    asks for, the skip-execution tag on each sketch. Nothing else."""
    for new, old in re.findall(r"-> write `(.+?)` instead of `(.+?)`, in both pages", report):
        text = text.replace(old, new)
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if line.startswith("```python")]  # code cell n: fences[n - 1]
    for cell in re.findall(rf"\(code cell (\d+)\): {SKETCH}", report):
        lines[fences[int(cell) - 1]] = '```python tags=["skip-execution"]'
    for statement, cell in sorted(re.findall(r"-> add `(.+?)` at the top of code cell (\d+)", report),
                                  key=lambda found: -int(found[1])):
        lines.insert(fences[int(cell) - 1] + 1, statement)
    return "\n".join(lines)


def test_a_tuning_guide_reports_every_problem_in_one_import_and_builds_after_only_those_fixes(tmp_path):
    src = fixture_copy(tmp_path)
    shutil.copy(ROOT / "CONTRIBUTING.zh.md", src)  # check holds Chinese pages to its glossary ("checkpoint": 检查点)
    done = subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(TUNING), "tutorials/tuning",
                           "--root", str(src), "--section-zh", "教程"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    report = done.stderr
    pages = {lang: src / f"docs/{lang}/tutorials/tuning.md" for lang in ("en", "zh")}
    en = Path("docs/en/tutorials/tuning.md")

    # One report: the module used without its import, each sketch with the names it lacks, the outdated call with
    # its rewrite, the deprecation warnings of a cell that ran.
    numpy = _cell(pages["en"], "np.linspace")
    assert re.search(rf"{en}:\d+ \(code cell {numpy}\): uses 'np', a module that no code cell running above it imports\n"
                     r"  -> add `import numpy as np` at the top of code cell 1,", report)
    for name, code in (("optimizer", "optimizer.zero_grad()"), ("example_input", "traced(example_input)"),
                       ("m", "torch.compile(m")):
        assert re.search(rf"\(code cell {_cell(pages['en'], code)}\): {SKETCH}: {name}\n", report), name
    assert len(re.findall(SKETCH, report)) == 3
    compiled = _cell(pages["en"], "torch.compile(m")
    assert re.search(rf"\(code cell {compiled}\): outdated API: torch.compile takes only the model by position.*\n"
                     r'  -> write `torch.compile\(m, mode="reduce-overhead"\)` instead of '
                     r'`torch.compile\(m, "reduce-overhead"\)`', report)
    traced = _cell(pages["en"], "torch.jit.trace(")
    assert re.search(rf"\(code cell {traced}\): FutureWarning: `torch.jit.trace` is deprecated", report)
    assert re.search(rf"\(code cell {traced}\): FutureWarning: `torch.jit.freeze` is deprecated", report)
    # ... and the run's own account of the same cells, each failure with its own cause, none blamed on another.
    failing = sorted([numpy, compiled, _cell(pages["en"], "optimizer."), _cell(pages["en"], "(example_input)")])
    assert f"4 code cell(s) fail: {', '.join(map(str, failing))}" in report and "probably because" not in report
    assert "skip-execution" in report.split("code cell(s) fail")[1]

    # The page reads as the site writes: attribution kept, the description from the first paragraph, code for the
    # default role, a console block, "Learn More" as "Further reading", a marked "Key points" to fill in.
    text = pages["en"].read_text(encoding="utf-8")
    assert "**Author**: [Ada Example](https://example.org/ada)" in text and "description: 'A guide in the shape" in text
    assert "such as `sin()` and `cos()`" in text and "```console\npip install torch\n```" in text
    assert "section: 'Learn More' -> 'Further reading'" in done.stdout
    further = text.split("## Further reading\n", 1)[1]
    assert "(https://docs.pytorch.org/docs/stable/generated/torch.compile.html)" in further and "fill in" not in further
    assert "(https://docs.pytorch.org/tutorials/recipes/recipes/saving_and_loading_a_general_checkpoint.html)" in further
    key_points = text.split("## Key points\n", 1)[1].split("## Further reading")[0]
    assert key_points.strip().startswith("<!-- torchnotes: fill in") and text.index("## Key points") < text.index("## Further")
    assert re.search(r"to fill in: .*'Key points'", done.stdout) and "'Further reading' from" not in done.stdout

    # Only the fixes the report names; the twin stays untranslated.
    for page in pages.values():
        page.write_text(_apply(page.read_text(encoding="utf-8"), report), encoding="utf-8")
    assert TRANSLATE_MARKER in pages["zh"].read_text(encoding="utf-8")
    synced = _cli(src, "sync")
    assert synced.returncode == 0, synced.stderr
    checked = _cli(src, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"untranslated: {Path('docs/zh/tutorials/tuning.md')}" in checked.stderr
    built = build(src, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    page = unescape((tmp_path / "site/tutorials/tuning/index.html").read_text(encoding="utf-8"))
    assert "['bias', 'weight']" in page and "`torch.jit.trace` is deprecated" in page  # the cells that run ran
    assert not list((src / "docs").rglob("checkpoint.pt")) and not list((tmp_path / "site").rglob("checkpoint.pt"))

    # The glossary words are really held against a translated page: the same twin without its marker is not.
    zh = pages["zh"].read_text(encoding="utf-8")
    pages["zh"].write_text(zh.replace(TRANSLATE_MARKER + "\n", ""), encoding="utf-8")
    unmarked = _cli(src, "check")
    assert unmarked.returncode == 1 and "检查点" in unmarked.stdout + unmarked.stderr
