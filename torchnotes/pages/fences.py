"""Where a page's code cells begin, read from its text without parsing it."""

from __future__ import annotations

import re
from pathlib import Path

_CODE_FENCE = re.compile(r"^```\s*(python3?|py3)?\b.*$")


def code_cell_lines(text: str) -> list[int]:
    """1-based line of each ```python fence, so messages point into the .md file."""
    lines = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if not in_fence and _CODE_FENCE.match(line) and line[3:].strip().split(" ")[0] in ("python", "python3"):
                lines.append(number)
            in_fence = not in_fence
    return lines


def has_code_cell(path: Path) -> bool:
    """Whether the page's file has a ```python fence: what a build knows of its pages before it reads them
    (Engine.start_early). A file that cannot be read counts as none: reading it, the checks that follow name it
    and why."""
    try:
        return bool(code_cell_lines(Path(path).read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False
