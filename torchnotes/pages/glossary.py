"""One Chinese term per concept: the 术语表 table in CONTRIBUTING.zh.md, and the check that enforces it.

The table has three columns: the English term, the Chinese term to use, and the forbidden variants
(separated by 、; a note in （…） after a variant is for the reader only). A forbidden variant inside one of
the terms to use (缓冲 in 缓冲区) is not reported. Code fences and inline code are not checked.

The check also runs the other way: where the English page uses a term (any of the English cell's terms,
separated by commas, as a word, in the singular or plural, outside code), the Chinese page must use one of
the row's terms to use. An English term listed on two rows (`step`) names two concepts, so only its
forbidden variants are checked.

A forbidden variant written in Latin letters (`checkpoint`: the English word left untranslated) is matched as a
word, outside link targets and URLs, and not where it glosses one of the row's terms to use in parentheses right
after it: 检查点 (checkpoint).

A second table, under `## 措辞` (wording), lists calques and fixed phrasings: what to write, and the variants that
read as translated word for word (`get_lr()` 却答 …, 首个/末个). Its variants are checked on the whole Chinese page,
code cells included, since the code of a Chinese page differs from the English one only in its comments and printed
labels. In a wording variant, inline code (`代码`) stands for any inline code: `代码` 回答 is any inline code followed
by 回答. The wording table feeds no reverse check and no search synonyms. Where the table exists, the prose is also
checked for English glosses in full-width parentheses, 采样器（sampler）: the site writes 采样器 (sampler).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from torchnotes.errors import NotebookError
from torchnotes.pages.quotes import other_quotes

HEADING = "术语表"
WORDING = "措辞"


class GlossaryError(NotebookError):
    hint = "CONTRIBUTING.zh.md needs a '## 术语表' section with a table: English | 使用 | 禁用 (variants separated by 、)."


class ForbiddenTerm(NotebookError):
    hint = "Use the term from the 术语表 (glossary) in CONTRIBUTING.zh.md; code and inline code are not checked."


class Calque(NotebookError):
    hint = "Use the wording from the 措辞 table in CONTRIBUTING.zh.md; it applies to prose, comments and printed labels."


class MissingTerm(NotebookError):
    hint = ("Where the English page uses a glossary concept, write the 术语表's Chinese term (CONTRIBUTING.zh.md) "
            "in the Chinese page's prose, e.g. 缓冲区 (buffer) the first time; code and inline code do not count.")


@dataclass(frozen=True)
class Term:
    english: str
    use: tuple[str, ...]
    forbidden: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The English terms of the row: the cell without its notes, split at commas."""
        return tuple(" ".join(name.split()) for name in _words(self.english, ",，"))


def _words(cell: str, separators: str) -> tuple[str, ...]:
    # Inline code first: a call such as `step()` inside a note would end the note early.
    cell = re.sub(r"[（(][^）)]*[）)]", "", re.sub(r"`[^`]*`", "", cell))
    return tuple(word.strip() for word in re.split(f"[{separators}]", cell) if word.strip())


def _table(path: Path, heading: str, required: bool = True) -> list[tuple[int, list[str]]]:
    """(line number, cells) of the first table under `## heading`, up to the next `## ` heading."""
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if re.match(rf"^##\s+{heading}\s*$", line))
    except StopIteration:
        if not required:
            return []
        raise GlossaryError(path, f"no '## {heading}' section") from None
    rows, started = [], False
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        if re.match(r"^##\s", line):
            break
        if line.startswith("|"):
            started = True
            rows.append((number, [cell.strip() for cell in line.strip().strip("|").split("|")]))
        elif started:
            break
    if not rows[2:]:
        raise GlossaryError(path, f"the '## {heading}' section has no table rows")
    for number, cells in rows[2:]:  # header and delimiter rows
        if len(cells) != 3:
            raise GlossaryError(path, f"a {heading} row needs 3 cells, found {len(cells)}", line=number)
    return rows[2:]


def read_glossary(path: Path) -> list[Term]:
    """The rows of the 术语表 table; a missing section, table or empty row is a GlossaryError."""
    terms = []
    for number, (english, use, forbidden) in _table(path, HEADING):
        term = Term(english, _words(use, "/、"), _words(forbidden, "、"))
        if not term.use or not term.forbidden:
            raise GlossaryError(path, f"row '{english}' needs a term to use and at least one forbidden variant",
                                line=number)
        terms.append(term)
    return terms


