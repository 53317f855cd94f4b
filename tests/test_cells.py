"""Every code cell is addressable: a stable anchor (#cell-N) with its number on the page, the same in both
languages; a traceback's In[N] is the number of the cell it names; a link to a cell lands with the cell in view."""

from __future__ import annotations

import functools
import re

import lxml.html
import pytest
from browser_support import LANGS, SiteServer, in_lang, jump_from_the_top, site_pages

pytestmark = pytest.mark.browser

GPU_PAGE = "cuda/semantics/"  # a page with GPU cells before an expected error: counts and numbers part there


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


NUMBERS = f"//div[{_has_class('nb-cell-number')}]"
# A traceback's box, not its one-line message: the numbers and the boxes in the order of the page.
NUMBERS_AND_TRACEBACKS = f"{NUMBERS} | //pre[{_has_class('nb-error')} and not({_has_class('nb-error-message')})]"


@functools.cache
def parsed(site, rel: str):
    """Parsed once per run, by lxml: two tests read every page (BeautifulSoup took 14 core-s for the two)."""
    return lxml.html.fromstring((site / rel / "index.html").read_text(encoding="utf-8"))


def text_of(element, strip: bool = False) -> str:
    return "".join(part.strip() if strip else part for part in element.itertext())


def test_every_cell_has_its_number_and_the_twins_agree(built_site):
    numbers = {}
    for rel in site_pages(built_site):
        found = [(div.get("id"), text_of(div, strip=True)) for div in parsed(built_site, rel).xpath(NUMBERS)]
        assert all(anchor == f"cell-{text[1:-1]}" for anchor, text in found), (rel, found)
        ids = [anchor for anchor, _ in found]
        assert len(ids) == len(set(ids)), f"{rel}: an anchor twice"
        numbers[rel] = ids
    english = [rel for rel in numbers if not rel.startswith(f"{LANGS[1]}/")]
    assert sum(len(numbers[rel]) for rel in english) > 400
    for rel in english:
        assert numbers.get(in_lang(LANGS[1], rel)) == numbers[rel], rel


def test_a_tracebacks_in_names_the_cell_it_ran_in(built_site):
    """The first `In[N]` of a traceback is the cell that raised: N is the number just above it on the page."""
    checked = {}
    for rel in site_pages(built_site):
        last, page_checked = None, 0
        for element in parsed(built_site, rel).xpath(NUMBERS_AND_TRACEBACKS):
            if "nb-cell-number" in element.get("class", "").split():
                last = int(element.get("id").removeprefix("cell-"))
                continue
            if next(element.iterancestors("details"), None) is not None:
                continue  # the folded full traceback says the same
            named = re.search(r"\bIn ?\[(\d+)\]", text_of(element))
            if named:
                assert int(named.group(1)) == last, f"{rel}: a traceback under code cell {last} names In[{named.group(1)}]"
                page_checked += 1
        checked[rel] = page_checked
    assert checked[GPU_PAGE] >= 1 and sum(checked.values()) >= 50, checked


def test_a_link_to_a_cell_lands_with_the_cell_in_view(built_site, browser):
    with SiteServer(built_site) as server:
        for lang in LANGS:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(server.url(in_lang(lang, GPU_PAGE)), wait_until="load")
            links = page.locator(".nb-provenance a[href^='#cell-']")
            assert links.count() >= 3, f"{lang}: the GPU line links each cell it names"
            target = links.nth(2).get_attribute("href")
            links.nth(2).click()
            page.wait_for_function("() => window.scrollY > 0")
            box = page.locator(target).bounding_box()
            header = page.locator("header.md-header").bounding_box()
            assert page.evaluate("location.hash") == target
            assert header["y"] + header["height"] <= box["y"] and box["y"] + box["height"] <= 900, (target, box)
            page.set_viewport_size({"width": 390, "height": 844})
            jump_from_the_top(page, target)
            box = page.locator(target).bounding_box()
            header = page.locator("header.md-header").bounding_box()
            assert header["y"] + header["height"] <= box["y"] and box["y"] + box["height"] <= 844, (target, box)
            context.close()


def test_the_drift_report_links_each_cell_it_names_to_the_published_page():
    from torchnotes.versions.changes import Comparison, drift_report
    from torchnotes.versions.drift import CellDrift

    site = "https://example.org/notes/"
    page = "docs/zh/tensors/matmul.md"
    drift = CellDrift("code-13-abc", 13, "2.13.0", "differs", "1", "2")
    comparison = Comparison(primary="2.15.0", listed=["2.13.0"], states={"2.13.0": {page: []}}, pages=[page],
                            cells={page: [drift]})
    linked = drift_report(comparison, site, ("en", "zh"))
    assert "`docs/zh/tensors/matmul.md` [cell 13](https://example.org/notes/zh/tensors/matmul/#cell-13)" in linked
    assert "`docs/zh/tensors/matmul.md` cell 13:" in drift_report(comparison)  # no site URL: named, not linked
