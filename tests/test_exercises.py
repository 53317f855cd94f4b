"""Exercises (torchnotes/publish/features/exercises.py): numbered questions with folded solutions on the site, solutions
the build runs and checks, and notebooks where the reader answers first and the solution waits, hidden."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from helpers import build, code, fixture_copy, page
from nbclient import NotebookClient

from torchnotes.publish.paired import sync_pairs

QUESTION_1 = "Without running it: what shape does `x[:, None]` have?"
DRILL = (code("import torch\nx = torch.zeros(2, 3)") + "## Check yourself\n\n"
         '<!-- #region tags=["exercise"] -->\n' + QUESTION_1 + "\n\n```text\nx[:, None].shape\n```\n<!-- #endregion -->\n\n"
         + code("shape = x[:, None].shape\nprint('solution one', shape)\nassert shape == (2, 1, 3)", 'tags=["solution"]')
         + '<!-- #region tags=["exercise"] -->\nWhat does `torch.zeros(2) + torch.zeros(3)` raise?\n<!-- #endregion -->\n\n'
         + code("torch.zeros(2) + torch.zeros(3)", 'tags=["solution", "raises-exception"] raises="RuntimeError"'))


@pytest.fixture(scope="module")
def drill_site(tmp_path_factory) -> Path:
    """The fixture site with one more page of two exercises in both languages, built once."""
    root = tmp_path_factory.mktemp("exercises")
    src = fixture_copy(root, synced=False)
    for lang in ("en", "zh"):
        page(src / "docs", f"{lang}/drill.md", DRILL, title="Drill")
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    done = build(src, root / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "site"


@pytest.mark.parametrize("lang, title, solution", [("en", "Exercise", "Solution"), ("zh", "练习", "参考答案")])
def test_each_exercise_is_a_numbered_box_with_its_solution_folded_inside(drill_site, lang, title, solution):
    folder = drill_site / ("" if lang == "en" else "zh") / "drill"
    soup = BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")
    boxes = soup.select("article div.tn-exercise")
    assert [box["id"] for box in boxes] == ["exercise-1", "exercise-2"]
    assert [box.select_one(".admonition-title a")["href"] for box in boxes] == ["#exercise-1", "#exercise-2"]
    assert [box.select_one(".admonition-title").get_text() for box in boxes] == [f"{title} 1", f"{title} 2"]
    assert "what shape does" in boxes[0].get_text() and "raise?" in boxes[1].get_text()
    folded = [box.select_one("details.tn-solution") for box in boxes]
    assert all(d is not None and d.get("open") is None for d in folded)  # closed until the reader opens it
    assert [d.summary.get_text() for d in folded] == [solution, solution]
    # The executed solution, its cell number and its output, inside the fold.
    assert folded[0].select_one("#cell-2") and "solution one torch.Size([2, 1, 3])" in folded[0].get_text()
    assert "RuntimeError" in folded[1].select_one(".nb-output").get_text()
    assert "<!-- cell" not in (folder / "index.html").read_text(encoding="utf-8")  # no marker left behind


def test_questions_are_searchable_and_solutions_are_not(drill_site):
    index = json.loads((drill_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    # The plugin packs each page as one row: its location, then its sections' anchors, titles and texts.
    text = " ".join(" ".join(row) for row in index["docs"] if row[0].startswith("drill/"))
    assert "what shape does" in text
    assert "solution one" not in text and "assert shape" not in text and "Size([2, 1, 3])" not in text


def test_the_downloaded_notebook_hides_each_solution_after_an_answer_cell_and_runs_top_to_bottom(drill_site):
    notebook = nbformat.read(drill_site / "drill" / "drill.ipynb", as_version=4)
    solutions = [i for i, c in enumerate(notebook.cells) if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == 2
    for number, index in enumerate(solutions, 1):
        answer, solved = notebook.cells[index - 1], notebook.cells[index]
        assert answer.cell_type == "code" and answer.source.startswith(f"# Exercise {number}: your answer here")
        assert solved.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}  # JupyterLab, Notebook 7
        assert solved.metadata["cellView"] == "form"  # Colab shows the @title line only
        assert solved.source.startswith(f"# @title Solution of exercise {number}\n")
    # The reader's copy runs from the first cell to the last with a plain kernel, the expected error included.
    for cell in notebook.cells:
        cell.outputs = [] if cell.cell_type == "code" else None
        if cell.cell_type != "code":
            del cell["outputs"]
    NotebookClient(notebook, kernel_name="python3", timeout=120).execute()
    assert "solution one torch.Size([2, 1, 3])" in notebook.cells[solutions[0]].outputs[0]["text"]
    # The paired notebook (what Colab opens) has the same layout, in the page's language.
    paired = nbformat.read(drill_site.parent / "site-src" / "notebooks" / "zh" / "drill.ipynb", as_version=4)
    assert any(c.source.startswith("# 练习 1：在这里作答") for c in paired.cells)


def _site(tmp_path, body):
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    for lang in ("en", "zh"):
        page(tmp_path / "docs", f"{lang}/p.md", body)
    sync_pairs(tmp_path / "docs", tmp_path / "notebooks", ["en", "zh"])
    return subprocess.run([sys.executable, "-m", "torchnotes", "execute"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


def test_a_wrong_solution_fails_the_build_naming_the_page_the_cell_and_the_exercise(tmp_path):
    wrong = DRILL.replace("assert shape == (2, 1, 3)", "assert shape == (2, 3, 1), 'not the shape'")
    done = _site(tmp_path, wrong)
    assert done.returncode == 1
    assert ("docs/en/p.md:23 (code cell 2): the solution of exercise 1 fails: AssertionError: not the shape"
            in done.stderr), done.stderr
    assert "fix the solution, or the exercise above it" in done.stderr
    report = json.loads((tmp_path / ".cache/torchnotes/report.json").read_text())
    assert {p["status"] for p in report["pages"]} == {"failed"}  # never cached, never published


def test_an_exercise_without_its_solution_is_refused_before_anything_runs(tmp_path):
    lonely = DRILL.replace('tags=["solution"]', "")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    for lang in ("en", "zh"):
        page(tmp_path / "docs", f"{lang}/p.md", lonely)
    sync_pairs(tmp_path / "docs", tmp_path / "notebooks", ["en", "zh"])
    done = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1
    assert "docs/en/p.md: exercise 1 has no solution cell right under it" in done.stderr, done.stderr
    assert 'followed at once by one ```python tags=["solution"] cell' in done.stderr


def test_every_lesson_page_ends_with_two_to_four_exercises_in_both_languages():
    """Issue 47: a lesson page (one under a section folder) has a Pitfalls section and 2-4 exercises, the same
    number in its Chinese twin, each paired with its solution (the feature's check holds the pairing)."""
    from helpers import ROOT

    from torchnotes.pages.read import read_page

    lessons = sorted((ROOT / "docs" / "en").glob("*/*.md"))
    assert len(lessons) >= 35
    for english in lessons:
        chinese = ROOT / "docs" / "zh" / english.relative_to(ROOT / "docs" / "en")
        counts = []
        for path, pitfalls, exercises in ((english, "## Pitfalls", "## Check yourself"), (chinese, "## 常见陷阱", "## 动手练习")):
            text = path.read_text(encoding="utf-8")
            assert pitfalls in text and exercises in text, path
            page = read_page(path)
            asked = [c for c in page.notebook.cells if "exercise" in c.metadata.get("tags", [])]
            solved = [c for c in page.code_cells if "solution" in c.metadata.get("tags", [])]
            assert 2 <= len(asked) == len(solved) <= 4, path
            # The exercises come last: after the Check yourself heading, nothing but exercises and solutions.
            assert text.index(exercises) > text.index(pitfalls), path
            counts.append(len(asked))
        assert counts[0] == counts[1], english
