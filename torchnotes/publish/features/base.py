"""What a page feature is, and what it sees of one publish run.

A feature is one thing publishing adds to a page or to the site (the provenance line, the GPU recordings, the
version pills and changes page, ...). The publisher makes each feature of FEATURES (torchnotes/publish/features/
__init__.py) once per run, with the run's Build, and calls, in the list's order:

    check(pages)        before execution; `python -m torchnotes check` calls it too (build.checking)
    start()             after execution (build.report is set): what the feature needs from the whole site
    context(out)        fields of the renderer's RenderContext for one page (torchnotes/publish/render.py)
    page(out, body)     the page's Markdown, with what the feature adds
    files(out)          files beside the page: {name in the page's asset folder: bytes}
    provenance(out)     a part of the line under the title (the provenance feature joins them)
    finish()            after every page: site-wide files, pruning what the feature keeps

and, without a build (`sync` and `check` make the paired notebooks too), Feature.notebook(notebook, lang): the cells
it adds to every notebook a reader takes away (the paired notebook under notebooks/, the download, the script).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from nbformat import NotebookNode

from torchnotes.engine.environment import Environment
from torchnotes.engine.results import PageResult, Report
from torchnotes.errors import NotebookError
from torchnotes.layout import CacheFolder
from torchnotes.pages.listing import page_paths
from torchnotes.pages.read import Page, Reader
from torchnotes.settings import Settings

T = TypeVar("T")


class Memo:
    """What a feature computed from the whole site, under the key of all it was computed from: a preview session
    (torchnotes.publish.session) keeps one across its rebuilds, so that a prose edit does not compare the version
    record or verify the GPU recordings again. One value per name, the last one: a build without a session starts
    from an empty one, and an edit back to an earlier state computes again."""

    def __init__(self):
        self.values: dict[str, tuple[str, object]] = {}

    def get(self, name: str, key: str, make: Callable[[], T]) -> T:
        known = self.values.get(name)
        if known is not None and known[0] == key:
            return known[1]
        value = make()  # not kept if it raises: a failure is never remembered
        self.values[name] = (key, value)
        return value


@dataclass
class Build:
    settings: Settings
    env: Environment
    reader: Reader
    report: Report | None = None  # set once the engine has run
    checking: bool = False  # `python -m torchnotes check`: the reviewer's checks too, nothing is published
    strict_gpu: bool = False  # check --strict-gpu: stale or missing GPU recordings are errors
    sync: bool = True  # bring notebooks/ in sync with the pages
    features: list = field(default_factory=list)  # every feature of this run, in FEATURES order
    memo: Memo = field(default_factory=Memo)  # a preview session's, kept across its rebuilds

    @property
    def folder(self) -> CacheFolder:
        return CacheFolder(self.settings.path("cache_dir"))

    @property
    def notebook_features(self) -> tuple:
        """The classes of this run's features, whose notebook() shapes every notebook a reader takes away
        (torchnotes.publish.pairing)."""
        return tuple(type(feature) for feature in self.features)

    @property
    def pages(self) -> list[Path]:
        return [p for lang in self.settings.languages for p in page_paths(self.settings.docs_dir, lang)]


@dataclass
class PageOut:
    """One page being published: its result, and where its files go."""

    result: PageResult
    lang: str
    rel: Path  # under the language's folder: tensors/views.md
    target: Path  # <out>/<lang>/tensors/views.md
    assets: Path  # the page's own folder, its URL under directory URLs

    @property
    def page(self) -> Page:
        return self.result.source

    @property
    def stem(self) -> str:
        return self.target.stem

    @property
    def executed(self) -> bool:
        """A page with code cells (a static page has no notebook, script or provenance)."""
        return self.result.status != "static"


class Feature:
    def __init__(self, build: Build):
        self.build = build

    def check(self, pages: list[Path]) -> list[NotebookError]:
        return []

    def start(self) -> None:
        pass

    def context(self, out: PageOut) -> dict:
        return {}

    def page(self, out: PageOut, body: str) -> str:
        return body

    def files(self, out: PageOut) -> dict[str, bytes]:
        return {}

    def provenance(self, out: PageOut) -> str:
        return ""

    def finish(self) -> None:
        pass

    @classmethod
    def notebook(cls, notebook: NotebookNode, lang: str) -> NotebookNode:
        """The page's notebook, a copy the caller owns, with what this feature adds for readers outside the site; a
        function of the page and its language alone (torchnotes.publish.pairing.as_paired calls it)."""
        return notebook


def after_title(markdown: str, line: str) -> str:
    lines = markdown.split("\n")
    for index, text in enumerate(lines):
        if text.startswith("# "):
            return "\n".join(lines[: index + 1] + ["", line, ""] + lines[index + 1:])
    return line + "\n\n" + markdown