@dataclass(frozen=True)
class Wording:
    meaning: str
    use: tuple[str, ...]
    forbidden: tuple[str, ...]

    def patterns(self) -> list[tuple[str, re.Pattern]]:
        """(variant, pattern): inline code in a variant stands for any inline code."""
        return [(variant, _wording_pattern(variant)) for variant in self.forbidden]


@functools.cache
def _wording_pattern(variant: str) -> re.Pattern:
    return re.compile("`[^`\n]+`".join(re.escape(part) for part in re.split(r"`[^`]*`", variant)))


def _phrases(cell: str, separators: str) -> tuple[str, ...]:
    """A wording cell split at `separators`, keeping inline code; notes in full-width （…） are dropped."""
    cell = re.sub(r"（[^）]*）", "", cell)
    return tuple(word.strip() for word in re.split(f"[{separators}]", cell) if word.strip())


def read_wording(path: Path) -> list[Wording]:
    """The rows of the 措辞 table (none where the section is absent); an empty row is a GlossaryError."""
    wording = []
    for number, (meaning, use, forbidden) in _table(path, WORDING, required=False):
        row = Wording(meaning, _phrases(use, "/"), _phrases(forbidden, "、"))
        if not row.use or not row.forbidden:
            raise GlossaryError(path, f"{WORDING} row '{meaning}' needs the wording to use and at least one variant",
                                line=number)
        wording.append(row)
    return wording


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


def _latin(variant: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z -]*", variant))


@functools.cache
def _variant_pattern(variant: str) -> re.Pattern:
    """A Latin variant as a word, in any case, plural too; any other as written."""
    if _latin(variant):
        return re.compile(r"(?<![\w.-])" + re.escape(variant) + r"s?(?![\w-])", re.IGNORECASE)
    return re.compile(re.escape(variant))


def _occurrences(word: str, line: str) -> list[tuple[int, int]]:
    """The spans of word in line, left to right, none overlapping (as re.finditer finds them)."""
    spans, start = [], line.find(word)
    while start != -1 and word:
        spans.append((start, start + len(word)))
        start = line.find(word, start + len(word))
    return spans


