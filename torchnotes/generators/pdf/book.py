"""One HTML document per language from the built site: a title page, a contents page, then every page of the
navigation in order, each page's ids and links rewritten so that links between pages stay inside the book.

Reads only the built site (the same executed pages, outputs capped as on the site) and mkdocs.yml; knows
nothing of the engine or of MkDocs' Python API.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html
from bs4 import BeautifulSoup
from lxml import etree

from torchnotes.errors import PdfSiteMissing
from torchnotes.pages.read import read_page
from torchnotes.settings import read_config
from torchnotes.strings import strings

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Entry:
    """A page of the navigation: its source path in the language folder, its title, its sections."""

    rel: str
    title: str
    sections: tuple[str, ...]

    @property
    def anchor(self) -> str:
        return "p-" + re.sub(r"[^A-Za-z0-9]+", "-", self.rel.removesuffix(".md")).strip("-")

    @property
    def html_path(self) -> str:
        """Where MkDocs (directory URLs) writes the page, relative to the language's root."""
        stem = self.rel.removesuffix(".md")
        return f"{stem}.html" if posixpath.basename(stem) == "index" else f"{stem}/index.html"


@dataclass(frozen=True)
class Languages:
    default: str
    translations: dict  # lang -> {English nav title: translated title}
    site_names: dict  # lang -> the language's site_name, where it has its own

    def root(self, site: Path, lang: str) -> Path:
        return site if lang == self.default else site / lang


def languages(config: dict) -> Languages:
    """The default language (built at the site's root) and each language's nav translations (mkdocs-static-i18n)."""
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            langs = (plugin["i18n"] or {}).get("languages", [])
            default = next((lang["locale"] for lang in langs if lang.get("default")), "en")
            return Languages(default, {lang["locale"]: lang.get("nav_translations") or {} for lang in langs},
                             {lang["locale"]: lang["site_name"] for lang in langs if lang.get("site_name")})
    return Languages("en", {}, {})


def nav_entries(config: dict, docs_dir: Path, lang: str) -> list[Entry]:
    """The pages of mkdocs.yml's nav in order, titled as the site's navigation titles them in this language."""
    names = languages(config).translations.get(lang, {})
    entries: list[Entry] = []

    def walk(items: list, sections: tuple[str, ...]) -> None:
        for item in items:
            title, target = next(iter(item.items())) if isinstance(item, dict) else (None, item)
            if isinstance(target, list):
                walk(target, sections + (names.get(title, title),))
            elif not urlsplit(target).scheme:
                if title is None:
                    title = read_page(docs_dir / lang / target).meta["title"]
                entries.append(Entry(target, names.get(title, title), sections))

    walk(config.get("nav") or [], ())
    return entries


def load_config(config_file: Path) -> dict:
    return read_config(config_file)


def page_article(site: Path, lang_root: Path, entry: Entry, anchors: dict[str, str], site_url: str) -> str:
    """The page's article as HTML that can live in one document with every other page."""
    path = lang_root / entry.html_path
    if not path.is_file():
        raise PdfSiteMissing(path, f"the built site has no page for {entry.rel} (in mkdocs.yml's nav)")
    # lxml's own tree: BeautifulSoup's, built for every page of the book, was two thirds of a book's Python.
    found = lxml.html.fromstring(path.read_bytes()).xpath(f"//article[{_HAS_CLASS.format('md-content__inner')}]")
    if not found:
        raise PdfSiteMissing(path, "the page has no <article class=\"md-content__inner\"> (not a Material page)")
    article = found[0]
    for gone in article.xpath(_GONE):
        gone.drop_tree()  # its tail, the text after it, stays
    prefix = entry.anchor + "--"
    for tag in article.iter(tag=etree.Element):
        for name in ("id", "for", "name"):
            if tag.get(name) and (name != "name" or tag.tag == "input"):
                tag.set(name, prefix + tag.get(name))
        if tag.tag == "details":
            tag.set("open", "")
        if tag.get("href"):
            tag.set("href", _link(tag.get("href"), path, site, anchors, entry.anchor, site_url))
        if tag.get("src"):
            tag.set("src", _file_url(tag.get("src"), path))
    article.set("id", entry.anchor)
    article.set("class", "md-typeset book-page")
    return lxml.html.tostring(article, encoding="unicode", with_tail=False)


