"""Issue 44 §3 without a browser: the one root 404.html holds each language's page, and each page's language menu
leads to the other language's home (tests/test_reader_languages.py serves it as GitHub Pages does)."""

from __future__ import annotations

import json
import re

import pytest

from torchnotes.generators.mkdocs.not_found import NotFoundPageUnexpected, combined, localised, write

BASE = "/notes/"


def page(lang: str, title: str, menu_from: str) -> str:
    """A 404 page as mkdocs-static-i18n leaves it: the menu points at the page it rendered last (menu_from)."""
    links = "".join(f'<a href="{BASE}{"" if other == "en" else other + "/"}{menu_from}" hreflang="{other}" '
                    f'class="md-select__link">{other}</a>' for other in ("en", "zh"))
    return (f'<!doctype html><html lang="{lang}"><head><title>{title}</title></head>'
            f'<body dir="ltr"><header>{links}</header><h1>404 {lang}</h1><script>var x = "</p>"</script>'
            f'<script id="__config" type="application/json">{{"base": "{BASE}"}}</script></body></html>')


def test_each_language_menu_leads_home_and_zh_searches_its_own_index():
    zh = localised(page("zh", "笔记", "tensors/views/"), "zh", ["en", "zh"], BASE)
    assert re.findall(r'href="([^"]*)" hreflang', zh) == [BASE, BASE + "zh/"]
    assert '"base": "/notes/zh/"' in zh


def test_the_root_page_writes_the_body_of_the_address_language(tmp_path):
    pages = {"en": page("en", "Notes", "tensors/views/"), "zh": page("zh", "笔记", "tensors/views/")}
    root = combined({k: localised(v, k, ["en", "zh"], BASE) for k, v in pages.items()}, ["en", "zh"], BASE)
    head, script = root.split("<script>\n", 1)
    assert head.startswith('<!doctype html><html lang="en">') and "<title>Notes</title>" in head
    bodies = json.loads(re.search(r"var bodies = (\{.*?\}), titles", script).group(1))
    assert "<h1>404 zh</h1>" in bodies["zh"] and "<h1>404 en</h1>" in bodies["en"]
    assert '"zh": "/notes/zh/"' in script and "location.pathname.indexOf(folders[other]) === 0" in script
    # The bodies' own "</script>" is escaped: the picker's script runs to its end.
    assert "document.write(bodies[lang])" in script.split("</script>", 1)[0]
    # Without JavaScript: the English page, without its scripts.
    fallback = root.split("<noscript>", 1)[1].split("</noscript>", 1)[0]
    assert "<h1>404 en</h1>" in fallback and "<script" not in fallback

    write(pages, tmp_path, ["en", "zh"], BASE)
    (tmp_path / "zh").mkdir()
    write(pages, tmp_path, ["en", "zh"], BASE)
    assert (tmp_path / "404.html").read_text(encoding="utf-8").count("var bodies") == 1
    assert '<html lang="zh">' in (tmp_path / "zh" / "404.html").read_text(encoding="utf-8")


def test_a_page_without_a_body_is_named():
    with pytest.raises(NotFoundPageUnexpected, match="zh 404 page has no <body>"):
        combined({"en": page("en", "Notes", ""), "zh": "<html></html>"}, ["en", "zh"], BASE)
