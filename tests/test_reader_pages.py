"""Issue 37, what a reader meets in the first minutes, on every page of the built site in both languages.

Every error's `Name: message` is whole on screen at a laptop's and a phone's width (tests/error_boxes.py measures
where each lands), and axe-core's colour-contrast rule passes on the content of the pages that together show every kind of text (outside Pygments' code blocks;
the theme around the content is checked whole on walk.AXE_PAGES). Both
widths are read from the walk of every page that test_browser shares (tests/walk.py): each page is measured at the
laptop's width, then resized to the phone's and measured again, where a second walk loaded all 80 pages again
(86 core-s; the figures were the same on every page).
"""

from __future__ import annotations

import re

import pytest
from browser_support import LANGS, SiteServer, page_lang, site_pages, skip_or_fail
from error_boxes import WIDTHS, problems, summary
from helpers import ROOT
from walk import contrast_pages, site_text_kinds, text_kinds

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(built_site):
    with SiteServer(built_site) as running:
        yield running


@pytest.fixture(scope="module")
def measured(built_site, laptop_walk) -> dict[int, dict]:
    """{width: {rel: measurements}}; at 1280 px each page also carries axe's colour-contrast violations. Every width
    comes from the walk test_browser reads too (tests/walk.py)."""
    if not AXE.exists():
        skip_or_fail("axe-core is not installed (npm ci)")
    out = {1280: {rel: {**seen["errors"], "also": seen["contrast"]} for rel, seen in laptop_walk.items()}}
    for width in WIDTHS:
        if width not in out:
            out[width] = {rel: seen["narrow"][str(width)] for rel, seen in laptop_walk.items()}
    assert set(out[1280]) == set(site_pages(built_site)), "the walk did not see every page of the site"
    for width, found in out.items():
        s = summary(found)
        print(f"\n{width} px: {s['boxes']} errors, {s['cut_bottom']} cut at the bottom, {s['cut_right']} cut at the right, "
              f"{s['boxes_scrolling_sideways']} boxes scroll sideways")
    return out


@pytest.mark.parametrize("width", list(WIDTHS))
def test_every_error_message_is_whole_on_screen(measured, width):
    pages = measured[width]
    s = summary(pages)
    # The site has expected errors in both languages: a measurement that finds none measured nothing.
    assert s["boxes"] >= 100 and any(m["errors"] for rel, m in pages.items() if rel.startswith("zh/")), s
    found = problems(pages, width)
    assert not found, f"{len(found)} problems at {width} px:\n  " + "\n  ".join(found[:30])


def test_colour_contrast_on_pages_that_show_every_kind_of_text(measured, built_site):
    """On the pages walk.contrast_pages chose: together they show every kind of text the site's content shows."""
    pages = measured[1280]
    kinds = site_text_kinds(built_site, list(pages))
    read = {rel for rel, m in pages.items() if m["also"] is not None}
    assert read == contrast_pages(kinds), "the walk read the contrast of other pages than contrast_pages"
    every = set().union(*kinds.values())
    assert set().union(*(kinds[rel] for rel in read)) == every
    assert {page_lang(rel) for rel in read} == set(LANGS) and len(every) >= 100, (sorted(read), len(every))
    found = [f"/{rel}: {v}" for rel in sorted(read) for v in pages[rel]["also"]]
    assert not found, f"{len(found)} colour-contrast violations:\n  " + "\n  ".join(found[:30])


def _page(content: str) -> str:
    return f'<html><body><nav class="md-nav"><a>Home</a></nav><div class="md-content"><article>{content}</article></div></body></html>'


def test_the_kinds_of_text_are_the_chains_of_elements_with_text_outside_code_blocks():
    kinds = text_kinds(_page('<p>One <code>x</code></p><div class="note admonition"><p class="admonition-title">Note</p>'
                             '<p>text <span style="color: red">red</span></p></div>'
                             '<div class="highlight"><pre><span class="k">import</span></pre></div><p><img alt="">  </p>'))
    article = " > div.md-content[] > article[]"
    assert kinds == {f"{article} > p[]", f"{article} > p[] > code[]", f"{article} > div.admonition.note[] > p.admonition-title[]",
                     f"{article} > div.admonition.note[] > p[]", f"{article} > div.admonition.note[] > p[] > span[color: red]"}