_HAS_CLASS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
# Links and forms of the site that mean nothing on paper: the edit and view buttons, the headings' permalinks, the
# page's dates, the feedback form.
_GONE = " | ".join([f".//a[{_HAS_CLASS.format('md-content__button')}]", f".//a[{_HAS_CLASS.format('headerlink')}]",
                    f".//*[{_HAS_CLASS.format('md-source-file')}]", ".//form"])


def _link(href: str, page: Path, site: Path, anchors: dict[str, str], own: str, site_url: str) -> str:
    """A link to a page of the book becomes a link inside the PDF; a link to another file of the site (a
    notebook download) points at the published site; links to other hosts are kept."""
    url = urlsplit(href)
    if url.scheme or url.netloc or href.startswith(("mailto:", "javascript:")):
        return href
    if not url.path:
        return f"#{own}--{url.fragment}" if url.fragment else f"#{own}"
    target = (page.parent / unquote(url.path)).resolve()
    if target.is_dir():
        target = target / "index.html"
    rel = target.relative_to(site.resolve()).as_posix() if target.is_relative_to(site.resolve()) else None
    if rel in anchors:
        return f"#{anchors[rel]}--{url.fragment}" if url.fragment else f"#{anchors[rel]}"
    if rel is not None and site_url:
        return site_url.rstrip("/") + "/" + rel.removesuffix("index.html")
    return target.as_uri()


def _file_url(src: str, page: Path) -> str:
    url = urlsplit(src)
    if url.scheme or url.netloc:
        return src
    return (page.parent / unquote(url.path)).resolve().as_uri()


def head_styles(page: Path) -> tuple[str, str, str]:
    """The site's stylesheets (as file URLs), the body's colour attributes and the text direction (Material's
    rules for admonitions and lists are written per [dir]), from one built page."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    links = "".join(f'<link rel="stylesheet" href="{html.escape(_file_url(link["href"], page))}">'
                    for link in soup.select('link[rel="stylesheet"]'))
    body = soup.body or {}
    attrs = " ".join(f'{k}="{html.escape(v)}"' for k, v in getattr(body, "attrs", {}).items()
                     if k.startswith("data-md-color") and isinstance(v, str))
    return links, attrs, (soup.html.get("dir") if soup.html else None) or "ltr"


def latest_date(articles: list[str]) -> str:
    """The newest execution date the pages' provenance lines name: the book is as old as its newest output."""
    dates = [d for article in articles for line in re.findall(r'class="nb-provenance"[^>]*>(.*?)</p>', article)
             for d in DATE.findall(line)]
    return max(dates, default="")


def title_page(lang: str, site_name: str, description: str, provenance: str, url: str) -> str:
    w = strings(lang)
    # Each part on one line: a date or a version is never split across two.
    provenance_html = " · ".join(f'<span class="book-nowrap">{html.escape(part)}</span>' for part in provenance.split(" · "))
    return (f'<section class="book-title md-typeset"><h1>{html.escape(site_name)}</h1>'
            f'<p class="book-subtitle">{html.escape(description)}</p>'
            f'<p class="book-provenance">{provenance_html}</p>'
            f'<p class="book-url">{html.escape(w["pdf_online"])} <a href="{html.escape(url)}">{html.escape(url)}</a></p>'
            "</section>")


def contents(lang: str, entries: list[Entry], pages: dict[str, int] | None = None) -> str:
    """The clickable table of contents; with page numbers once a first printing has placed every page."""
    w = strings(lang)
    rows, open_sections = [], ()
    for index, entry in enumerate(entries):
        for depth, section in enumerate(entry.sections):
            if open_sections[: depth + 1] != entry.sections[: depth + 1]:
                anchor = part_anchor(index, depth)
                rows.append(_toc_row(section, anchor, pages, f"book-toc-part depth-{depth}"))
        open_sections = entry.sections
        rows.append(_toc_row(entry.title, entry.anchor, pages, f"book-toc-page depth-{len(entry.sections)}"))
    return (f'<nav class="book-toc md-typeset" id="book-contents"><h1>{html.escape(w["pdf_contents"])}</h1>'
            + "".join(rows) + "</nav>")


def _toc_row(title: str, anchor: str, pages: dict[str, int] | None, css: str) -> str:
    number = str(pages[anchor]) if pages and anchor in pages else ""
    return (f'<a class="{css}" href="#{anchor}"><span class="book-toc-title">{html.escape(title)}</span>'
            f'<span class="book-toc-number">{number}</span></a>')


def part_anchor(index: int, depth: int) -> str:
    """The id of the heading of the section at this depth that starts with entries[index]."""
    return f"part-{index}-{depth}"
