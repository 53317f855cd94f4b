"""Notebooks: the executed notebook beside each page (the download under the title), and notebooks/ kept paired
with the pages as they are now, so that a contributor never runs `sync` by hand."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from torchnotes.errors import NotebookError
from torchnotes.pages import tokens
from torchnotes.pages.read import Page, cell_number
from torchnotes.publish.cells import execution_numbers, renumbered
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.publish.pairing import check_pairs, notebook_text, paired_notebook, paired_text, paired_view
from torchnotes.publish.render import clean_paths
from torchnotes.storage import write_if_changed


class Notebooks(Feature):
    def __init__(self, build):
        super().__init__(build)
        self.synced: list[Path] = []  # paired notebooks under notebooks/ written or removed by this run

    def check(self, pages: list[Path]) -> list[NotebookError]:
        if not self.build.checking:
            return []  # a build brings them in sync itself
        settings = self.build.settings
        return check_pairs(settings.docs_dir, settings.path("notebooks_dir"), settings.languages, self.build.reader,
                           features=self.build.notebook_features)

    def start(self) -> None:
        if self.build.sync:
            self.synced = sync_notebooks(self.build)

    def files(self, out: PageOut) -> dict[str, bytes]:
        if not out.executed:
            return {}
        executed = executed_notebook(out.page, out.result.outputs, tokens.values(self.build.env.torch), out.lang,
                                     self.build.env.cuda, features=self.build.notebook_features)
        return {f"{out.stem}.ipynb": notebook_text(executed, self.build.reader).encode()}


def sync_notebooks(build) -> list[Path]:
    settings, reader = build.settings, build.reader
    notebooks = settings.path("notebooks_dir")
    changed = []
    for result in build.report.results:
        paired = paired_notebook(result.source.path, settings.docs_dir, notebooks)
        if result.status == "static":
            if paired.exists():
                paired.unlink()
                changed.append(paired)
            continue
        lang = paired.relative_to(notebooks).parts[0]
        if write_if_changed(paired, paired_text(result.source, reader, lang=lang,
                                                features=build.notebook_features).encode()):
            changed.append(paired)
    # A deleted page takes its notebook with it: otherwise a contributor commits an orphan.
    for lang in settings.languages:
        for orphan in sorted((notebooks / lang).rglob("*.ipynb")):
            page = settings.docs_dir / lang / orphan.relative_to(notebooks / lang).with_suffix(".md")
            if ".ipynb_checkpoints" not in orphan.parts and not page.exists():
                orphan.unlink()
                changed.append(orphan)
    return changed


def executed_notebook(page: Page, outputs: dict[str, list[dict]], values: dict | None = None,
                      lang: str | None = None, cuda: bool = False, features: tuple = ()) -> nbformat.NotebookNode:
    """The page as a notebook with its outputs, each under the cell whose id it was stored by, and the prose's
    tokens replaced (values: torchnotes.pages.tokens.values of the build's torch); lang: the page's language, for
    the cells `features` add (pairing.as_paired). Each cell's In [N] is its number on the page, in its tracebacks too
    (cuda: whether the GPU cells ran, so took an execution count). Its text names files as the page does
    (render.clean_paths): `site-packages/torch/…`, not the build machine's folders."""
    notebook = copy.deepcopy(paired_view(page, lang, features))  # the page's own view is shared, and read-only
    numbers = execution_numbers(page, cuda)
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and values:
            cell.source = tokens.substitute(cell.source, values)
        if cell.cell_type != "code" or not outputs.get(cell.id):
            continue
        number = cell_number(cell.id)
        cell.execution_count = number
        cell.outputs = [nbformat.from_dict(o) for o in outputs[cell.id]]
        for out in cell.outputs:
            if "execution_count" in out:
                out.execution_count = number
            if "traceback" in out:
                out.traceback = [clean_paths(renumbered(frame, numbers)) for frame in out.traceback]
            if "evalue" in out:
                out.evalue = clean_paths(out.evalue)
            if "text" in out:
                out.text = clean_paths(out.text)
            if "text/plain" in out.get("data", {}):
                out.data["text/plain"] = clean_paths(out.data["text/plain"])
    return notebook
