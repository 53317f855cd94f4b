"""Where the links of an imported sphinx-gallery tutorial point once it is a page of this site.

A tutorial's relative links (`intro.html`, `../beginner/x_tutorial.html`, :doc:) and its :ref: roles are
resolved against the page the tutorial has on docs.pytorch.org; a tutorial that a page of this site covers
links to that page instead, when the page exists. Every rewrite is recorded, so the importer can print it.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

PUBLISHED = "https://docs.pytorch.org/tutorials/"
# Tutorials (by file name) that a page of this site covers: links to them go to the page, in the reader's language.
SITE_PAGES = {
    "tensorqs_tutorial": "tensors/creating.md",
    "tensor_tutorial": "tensors/creating.md",
    "autogradqs_tutorial": "autograd/graph.md",
    "autograd_tutorial": "autograd/graph.md",
    "data_tutorial": "data/datasets.md",
    "buildmodel_tutorial": "modules/basics.md",
    "what_is_state_dict": "modules/basics.md",
    "optimization_tutorial": "losses/optim-schedulers.md",
    "saveloadrun_tutorial": "saving/save-load.md",
    "saving_loading_models": "saving/save-load.md",
}
_SOURCE_DIR = re.compile(r"^(\w+)_source$")


class UnresolvedLink(Exception):
    """A relative link the importer cannot place: it needs the tutorial's published URL (--url)."""


def published_url(source: Path) -> str | None:
    """The tutorial's page on docs.pytorch.org from its path in a pytorch/tutorials checkout, else None:
    beginner_source/basics/tensorqs_tutorial.py -> .../tutorials/beginner/basics/tensorqs_tutorial.html."""
    parts = source.resolve().parts
    for i in range(len(parts) - 1, -1, -1):
        found = _SOURCE_DIR.match(parts[i])
        if found:
            rest = PurePosixPath(found.group(1), *parts[i + 1:]).with_suffix(".html")
            return PUBLISHED + str(rest)
    return None


class Links:
    """Resolves link targets for one imported page (`page`: its path under docs/<lang>/, e.g. tutorials/x.md)."""

    def __init__(self, url: str | None, docs: Path, page: str, where: str):
        self.url, self.docs, self.page, self.where = url, docs, PurePosixPath(page), where
        self.labels: dict[str, str] = {}  # this page's section ids and titles, filled in by the converter
        self.rewritten: list[str] = []  # "old -> new" lines for the import report

    def _note(self, old: str, new: str) -> str:
        self.rewritten.append(f"{old} -> {new}")
        return new

    def _site_page(self, absolute: str) -> str | None:
        """A relative link to this site's page on the same topic, when there is one."""
        path = urlsplit(absolute)
        page = SITE_PAGES.get(PurePosixPath(path.path).stem)
        if page is None or not (self.docs / "en" / page).exists():
            return None
        up = "../" * (len(self.page.parts) - 1)
        return up + page

    def target(self, target: str) -> str:
        """A Markdown link target for an rST link target."""
        parts = urlsplit(target)
        if parts.scheme or parts.netloc or target.startswith(("#", "mailto:")):
            return target
        if target.startswith("/"):  # from the tutorials' root (/_static/img/...)
            return self._note(target, PUBLISHED + target[1:])
        if self.url is None:
            raise UnresolvedLink(f"{self.where}: the relative link '{target}' needs the tutorial's published page: "
                                 "pass --url https://docs.pytorch.org/tutorials/<section>/<name>.html")
        absolute = urljoin(self.url, target)
        return self._note(target, self._site_page(absolute) or absolute)

    def doc(self, name: str) -> str:
        """:doc:`name`: a document path, absolute from the tutorials' root or relative to this one."""
        name = name.strip()
        if name.startswith("/"):
            return self._note(f":doc:`{name}`", self._site_page(PUBLISHED + name[1:]) or f"{PUBLISHED}{name[1:]}.html")
        return self.target(f"{name}.html")

    def ref(self, label: str) -> str | None:
        """:ref:`label`: a section of this page, else None: the caller keeps the text (labels of other documents
        live in the tutorials' Sphinx build, which the importer does not have)."""
        label = " ".join(label.split()).lower()  # docutils' normalisation of reference names
        if label in self.labels:
            return self._note(f":ref:`{label}`", f"#{label}")
        self.rewritten.append(f":ref:`{label}` -> kept as text (a label of another document)")
        return None
