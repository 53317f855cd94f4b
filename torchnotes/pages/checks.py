"""Site-wide checks: every page in every language, and every page in sync with its paired notebook."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jupytext
import nbformat

from torchnotes.errors import (
    KeptNotice,
    MissingTranslation,
    NotebookError,
    PairOutOfSync,
    UnmarkedEnglish,
    UntranslatedPage,
)
from torchnotes.pages.read import Page, Reader, parse_markdown

# Written into the non-English twin of an imported page (scripts/import_tutorial.py) until it is translated; the
# site shows such a page in English under a notice (torchnotes.publish.tree.untranslated).
TRANSLATE_MARKER = "<!-- torchnotes: to translate -->"
# The notice's words (the site's, torchnotes/strings.py) and those of the notice the importer once wrote.
NOTICE_TEXTS = ("本页尚未翻译", "下面仍是英文原文")
# A line written in the language: for Chinese, any Han character. Languages without one are not checked.
_WRITTEN_IN = {"zh": re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")}

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def page_paths(docs_dir: Path, lang: str) -> list[Path]:
    return sorted((Path(docs_dir) / lang).rglob("*.md"))


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


def paired_notebook(page: Path, docs_dir: Path, notebooks_dir: Path) -> Path:
    return Path(notebooks_dir) / Path(page).relative_to(docs_dir).with_suffix(".ipynb")


def notebook_for(page: Path, reader: Reader | None = None, *, lang: str) -> nbformat.NotebookNode | None:
    """The paired notebook as committed, or None for a page without code (the report): nothing to pair."""
    notebook = parse_markdown(Path(page).read_text(encoding="utf-8"), page, reader)
    if not any(c.cell_type == "code" for c in notebook.cells):
        return None
    return as_paired(notebook, lang)


def as_paired(notebook: nbformat.NotebookNode, lang: str | None = None) -> nbformat.NotebookNode:
    """A copy of a parsed page as a plain notebook: a kernelspec so Colab picks Python, jupytext's
    bookkeeping dropped, the front matter kept in metadata so jupytext can pair it back. With the page's
    language, the cells the page features add for readers outside the site (Feature.notebook: a CJK font)."""
    notebook = copy.deepcopy(notebook)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    jt = notebook.metadata.setdefault("jupytext", {})
    for key in ("cell_metadata_filter", "notebook_metadata_filter", "main_language", "text_representation"):
        jt.pop(key, None)
    if lang is not None:
        # Imported here, not above: the features import this module.
        from torchnotes.publish.features import FEATURES

        for feature in FEATURES:
            notebook = feature.notebook(notebook, lang)
    return notebook


def paired_view(page: Page, lang: str | None) -> nbformat.NotebookNode:
    """as_paired of a page as read, made once per page and language and kept with the page: read-only, as the
    page is (the checks, the script and the executed notebook each want it; a change is made to a copy)."""
    view = page.derived.get(("as_paired", lang))
    if view is None:
        view = page.derived[("as_paired", lang)] = as_paired(page.notebook, lang)
    return view


def paired_text(page: Page, reader: Reader | None = None, *, lang: str) -> str:
    """The paired notebook's text of a page as read; kept with the page (read-only) for as long as it is read."""
    text = page.derived.get("paired")
    if text is None:
        text = page.derived["paired"] = notebook_text(paired_view(page, lang), reader)
    return text


def notebook_text(notebook: nbformat.NotebookNode, reader: Reader | None = None) -> str:
    """The notebook as .ipynb text; nbformat validates it on the way, once per content and reader (remembered)."""
    made_from = json.dumps(notebook, sort_keys=True, ensure_ascii=False)
    return (reader or Reader()).remembered("ipynb", made_from, lambda: {"text": jupytext.writes(notebook, fmt="ipynb")})["text"]


def _shape(notebook: nbformat.NotebookNode) -> list[tuple]:
    return [(c.cell_type, c.source, sorted((c.metadata or {}).items()), len(c.get("outputs", [])))
            for c in notebook.cells]


def check_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None) -> list[NotebookError]:
    errors: list[NotebookError] = []
    for lang in langs:
        for page in page_paths(docs_dir, lang):
            paired = paired_notebook(page, docs_dir, notebooks_dir)
            try:
                expected = notebook_for(page, reader, lang=lang)
            except NotebookError as error:
                errors.append(error)
                continue
            if expected is None:
                if paired.exists():
                    errors.append(PairOutOfSync(paired, f"notebook of a page without code ({page}): remove it"))
                continue
            if not paired.exists():
                errors.append(PairOutOfSync(page, f"no paired notebook {paired}"))
                continue
            try:
                committed = nbformat.reads(paired.read_text(encoding="utf-8"), as_version=4)
            except (ValueError, nbformat.reader.NotJSONError) as error:
                errors.append(PairOutOfSync(page, f"paired notebook {paired} is not a valid notebook: {error}"))
                continue
            if any(c.get("outputs") for c in committed.cells):
                errors.append(PairOutOfSync(page, f"paired notebook {paired} has outputs committed"))
            elif _shape(committed) != _shape(expected):
                errors.append(PairOutOfSync(page, f"page and {paired} differ"))
        for paired in _orphans(docs_dir, notebooks_dir, lang):
            errors.append(PairOutOfSync(paired, f"notebook has no page {_page_of(paired, docs_dir, notebooks_dir)}"))
    return errors


def sync_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None) -> list[Path]:
    """Write every paired notebook from its page; remove notebooks whose page is gone. Returns what changed."""
    reader = reader or Reader()
    changed = []
    for lang in langs:
        for page in page_paths(docs_dir, lang):
            paired = paired_notebook(page, docs_dir, notebooks_dir)
            expected = notebook_for(page, reader, lang=lang)
            if expected is None:
                if paired.exists():
                    paired.unlink()
                    changed.append(paired)
                continue
            text = notebook_text(expected, reader)
            if not paired.exists() or paired.read_text(encoding="utf-8") != text:
                paired.parent.mkdir(parents=True, exist_ok=True)
                paired.write_text(text, encoding="utf-8")
                changed.append(paired)
        for paired in _orphans(docs_dir, notebooks_dir, lang):
            paired.unlink()
            changed.append(paired)
    return changed


def _page_of(paired: Path, docs_dir: Path, notebooks_dir: Path) -> Path:
    return Path(docs_dir) / paired.relative_to(notebooks_dir).with_suffix(".md")


def _orphans(docs_dir: Path, notebooks_dir: Path, lang: str) -> list[Path]:
    found = sorted((Path(notebooks_dir) / lang).rglob("*.ipynb"))
    return [p for p in found if ".ipynb_checkpoints" not in p.parts and not _page_of(p, docs_dir, notebooks_dir).exists()]
