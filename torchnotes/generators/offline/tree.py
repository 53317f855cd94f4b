"""The offline tree: what it needs beyond the online site, and the check that every page opens from disk.

From file:// a browser fetches nothing: Material loads each language's search index with a script tag
(<lang root>/search/search_index.js, `var __index = ...`) instead of fetch(), and Chromium starts no Worker, which
iframe-worker (vendored beside this file) replaces. A link to a folder ("tensors/views/") shows a directory listing
or nothing from disk, and an asset on another host is missing offline: `check` finds both before anything is zipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from html import unescape
from pathlib import Path
from urllib.parse import unquote, urlsplit

SHIM = Path(__file__).with_name("iframe-worker.js")
SHIM_TARGET = "assets/javascripts/iframe-worker.js"
# Attributes that load something into the page; <a href> only navigates, and so does a <link> whose rel is
# not one of LOADING_RELS (canonical, alternate, prev, next: pointers to the online site are fine).
ASSET_ATTRIBUTES = {("script", "src"), ("img", "src"), ("iframe", "src"), ("source", "src"), ("video", "src"),
                    ("audio", "src"), ("embed", "src"), ("link", "href"), ("object", "data")}
LOADING_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}
# Schemes a navigation link may use from disk; an asset may use only data:.
LINK_SCHEMES = {"http", "https", "mailto", "javascript", "data"}


class OfflineError(RuntimeError):
    """The offline tree would not work from disk."""


class RemoteAsset(OfflineError):
    """A page loads a script, stylesheet or image from another host: missing offline."""


class DirectoryLink(OfflineError):
    """A link ends in a folder, which a browser does not open as its index.html from file://."""


class MissingTarget(OfflineError):
    """A link or asset points at a file the offline tree does not hold."""


class MissingIndex(OfflineError):
    """A language root has no search index to turn into a script."""


# What only a web server uses: the 404 page (absolute paths under site_url), the sitemaps (online URLs).
SERVER_ONLY = ("404.html", "sitemap.xml", "sitemap.xml.gz")


def drop_server_files(site: Path) -> None:
    """At the root and in each language's folder (a 404 page per language; the sitemaps of the pages' folders)."""
    for name in SERVER_ONLY:
        for found in site.rglob(name):
            found.unlink()


def write_search_scripts(site: Path, langs: list[str]) -> list[Path]:
    """<lang root>/search/search_index.js for each language, from the packed index the build wrote beside it."""
    written = []
    for lang in langs:
        folder = site / ("" if lang == langs[0] else lang) / "search"
        index = folder / "search_index.json"
        if not index.exists():
            raise MissingIndex(f"{index}: no search index for '{lang}'; torchnotes' plugin writes one per language "
                               "(torchnotes/publish/search_index.py): is material/search on in mkdocs.yml?")
        data = json.loads(index.read_text(encoding="utf-8"))  # valid JSON, or stop here rather than in the browser
        script = folder / "search_index.js"
        script.write_text("var __index = " + json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                          encoding="utf-8")
        index.unlink()  # read by fetch() only, which file:// refuses
        written.append(script)
    return written


def add_shim(site: Path) -> Path:
    target = site / SHIM_TARGET
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SHIM, target)
    return target


# The tags that link or load; in the built pages a literal "<" in text or code is always escaped (&lt;), so every
# match is a tag. A regex reads the 160 pages several times faster than html.parser.
_TAG = re.compile(r"<(a|link|script|img|iframe|source|video|audio|embed|object)\s([^>]*)>", re.I)
_ATTRIBUTE = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def references(html: str) -> list[tuple[str, str]]:
    """(tag, value) of every link and asset reference of a page; a navigating <link> counts as an <a>."""
    found = []
    for match in _TAG.finditer(html):
        tag = match.group(1).lower()
        attrs = {m.group(1).lower(): unescape(m.group(2) or m.group(3) or m.group(4) or "")
                 for m in _ATTRIBUTE.finditer(match.group(2))}
        if tag == "link" and not LOADING_RELS & set(attrs.get("rel", "").lower().split()):
            tag = "a"  # canonical, alternate, prev, next: navigates, loads nothing
        for name, value in attrs.items():
            if value and ((tag, name) in ASSET_ATTRIBUTES or (tag == "a" and name == "href")):
                found.append((tag, value))
    return found


# A stylesheet's url(...) or @import of another host (a web font from a CDN, say).
_CSS_REMOTE = re.compile(r"""(?:url\(|@import)\s*['"]?\s*((?:https?:)?//[^'")\s;]+)""", re.I)


def check(site: Path) -> int:
    """Raise on the first page or stylesheet that would not work from disk; the number of references checked."""
    for sheet in sorted(site.rglob("*.css")):
        if found := _CSS_REMOTE.search(sheet.read_text(encoding="utf-8", errors="replace")):
            raise RemoteAsset(f"{sheet.relative_to(site)}: loads {found.group(1)!r} from another host, which the "
                              "offline copy cannot reach: ship the file with the site and link it relatively")
    checked = 0
    for page in sorted(site.rglob("*.html")):
        for tag, value in references(page.read_text(encoding="utf-8")):
            check_reference(site, page, tag, value)
            checked += 1
    return checked


def check_reference(site: Path, page: Path, tag: str, value: str) -> None:
    where = f"{page.relative_to(site)}: <{tag}> {value!r}"
    parts = urlsplit(value)
    if parts.scheme or value.startswith("//"):
        if tag != "a" and parts.scheme != "data":
            raise RemoteAsset(f"{where} loads from another host, which the offline copy cannot reach: ship the file "
                              "with the site (docs/assets/) and link it relatively")
        if tag == "a" and parts.scheme not in LINK_SCHEMES:
            raise OfflineError(f"{where}: a link with scheme '{parts.scheme}' does not open from disk")
        return
    if not parts.path:
        return  # "#anchor" or "?query" on the same page
    target = Path(os.path.normpath(page.parent / unquote(parts.path)))
    if parts.path.endswith("/") or target.is_dir():
        raise DirectoryLink(f"{where} is a folder, which does not open from file://: the offline build needs "
                            "use_directory_urls: false (mkdocs.offline.yml), and links must name the page's .html")
    if not target.is_file() or site.resolve() not in target.resolve().parents:
        raise MissingTarget(f"{where} points at {target}, which the offline tree does not hold")