def find_forbidden(path: Path, terms: list[Term]) -> list[ForbiddenTerm]:
    """Every forbidden variant on the page, by line, naming the term(s) to use instead."""
    allowed = {word for term in terms for word in term.use}
    by_variant: dict[str, list[Term]] = {}
    for term in terms:
        for variant in term.forbidden:
            by_variant.setdefault(variant, []).append(term)
    # Each variant's pattern made once, not once a line: `check` reads every Chinese page against every variant.
    variants = [(variant, owners, _latin(variant), _variant_pattern(variant)) for variant, owners in by_variant.items()]
    errors = []
    for number, line in _prose_lines(path.read_text(encoding="utf-8")):
        line = re.sub(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+", lambda m: " " * len(m.group()), line)
        folded = line.lower()
        spans = None
        for variant, owners, latin, pattern in variants:
            if (variant.lower() not in folded) if latin else (variant not in line):
                continue  # what every match would contain is not on the line
            if spans is None:
                # Spans of terms to use: a variant that overlaps one of them and does not contain it is part of
                # that term (缓冲 in 缓冲区, 下面的单元 in 下面的单元格), not the variant.
                spans = [span for word in allowed for span in _occurrences(word, line)]
            for match in pattern.finditer(line):
                start, end = match.span()
                if any(s < end and e > start and not (start <= s and e <= end) for s, e in spans):
                    continue
                before = line[:start]
                if latin and any(re.search(re.escape(word) + r"\s*[(（][^()（）]*$", before)
                                           for owner in owners for word in owner.use):
                    continue  # the gloss after the term to use: 检查点 (checkpoint)
                instead = "; ".join(f"{' / '.join(t.use)} ({t.english})" for t in owners)
                errors.append(ForbiddenTerm(path, f"'{match.group()}' is not the glossary's term: use {instead}",
                                            line=number))
    return errors


# An English gloss after a Chinese term, in full-width parentheses: 采样器（sampler）, **批采样器**（batch sampler）.
# Lowercase first letter only: acronyms and names in parentheses (（CPU）, （NVIDIA）) are not glosses.
FULL_WIDTH_GLOSS = re.compile(r"[\u4e00-\u9fff*]（([a-z](?:[A-Za-z \-]*[A-Za-z])?)）")


def find_calques(path: Path, wording: list[Wording]) -> list[Calque]:
    """Every variant of the 措辞 table on the page, prose and code alike, naming the wording to use; and, in prose,
    every English gloss in full-width parentheses (the site writes 术语 (English))."""
    text = path.read_text(encoding="utf-8")
    errors = []
    for number, line in enumerate(text.splitlines(), start=1):
        for row in wording:
            for variant, pattern in row.patterns():
                if pattern.search(line):
                    errors.append(Calque(path, f"'{variant}' reads as a calque ({row.meaning}): write "
                                               f"{' / '.join(row.use)}", line=number))
    lines = text.splitlines()
    front = next((n for n, line in enumerate(lines[1:], 2) if line.strip() == "---"), 0) if lines[:1] == ["---"] else 0
    if wording:
        for number, line in _prose_lines(text):
            for match in FULL_WIDTH_GLOSS.finditer(line):
                errors.append(Calque(path, f"'（{match.group(1)}）' glosses a term in full-width parentheses: write "
                                           f"术语 ({match.group(1)}), with half-width parentheses", line=number))
            quoted = other_quotes(line) if number > front else None  # front matter is YAML: its strings are quoted
            if quoted is not None:
                errors.append(Calque(path, f"'{quoted}' quotes with other marks than the site's: Chinese prose quotes "
                                           "with “”", line=number))
    return errors


@functools.cache
def _english_pattern(name: str) -> re.Pattern:
    """`name` as a word, singular or plural, words joined by spaces or hyphens (in-place, in place)."""
    words = [re.escape(word) for word in re.split(r"[\s-]+", name)]
    last = words[-1]
    plural = f"(?:{last[:-1]}(?:y|ies)|{last}(?:s|es)?)" if last.endswith("y") and last[-2:-1] not in "aeiou" \
        else f"{last}(?:s|es)?"
    return re.compile(r"(?<![\w-])" + r"[\s-]+".join([*words[:-1], plural]) + r"(?![\w-])", re.IGNORECASE)


def _plain_prose(path: Path):
    """Prose lines without link targets and URLs, which name files, not concepts."""
    for number, line in _prose_lines(path.read_text(encoding="utf-8")):
        yield number, re.sub(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+", " ", line)


def find_missing(english: Path, chinese: Path, terms: list[Term]) -> list[MissingTerm]:
    """Each glossary concept the English page uses whose Chinese term the Chinese page never writes."""
    counts: dict[str, int] = {}
    for term in terms:
        for name in term.names:
            counts[name.lower()] = counts.get(name.lower(), 0) + 1
    english_lines = list(_plain_prose(english))
    chinese_text = "\n".join(line for _, line in _prose_lines(chinese.read_text(encoding="utf-8")))
    errors = []
    for term in terms:
        names = [name for name in term.names if counts[name.lower()] == 1]
        used = next(((number, match.group()) for number, line in english_lines for name in names
                     for match in [_english_pattern(name).search(line)] if match), None)
        if used is None or any(word in chinese_text for word in term.use):
            continue
        number, word = used
        errors.append(MissingTerm(chinese, f"{english}:{number} uses '{word}' (glossary: {', '.join(term.names)}), but this page never "
                                           f"writes the glossary's term {' / '.join(term.use)}"))
    return errors


def check_terms(pages: list[Path], glossary: Path, english_dir: Path | None = None,
                chinese_dir: Path | None = None) -> list[NotebookError]:
    """Forbidden variants on the Chinese `pages`; with both folders, also the terms their English twins need."""
    try:
        terms = read_glossary(glossary)
        wording = read_wording(glossary)
    except GlossaryError as error:
        return [error]
    errors: list[NotebookError] = [error for page in pages for error in find_forbidden(page, terms)]
    errors += [error for page in pages for error in find_calques(page, wording)]
    if english_dir is not None and chinese_dir is not None:
        for page in pages:
            twin = Path(english_dir) / Path(page).relative_to(chinese_dir)
            if twin.exists():
                errors += find_missing(twin, page, terms)
    return errors
