"""Each page paired with a plain notebook (notebooks/<lang>/<page>.ipynb): the notebook a reader takes away, as the
page features shape it (Feature.notebook: a CJK font cell, the exercises' answer cells). The features are passed in
by whoever runs them (Build.notebook_features; torchnotes.publish.paired for the command line), so that this module
knows no feature and the features can use it."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path

import jupytext
import nbformat

from torchnotes.errors import NotebookError, PairOutOfSync
from torchnotes.pages.listing import page_paths
from torchnotes.pages.read import Page, Reader, parse_markdown

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def paired_notebook(page: Path, docs_dir: Path, notebooks_dir: Path) -> Path:
    return Path(notebooks_dir) / Path(page).relative_to(docs_dir).with_suffix(".ipynb")


def notebook_for(page: Path, reader: Reader | None = None, *, lang: str, features: Sequence = ()) -> nbformat.NotebookNode | None:
    """The paired notebook as committed, or None for a page without code (the report): nothing to pair."""
    notebook = parse_markdown(Path(page).read_text(encoding="utf-8"), page, reader)
    if not any(c.cell_type == "code" for c in notebook.cells):
        return None
    return as_paired(notebook, lang, features)


def as_paired(notebook: nbformat.NotebookNode, lang: str | None = None, features: Sequence = ()) -> nbformat.NotebookNode:
    """A copy of a parsed page as a plain notebook: a kernelspec so Colab picks Python, jupytext's
    bookkeeping dropped, the front matter kept in metadata so jupytext can pair it back. With the page's
    language, the cells the page features add for readers outside the site (Feature.notebook of each of
    `features`, the feature classes in their order: a CJK font, the exercises' answer cells)."""
    notebook = copy.deepcopy(notebook)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    notebook.metadata["language_info"] = {"name": "python"}
    jt = notebook.metadata.setdefault("jupytext", {})
    for key in ("cell_metadata_filter", "notebook_metadata_filter", "main_language", "text_representation"):
        jt.pop(key, None)
    if lang is not None:
        for feature in features:
            notebook = feature.notebook(notebook, lang)
    return notebook


def paired_view(page: Page, lang: str | None, features: Sequence = ()) -> nbformat.NotebookNode:
    """as_paired of a page as read, made once per page and language and kept with the page: read-only, as the
    page is (the checks, the script and the executed notebook each want it; a change is made to a copy)."""
    key = ("as_paired", lang, tuple(feature.__name__ for feature in features))
    view = page.derived.get(key)
    if view is None:
        view = page.derived[key] = as_paired(page.notebook, lang, features)
    return view


def paired_text(page: Page, reader: Reader | None = None, *, lang: str, features: Sequence = ()) -> str:
    """The paired notebook's text of a page as read; kept with the page (read-only) for as long as it is read."""
    text = page.derived.get("paired")
    if text is None:
        text = page.derived["paired"] = notebook_text(paired_view(page, lang, features), reader)
    return text


def notebook_text(notebook: nbformat.NotebookNode, reader: Reader | None = None) -> str:
    """The notebook as .ipynb text; nbformat validates it on the way, once per content and reader (remembered)."""
    made_from = json.dumps(notebook, sort_keys=True, ensure_ascii=False)
    return (reader or Reader()).remembered("ipynb", made_from, lambda: {"text": jupytext.writes(notebook, fmt="ipynb")})["text"]


def _shape(notebook: nbformat.NotebookNode) -> list[tuple]:
    return [(c.cell_type, c.source, sorted((c.metadata or {}).items()), len(c.get("outputs", [])))
            for c in notebook.cells]


def check_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None, *,
                features: Sequence = ()) -> list[NotebookError]:
    errors: list[NotebookError] = []
    for lang in langs:
        for page in page_paths(docs_dir, lang):
            paired = paired_notebook(page, docs_dir, notebooks_dir)
            try:
                expected = notebook_for(page, reader, lang=lang, features=features)
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


def sync_pairs(docs_dir: Path, notebooks_dir: Path, langs: list[str], reader: Reader | None = None, *,
               features: Sequence = ()) -> list[Path]:
    """Write every paired notebook from its page; remove notebooks whose page is gone. Returns what changed."""
    reader = reader or Reader()
    changed = []
    for lang in langs:
        for page in page_paths(docs_dir, lang):
            paired = paired_notebook(page, docs_dir, notebooks_dir)
            expected = notebook_for(page, reader, lang=lang, features=features)
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
