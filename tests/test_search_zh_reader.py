"""Chinese readers' queries on the Chinese site, in the real browser: tests/search_queries_zh_reader.yml.

The queries mix Chinese with English terms, use words the pages do not (显卡 for GPU) and ask for a task in
everyday words; the search worker (docs/assets/javascripts/workers/search-zh.js) splits mixed-script tokens and
expands each term with its counterparts from the glossary and torchnotes/publish/search_synonyms_zh.yml. Run it alone:
    TORCHNOTES_SITE=site .venv/bin/python -m pytest tests/test_search_zh_reader.py -s -p no:xdist
"""

from __future__ import annotations

import pytest
import yaml
from browser_support import SiteServer
from helpers import ROOT, TOP, VIEWPORT, SearchBox

QUERIES = yaml.safe_load((ROOT / "tests" / "search_queries_zh_reader.yml").read_text(encoding="utf-8"))
KINDS = ("mixed", "synonyms", "colloquial")
RECALL_TARGET = 0.97  # share of the Chinese queries whose page is in the top 3
ENGLISH_TARGET = 1.0  # every English term typed on the Chinese site finds its Chinese page

browser_test = pytest.mark.browser


@pytest.fixture(scope="module")
def zh_server(built_site):
    with SiteServer(built_site) as running:
        yield running


def search_all(browser, zh_server, items: list[dict], root: str = "zh/") -> list[tuple[str, list[str], list[str]]]:
    """(query, pages that are right, top pages found) for each item, searched on the site of `root`. SearchBox
    fails on a result outside that site: a page of the other language never comes back."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        box = SearchBox(context.new_page(), zh_server.url(root))
        box.open()
        outcomes = []
        for item in items:
            expected = item["page"] if isinstance(item["page"], list) else [item["page"]]
            found, _ = box.search(str(item["q"]))
            outcomes.append((str(item["q"]), expected, found[:TOP]))
        assert not box.errors, f"the page logged errors while searching: {box.errors}"
        return outcomes
    finally:
        context.close()


def report(label: str, outcomes) -> list:
    misses = [(q, expected, found) for q, expected, found in outcomes if not set(expected) & set(found)]
    hits = len(outcomes) - len(misses)
    print(f"\n{label}: {hits}/{len(outcomes)} = {hits / len(outcomes):.1%} find their page in the top {TOP}")
    for q, expected, found in misses:
        print(f"  miss {q!r}: want {expected}, got {found}")
    return misses


@browser_test
def test_chinese_readers_queries(browser, zh_server):
    items = [dict(item, kind=kind) for kind in KINDS for item in QUERIES[kind]]
    assert len(items) >= 120, f"only {len(items)} queries in search_queries_zh_reader.yml"
    outcomes = search_all(browser, zh_server, items)
    for kind in KINDS:
        report(f"zh {kind}", [o for o, item in zip(outcomes, items) if item["kind"] == kind])
    misses = report("zh all", outcomes)
    assert len(outcomes) - len(misses) >= RECALL_TARGET * len(outcomes), (
        f"only {len(outcomes) - len(misses)}/{len(outcomes)} queries have their page in the top {TOP}: "
        + "; ".join(f"{q!r} wants {e[0]}, got {f}" for q, e, f in misses))


@browser_test
def test_english_terms_on_the_chinese_site_find_chinese_pages(browser, zh_server):
    """The zh site's index holds the zh pages only: an English term must find the zh page that explains it,
    through the glossary's Chinese term where the page does not write the English one."""
    outcomes = search_all(browser, zh_server, QUERIES["english"])
    misses = report("en terms on zh", outcomes)
    assert len(outcomes) - len(misses) >= ENGLISH_TARGET * len(outcomes), misses


@browser_test
def test_chinese_terms_on_the_english_site_find_english_pages(browser, zh_server):
    """The other way: the glossary's Chinese terms (and their forbidden variants) stand for the English ones."""
    outcomes = search_all(browser, zh_server, QUERIES["on_english_site"], root="")
    misses = report("zh terms on en", outcomes)
    assert not misses, misses
