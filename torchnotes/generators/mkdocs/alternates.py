"""The hreflang pairs in every page's head, for search engines: mkdocs-static-i18n writes one
<link rel="alternate" hreflang> per language; x-default (the default language's page) is added here.

Material's instant navigation fetches <href>/sitemap.xml for each of those links (it expects a language's root,
where a sitemap lives), so each page's folder gets a sitemap of its own: the <url> entries of the page and its
twins, taken from the site's sitemap.xml. Otherwise every page would ask for two files that do not exist (404).
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

_LINK = re.compile(r'(\s*)<link rel="alternate" href="([^"]*)" hreflang="([^"]*)">')
SITEMAP = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}


def with_default(html: str, default_lang: str) -> str:
    """The head's alternates, and x-default beside the default language's (once)."""
    end = html.find("</head>")
    head = html if end < 0 else html[:end]
    if 'hreflang="x-default"' in head:
        return html

    def add(match: re.Match) -> str:
        if match.group(3) != default_lang:
            return match.group(0)
        return match.group(0) + f'{match.group(1)}<link rel="alternate" href="{match.group(2)}" hreflang="x-default">'

    head = _LINK.sub(add, head, count=0)
    return head if end < 0 else head + html[end:]


def write_page_sitemaps(site_dir: Path, site_url: str, default_lang: str) -> int:
    """x-default beside the default language's alternate in the site's sitemap (Google reads the pairs there, with
    the full URLs it asks for), and site_dir/<page>/sitemap.xml for every page it pairs with a twin; returns how
    many of those."""
    sitemap = Path(site_dir) / "sitemap.xml"
    if not sitemap.exists():
        return 0
    for prefix, uri in SITEMAP.items():
        ET.register_namespace("" if prefix == "sm" else prefix, uri)
    tree = ET.parse(sitemap)
    urls = tree.getroot().findall("sm:url", SITEMAP)
    for url in urls:
        links = url.findall("xhtml:link", SITEMAP)
        default = next((link for link in links if link.get("hreflang") == default_lang), None)
        if default is not None and not any(link.get("hreflang") == "x-default" for link in links):
            ET.SubElement(url, f"{{{SITEMAP['xhtml']}}}link", rel="alternate", hreflang="x-default",
                          href=default.get("href"))
    tree.write(sitemap, encoding="UTF-8", xml_declaration=True)
    with gzip.GzipFile(sitemap.with_suffix(".xml.gz"), "wb", mtime=0) as packed:
        packed.write(sitemap.read_bytes())
    by_loc = {url.findtext("sm:loc", "", SITEMAP).strip(): url for url in urls}
    base = urlsplit(site_url).path if site_url else "/"
    written = 0
    for loc, url in by_loc.items():
        twins = dict.fromkeys(link.get("href") for link in url.findall("xhtml:link", SITEMAP))  # x-default repeats one
        group = [by_loc[href] for href in twins if href in by_loc] or [url]
        path = urlsplit(loc).path
        if not path.startswith(base) or not path.endswith("/") or path == base:
            continue  # the site's root has the site's own sitemap
        folder = Path(site_dir) / path[len(base):]
        if not folder.is_dir():
            continue
        root = ET.Element(f"{{{SITEMAP['sm']}}}urlset")
        root.extend(group)
        ET.ElementTree(root).write(folder / "sitemap.xml", encoding="UTF-8", xml_declaration=True)
        written += 1
    return written


_HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def dropped(html: str) -> str:
    """The page without its alternates (the offline copy's pages share folders, the 404 page is every address's)."""
    # In the head only: the pattern's leading whitespace makes a search of the whole page cost 2 ms a page.
    end = html.find("</head>")
    return _HEAD_ALTERNATE.sub("", html) if end < 0 else _HEAD_ALTERNATE.sub("", html[:end]) + html[end:]
