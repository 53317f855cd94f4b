"""Where the links of an imported sphinx-gallery tutorial point once it is a page of this site.

A tutorial's relative links (`intro.html`, `../beginner/x_tutorial.html`, :doc:) and its :ref: roles are
resolved against the page the tutorial has on docs.pytorch.org. A tutorial this site has imported links to
its page here instead: every imported page records the tutorial's published URL as `source:` in its front
matter (scripts/import_tutorial.py), and `site_sources` reads them, so the site itself is the table. Every
rewrite is recorded, so the importer can print it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlsplit

import yaml

PUBLISHED = "https://docs.pytorch.org/tutorials/"
# The tutorials' older host: their prose still links there, to the same pages.
_HOSTS = ("docs.pytorch.org", "pytorch.org")
_SOURCE_DIR = re.compile(r"^(\w+)_source$")
_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)


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


def tutorial_key(url: str) -> str | None:
    """A published tutorial's URL without host, fragment and suffix (tutorials/beginner/x_tutorial), else None:
    pytorch.org and docs.pytorch.org serve the same tutorials, linked with or without .html."""
    parts = urlsplit(url)
    if parts.netloc not in _HOSTS or not parts.path.startswith("/tutorials/"):
        return None
    return re.sub(r"\.html$", "", parts.path.strip("/"))


def site_sources(docs: Path) -> dict[str, str]:
    """{tutorial_key(source): page under docs/en/} of every page whose front matter names its `source:`."""
    found = {}
    for page in sorted((Path(docs) / "en").rglob("*.md")):
        head = _FRONT_MATTER.match(page.read_text(encoding="utf-8"))
        meta = yaml.safe_load(head.group(1)) if head else None
        key = tutorial_key(meta["source"]) if isinstance(meta, dict) and isinstance(meta.get("source"), str) else None
        if key:
            found[key] = page.relative_to(Path(docs) / "en").as_posix()
    return found


def relative_link(page: str, target: str) -> str:
    """The link from one page under docs/<lang>/ to another, as Markdown links between pages are written."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


class Links:
    """Resolves link targets for one imported page (`page`: its path under docs/<lang>/, e.g. tutorials/x.md)."""

    def __init__(self, url: str | None, docs: Path, page: str, where: str):
        self.url, self.docs, self.page, self.where = url, docs, PurePosixPath(page), where
        self.sources = site_sources(docs)  # the tutorials this site has imported, by published URL
        self.labels: dict[str, str] = {}  # this page's section ids and titles, filled in by the converter
        self.rewritten: list[str] = []  # "old -> new" lines for the import report
        self.videos: list[str] = []  # watch URLs of the videos the tutorial embedded, now link lines

    def _note(self, old: str, new: str) -> str:
        self.rewritten.append(f"{old} -> {new}")
        return new

    def _site_page(self, absolute: str) -> str | None:
        """A relative link to this site's import of the tutorial at `absolute`, when the site has one."""
        page = self.sources.get(tutorial_key(absolute) or "")
        return None if page is None else relative_link(str(self.page), page)

    def target(self, target: str) -> str:
        """A Markdown link target for an rST link target."""
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            site = self._site_page(target)  # a tutorial of the series this site has imported
            if site is not None:
                return self._note(target, site)
            current = current_docs(target)
            return target if current == target else self._note(target, current)
        if target.startswith(("#", "mailto:")):
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


def current_docs(url: str) -> str:
    """PyTorch's documentation and tutorials at their current address: pytorch.org/docs/… and pytorch.org/tutorials/…
    moved to docs.pytorch.org, and docs/master is docs/main (the writing rules link docs.pytorch.org)."""
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    if host not in ("pytorch.org", "docs.pytorch.org") or not parts.path.startswith(("/docs/", "/tutorials/")):
        return url
    path = re.sub(r"^/docs/master(?=/|$)", "/docs/main", parts.path)
    return parts._replace(scheme="https", netloc="docs.pytorch.org", path=path).geturl()
