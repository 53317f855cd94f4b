"""The hreflang pairs, for search engines: every page's head names itself and its twin (en, zh) and x-default (the
English page); the sitemap gives the same pairs with full URLs; and the sitemap Material fetches beside each
alternate exists, so no page asks for a file that is not there."""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET

from browser_support import LANGS, base_path, in_lang, site_pages

SM = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
LINK = re.compile(r'<link rel="alternate" href="([^"]*)" hreflang="([^"]*)">')


def resolve(site, rel: str, href: str) -> str:
    """The href of a link on page rel, as a path from the site's root (the home pages' are absolute paths under
    the deployment path)."""
    if href.startswith("/"):
        return href.removeprefix(base_path(site)).strip("/")
    return posixpath.normpath(posixpath.join("/" + rel, href)).strip("/")


def twin(rel: str) -> str:
    return rel.removeprefix(f"{LANGS[1]}/") if rel.startswith(f"{LANGS[1]}/") else in_lang(LANGS[1], rel)


def test_every_page_names_itself_its_twin_and_x_default(built_site):
    pages = [rel for rel in site_pages(built_site) if (built_site / rel / "index.html").exists()]
    assert len(pages) >= 80
    for rel in pages:
        html = (built_site / rel / "index.html").read_text(encoding="utf-8")
        head = html[: html.index("</head>")]
        found = {lang: resolve(built_site, rel, href) for href, lang in LINK.findall(head)}
        english = rel if not rel.startswith(f"{LANGS[1]}/") else twin(rel)
        expected = {LANGS[0]: english, LANGS[1]: in_lang(LANGS[1], english), "x-default": english}
        assert {k: v.rstrip("/") for k, v in found.items()} == {k: v.rstrip("/") for k, v in expected.items()}, rel
        for href, _ in LINK.findall(head):  # Material fetches <href>/sitemap.xml: it is there
            folder = resolve(built_site, rel, href)
            assert (built_site / folder / "sitemap.xml").is_file(), (rel, href)


def test_the_sitemap_pairs_every_page_with_full_urls_and_x_default(built_site):
    urls = ET.parse(built_site / "sitemap.xml").getroot().findall("sm:url", SM)
    assert len(urls) >= 80
    for url in urls:
        links = {link.get("hreflang"): link.get("href") for link in url.findall("xhtml:link", SM)}
        assert set(links) == {*LANGS, "x-default"} and links["x-default"] == links[LANGS[0]]
        assert all(href.startswith("https://") for href in links.values())
