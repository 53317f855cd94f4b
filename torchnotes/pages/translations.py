"""Every page in every language: a twin for each page, and the "to translate" marker telling the truth."""

from __future__ import annotations

import re
from pathlib import Path

from torchnotes.errors import KeptNotice, MissingTranslation, NotebookError, UnmarkedEnglish, UntranslatedPage
from torchnotes.pages.listing import page_paths

# Written into the non-English twin of an imported page (scripts/import_tutorial.py) until it is translated; the
# site shows such a page in English under a notice (torchnotes.publish.tree.untranslated).
TRANSLATE_MARKER = "<!-- torchnotes: to translate -->"
# The notice's words (the site's, torchnotes/strings.py) and those of the notice the importer once wrote.
NOTICE_TEXTS = ("本页尚未翻译", "下面仍是英文原文")
# A line written in the language: for Chinese, any Han character. Languages without one are not checked.
_WRITTEN_IN = {"zh": re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")}


def check_translations(docs_dir: Path, langs: list[str]) -> list[MissingTranslation]:
    docs_dir = Path(docs_dir)
    have = {lang: {p.relative_to(docs_dir / lang) for p in page_paths(docs_dir, lang)} for lang in langs}
    everything = set().union(*have.values())
    errors = []
    for rel in sorted(everything):
        for lang in langs:
            if rel not in have[lang]:
                present = next(lang_ for lang_ in langs if rel in have[lang_])
                errors.append(MissingTranslation(
                    docs_dir / lang / rel,
                    f"missing: the page exists in '{present}' ({docs_dir / present / rel}) but not in '{lang}'",
                ))
    return errors


def untranslated_pages(docs_dir: Path, langs: list[str]) -> list[Path]:
    """Pages outside the first (source) language that still carry the "to translate" marker."""
    return [page for lang in langs[1:] for page in page_paths(docs_dir, lang)
            if any(line.strip() == TRANSLATE_MARKER for line in page.read_text(encoding="utf-8").splitlines())]


def check_untranslated(docs_dir: Path, langs: list[str]) -> list[NotebookError]:
    """The notice says the truth: a marked page has no translated prose (UntranslatedPage), an imported twin
    without the marker is translated (UnmarkedEnglish), and no page carries the notice's text by hand (KeptNotice)."""
    errors: list[NotebookError] = []
    for lang in langs[1:]:
        written = _WRITTEN_IN.get(lang)
        for page in page_paths(docs_dir, lang):
            lines = page.read_text(encoding="utf-8").splitlines()
            marker = next((n for n, line in enumerate(lines, 1) if line.strip() == TRANSLATE_MARKER), None)
            prose = list(_prose_lines(lines))
            translated = next((n for n, line in prose if written and written.search(line)), None)
            if marker is not None:
                if translated is not None:
                    errors.append(UntranslatedPage(
                        page, f"line {translated} is translated, yet the page carries the '{TRANSLATE_MARKER}' marker "
                              f"(line {marker}), so readers are told it is the English original", line=marker))
                continue
            kept = next((n for n, line in prose if any(text in line for text in NOTICE_TEXTS)), None)
            if kept is not None:
                errors.append(KeptNotice(page, "the page is translated (no marker) but keeps the untranslated notice",
                                         line=kept))
            elif written and prose and translated is None and _imported(lines):
                errors.append(UnmarkedEnglish(page, f"no line of its prose is in '{lang}', and it has no "
                                                    f"'{TRANSLATE_MARKER}' marker", line=prose[0][0]))
    return errors


def _imported(lines: list[str]) -> bool:
    """An imported page's twin (scripts/import_tutorial.py writes `source:` into the front matter): one that starts
    as the English text, so deleting its marker alone would pass it off as translated."""
    if not lines or lines[0].strip() != "---":
        return False
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
    return any(line.startswith("source:") for line in lines[1:end])


def _prose_lines(lines: list[str]):
    """(number, line) of the lines outside front matter and code fences."""
    fence, front = None, bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if front:
            front = not (number > 1 and stripped == "---")
            continue
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None:
            yield number, line
