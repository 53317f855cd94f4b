"""Exercises: "Check yourself" questions whose solutions the build runs.

A page asks an exercise in a Markdown region tagged exercise and answers it in the code cell right under it, tagged
solution. The build executes the solution like any cell: its assert checks the answer, so a wrong solution fails the
build, naming the page, the cell and the exercise (torchnotes.engine.execute.solution_named). This feature checks
that exercises and solutions come in pairs, and lays them out:

- on the site, each exercise is a numbered question box (#exercise-N) with its solution folded inside it (the
  PDF prints it open; the code and outputs stay out of the search index, as every cell's do);
- in every notebook a reader takes away (the paired notebook that Colab opens, the download, the script), an
  empty cell to answer in comes before each solution, whose code and outputs are hidden until asked for: Jupyter
  reads source_hidden and outputs_hidden, Colab shows a cellView "form" cell as its "@title" line alone.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from torchnotes.errors import InvalidExercise, NotebookError
from torchnotes.pages.tags import EXERCISE, SOLUTION
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.strings import strings

# What the renderer writes around a marked cell (torchnotes.publish.render.marked).
_MARKED = re.compile(r"<!-- cell (?P<tags>[\w -]+) -->\n\n(?P<body>.*?)\n\n<!-- /cell -->", re.DOTALL)


def _tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


def pairing_errors(path: Path | str, cells) -> list[NotebookError]:
    """Every exercise region followed at once by one solution cell, and every solution cell right under one."""
    errors: list[NotebookError] = []
    code = 0
    for index, cell in enumerate(cells):
        code += cell.cell_type == "code"
        following = cells[index + 1] if index + 1 < len(cells) else None
        if EXERCISE in _tags(cell):
            if following is None or following.cell_type != "code" or SOLUTION not in _tags(following):
                number = sum(EXERCISE in _tags(c) for c in cells[:index + 1])
                errors.append(InvalidExercise(path, f"exercise {number} has no solution cell right under it"))
        if SOLUTION in _tags(cell):
            before = cells[index - 1] if index else None
            if before is None or EXERCISE not in _tags(before):
                errors.append(InvalidExercise(path, "a solution cell with no exercise region right above it",
                                              cell=code))
    return errors


class Exercises(Feature):
    def check(self, pages: list[Path]) -> list[NotebookError]:
        errors: list[NotebookError] = []
        for path in pages:
            try:
                page = self.build.reader.page(path)
            except NotebookError:
                continue  # an unreadable page is reported by the page checks
            errors += pairing_errors(path, page.notebook.cells)
        return errors

    def page(self, out: PageOut, body: str) -> str:
        if "<!-- cell " not in body:
            return body
        labels = strings(out.lang)
        count = 0

        def laid_out(match: re.Match) -> str:
            nonlocal count
            tags, text = match["tags"].split(), match["body"]
            if EXERCISE in tags:
                count += 1
                title = html.escape(labels["exercise_title"].format(number=count))
                # Material's admonition, written out: raw HTML can carry the anchor, and md_in_html reads the
                # question inside it as Markdown. The box stays open for the solution that follows.
                return (f'<div class="admonition question tn-exercise" id="exercise-{count}" markdown>\n'
                        f'<p class="admonition-title"><a class="tn-exercise__link" href="#exercise-{count}">{title}</a></p>'
                        f'\n\n{text}\n')
            # The solution closes its question's box; its code and outputs stay out of search, like every cell's.
            return (f'<details class="success tn-solution" data-search-exclude markdown>\n'
                    f'<summary>{html.escape(labels["solution_summary"])}</summary>\n\n{text}\n\n</details>\n\n</div>')

        return _MARKED.sub(laid_out, body)

    @classmethod
    def notebook(cls, notebook: nbformat.NotebookNode, lang: str) -> nbformat.NotebookNode:
        if not any(SOLUTION in _tags(cell) for cell in notebook.cells):
            return notebook
        labels = strings(lang)
        cells, number = [], 0
        for cell in notebook.cells:
            if cell.cell_type == "code" and SOLUTION in _tags(cell):
                number += 1
                cells.append(nbformat.v4.new_code_cell(labels["exercise_try"].format(number=number),
                                                       id=f"exercise-{number}-answer"))
                cell.source = f"# @title {labels['solution_title'].format(number=number)}\n{cell.source}"
                cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
                cell.metadata["cellView"] = "form"
            cells.append(cell)
        notebook.cells = cells
        return notebook
