"""One Chinese term per concept: the 术语表 table in CONTRIBUTING.zh.md, and the check that enforces it.

The table has three columns: the English term, the Chinese term to use, and the forbidden variants
(separated by 、; a note in （…） after a variant is for the reader only). A forbidden variant inside one of
the terms to use (缓冲 in 缓冲区) is not reported. Code fences and inline code are not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import NotebookError

HEADING = "术语表"


class GlossaryError(NotebookError):
    hint = "CONTRIBUTING.zh.md needs a '## 术语表' section with a table: English | 使用 | 禁用 (variants separated by 、)."


class ForbiddenTerm(NotebookError):
    hint = "Use the term from the 术语表 (glossary) in CONTRIBUTING.zh.md; code and inline code are not checked."


@dataclass(frozen=True)
class Term:
    english: str
    use: tuple[str, ...]
    forbidden: tuple[str, ...]


def _words(cell: str, separators: str) -> tuple[str, ...]:
    cell = re.sub(r"[（(][^）)]*[）)]|`[^`]*`", "", cell)
    return tuple(word.strip() for word in re.split(f"[{separators}]", cell) if word.strip())


def read_glossary(path: Path) -> list[Term]:
    """The rows of the 术语表 table; a missing section, table or empty row is a GlossaryError."""
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if re.match(rf"^##\s+{HEADING}\s*$", line))
    except StopIteration:
        raise GlossaryError(path, f"no '## {HEADING}' section") from None
    terms = []
    rows = [(i, line) for i, line in enumerate(lines[start + 1:], start=start + 2) if line.startswith("|")]
    for number, line in rows[2:]:  # header and delimiter rows
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            raise GlossaryError(path, f"a {HEADING} row needs 3 cells, found {len(cells)}", line=number)
        english, use, forbidden = cells
        term = Term(english, _words(use, "/、"), _words(forbidden, "、"))
        if not term.use or not term.forbidden:
            raise GlossaryError(path, f"row '{english}' needs a term to use and at least one forbidden variant",
                                line=number)
        terms.append(term)
    if not terms:
        raise GlossaryError(path, f"the '## {HEADING}' section has no table rows")
    return terms


def _prose_lines(text: str):
    """(line number, line) for lines outside code fences, with inline code blanked out."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        run = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and run:
            fence = run.group(1)
            continue
        if fence is not None:
            if run and run.group(1)[0] == fence[0] and len(run.group(1)) >= len(fence) and stripped == run.group(1):
                fence = None
            continue
        yield number, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group()), line)


def find_forbidden(path: Path, terms: list[Term]) -> list[ForbiddenTerm]:
    """Every forbidden variant on the page, by line, naming the term(s) to use instead."""
    allowed = {word for term in terms for word in term.use}
    by_variant: dict[str, list[Term]] = {}
    for term in terms:
        for variant in term.forbidden:
            by_variant.setdefault(variant, []).append(term)
    errors = []
    for number, line in _prose_lines(path.read_text(encoding="utf-8")):
        # Spans of terms to use: a variant inside one of them is that term, not the variant.
        covered = {i for word in allowed for m in re.finditer(re.escape(word), line) for i in range(*m.span())}
        for variant, owners in by_variant.items():
            for match in re.finditer(re.escape(variant), line):
                if set(range(*match.span())) <= covered:
                    continue
                instead = "; ".join(f"{' / '.join(t.use)} ({t.english})" for t in owners)
                errors.append(ForbiddenTerm(path, f"'{variant}' is not the glossary's term: use {instead}", line=number))
    return errors


def check_terms(pages: list[Path], glossary: Path) -> list[NotebookError]:
    try:
        terms = read_glossary(glossary)
    except GlossaryError as error:
        return [error]
    return [error for page in pages for error in find_forbidden(page, terms)]
