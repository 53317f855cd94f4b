"""Every code cell is addressable: its number on the page (#cell-N, the same in both languages), and the In [N] of
its tracebacks made that number, so that what the GPU line, the changes page and a traceback name is the cell the
reader sees."""

from __future__ import annotations

import html
import re

from torchnotes.engine.execute import runnable
from torchnotes.pages.read import Page


def execution_numbers(page: Page, cuda: bool) -> dict[int, int]:
    """IPython's execution count of each code cell that ran -> that cell's number on the page. A cell that does not
    run here (a GPU cell on a CPU build, skip-execution, an empty cell) takes no count, so a traceback's `In[8]`
    can be code cell 13."""
    ran = [n for n, cell in enumerate(page.code_cells, 1) if runnable(cell, cuda) and cell.source.strip()]
    return dict(enumerate(ran, 1))


# IPython's "Cell In[8]" (and "Input In [8]"), the word maybe coloured: after a space or an ANSI colour code.
_IN = re.compile(r"(?:^|(?<=\s)|(?<=\x1b\[\dm)|(?<=\x1b\[\d\dm))In( ?)\[(\d+)\]", re.M)


def renumbered(text: str, numbers: dict[int, int]) -> str:
    """`Cell In[8]` in a traceback as `Cell In[13]`: the number the page shows on the cell (numbers:
    execution_numbers). A count the page does not know is left as it is."""
    def number(match: re.Match) -> str:
        count = int(match.group(2))
        return f"In{match.group(1)}[{numbers.get(count, count)}]"

    return _IN.sub(number, text)


def cell_anchor(number: int, labels: dict) -> str:
    """The cell's number, which every place that names the cell links to (#cell-N): the same in both languages.
    Outside the code block, so the copy button does not copy it."""
    name = html.escape(labels["cell_number"].format(number=number))
    return (f'<div class="nb-cell-number" id="cell-{number}" data-search-exclude>'
            f'<a href="#cell-{number}" aria-label="{name}" title="{name}">[{number}]</a></div>')