def test_the_contrast_is_read_on_few_pages_that_show_every_kind_of_text():
    kinds = {"": {"p", "a"}, "zh/": {"p", "a"}, "tensors/views/": {"p", "table", "th"},
             "zh/tensors/views/": {"p", "table", "th"}, "autograd/graph/": {"p", "th"}, "zh/only-zh/": {"p", "stale-notice"}}
    assert contrast_pages(kinds) == {"", "tensors/views/", "zh/only-zh/"}
    assert contrast_pages({rel: kinds[rel] for rel in ("autograd/graph/", "zh/")}) == {"autograd/graph/", "zh/"}
    assert contrast_pages({}) == set()


# --- the header's downloads, the 404 pages (static checks of the built HTML) ------------------------------

HEADER_LINK = re.compile(r'<a href="([^"]+)" class="md-source (nb-pdf-link|nb-offline-link) nb-download"')


def test_header_download_links_are_relative_and_reach_the_site_root(built_site):
    """The PDF and Offline links lead, from every page of both languages, to pdf/ and offline/ at the site's root
    (where scripts/build_pdf.sh and build_offline.sh put the files), as relative links: a preview stays local."""
    problems = []
    for rel in site_pages(built_site):
        lang = "zh" if rel.startswith("zh/") else "en"
        html = (built_site / rel / "index.html").read_text(encoding="utf-8")
        links = dict((kind, href) for href, kind in HEADER_LINK.findall(html))
        want = {"nb-pdf-link": f"pdf/pytorch-notes-{lang}.pdf", "nb-offline-link": f"offline/pytorch-notes-{lang}.zip"}
        for kind, target in want.items():
            href = links.get(kind)
            if href is None or "://" in href or href.startswith("/"):
                problems.append(f"/{rel}: {kind} is {href!r}")
            elif (built_site / rel / href).resolve() != (built_site / target).resolve():
                problems.append(f"/{rel}: {kind} {href!r} leads to {(built_site / rel / href).resolve()}")
    assert not problems, "\n".join(problems[:20])


def test_download_link_without_a_built_file_says_how_to_build_it(browser, server, built_site):
    """A preview without site/pdf/ or site/offline/: the link shows the command in the reader's language."""
    for rel, words in (("tensors/views/", ("bash scripts/build_pdf.sh", "bash scripts/build_offline.sh")),
                       ("zh/tensors/views/", ("构建方法：bash scripts/build_pdf.sh", "构建方法：bash scripts/build_offline.sh"))):
        for kind, word in zip(("pdf", "offline"), words):
            if any((built_site / kind).glob("pytorch-notes-*")):
                pytest.fail(f"{built_site / kind} holds built files: this test needs a site without them")
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            try:
                page = context.new_page()
                page.goto(server.url(rel), wait_until="load")
                page.click(f"a.nb-{kind}-link")
                dialog = page.locator(".md-dialog.md-dialog--active")
                dialog.wait_for(state="visible", timeout=10_000)
                assert word in dialog.inner_text(), f"/{rel} {kind}: {dialog.inner_text()!r}"
            finally:
                context.close()


def test_a_404_page_per_language_with_a_link_home(built_site):
    for path, lang, home in (("404.html", "en", "Go to the PyTorch Notes home page"), ("zh/404.html", "zh", "返回 PyTorch 笔记首页")):
        html = (built_site / path).read_text(encoding="utf-8")
        assert f'<html lang="{lang}"' in html, f"{path}: {html[:300]}"
        link = re.search(r'<a href="([^"]+)">' + re.escape(home), html)
        assert link, f"{path}: no link home ({home!r})"
        target = link.group(1)
        assert target.startswith("/") and "://" not in target, f"{path}: home link {target!r} leaves the host"
        assert target.rstrip("/").endswith("zh") == (lang == "zh"), f"{path}: home link {target!r}"
        assert "md-header" in html and "extra.css" in html, f"{path}: not in the site's look"
