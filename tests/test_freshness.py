"""Translations that fall behind their English page: the ledger, the warnings, the banner in both generators."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser_support import SiteServer
from helpers import ROOT, build, code, fixture_copy, page

from torchnotes.pages.freshness import LEDGER, Ledger, NotAPage, stale_summary
from torchnotes.strings import strings

BANNER = strings("zh")["stale_title"]
assert BANNER == "英文原文已更新，此译文可能已过时"


def pair(docs: Path, rel: str = "topic.md", prose: str = "Views share storage.", source: str = "x = 1\nx") -> None:
    page(docs / "en", rel, f"{prose}\n\n" + code(source), title="Topic")
    page(docs / "zh", rel, "视图共享存储。\n\n" + code(source), title="主题")


@pytest.fixture
def docs(tmp_path) -> Path:
    pair(tmp_path / "docs")
    return tmp_path / "docs"


def changed(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line[:1] in ("+", "-")]


def ledger(docs: Path) -> Ledger:
    return Ledger(docs.parent, docs, ["en", "zh"])


def test_a_prose_edit_makes_the_translation_stale_and_marking_clears_it(docs):
    ledger(docs).mark([docs / "zh" / "topic.md"])
    assert ledger(docs).stale() == []
    pair(docs, prose="Views share storage with their base.")
    [stale] = ledger(docs).stale()
    assert stale.page == docs / "zh" / "topic.md" and stale.source == docs / "en" / "topic.md"
    assert changed(stale.diff()) == ["-Views share storage.", "+Views share storage with their base."]
    assert "python -m torchnotes translated" in stale.message and str(stale.page) in stale.message
    # Marking by the English page works as well as by the translation.
    assert ledger(docs).mark([docs / "en" / "topic.md"]) == ["topic.md"]
    assert ledger(docs).stale() == []


def test_a_code_only_change_is_not_staleness(docs):
    ledger(docs).mark([docs / "zh" / "topic.md"])
    pair(docs, source="x = 2  # a different comment\nx * 3")
    assert ledger(docs).stale() == []


def test_a_title_edit_is_prose(docs):
    ledger(docs).mark([docs / "zh" / "topic.md"])
    text = (docs / "en" / "topic.md").read_text(encoding="utf-8").replace("title: Topic", "title: Topics")
    (docs / "en" / "topic.md").write_text(text, encoding="utf-8")
    assert [changed(s.diff()) for s in ledger(docs).stale()] == [["-title: Topic", "+title: Topics"]]


def test_unrecorded_pages_and_sites_without_a_ledger(docs):
    assert ledger(docs).stale() == []  # no ledger: the site does not track translations
    pair(docs, rel="other.md")
    ledger(docs).mark([docs / "zh" / "topic.md"])
    [unrecorded] = ledger(docs).stale()
    assert unrecorded.page == docs / "zh" / "other.md" and unrecorded.before is None
    assert "no record" in unrecorded.message
    with pytest.raises(NotAPage, match="not a page under"):
        ledger(docs).mark([docs.parent / "elsewhere.md"])


def test_a_deleted_page_leaves_the_ledger(docs):
    pair(docs, rel="other.md")
    ledger(docs).mark([docs / "zh" / "topic.md", docs / "zh" / "other.md"])
    for lang in ("en", "zh"):
        (docs / lang / "other.md").unlink()
    ledger(docs).mark([docs / "zh" / "topic.md"])
    assert "other.md" not in (docs.parent / LEDGER).read_text(encoding="utf-8")
    assert not (docs.parent / "translations" / "en" / "other.md").exists()


def test_summary_lists_stale_pages(docs):
    ledger(docs).mark([docs / "zh" / "topic.md"])
    assert stale_summary(ledger(docs).stale()) == ""
    pair(docs, prose="Changed.")
    text = stale_summary(ledger(docs).stale())
    assert "#### Translations behind their English page" in text and f"- `{docs / 'zh' / 'topic.md'}`" in text


def run(src: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchnotes", "-f", str(src / "mkdocs.yml"), *args],
                          cwd=src, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def stale_site(tmp_path_factory):
    """The fixture site with its translations marked, then an English prose edit: built with both generators."""
    folder = tmp_path_factory.mktemp("stale")
    src = fixture_copy(folder)
    # The fixture site ships no assets; the Zensical language menu (and the notice's link) needs the site's script.
    script = Path("assets") / "javascripts" / "language-switch.js"
    (src / "docs" / script).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "docs" / script, src / "docs" / script)
    assert run(src, "translated", "--all").returncode == 0
    demo = src / "docs" / "en" / "demo.md"
    text = demo.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines()[6:] if line and line[0].isalpha())
    demo.write_text(text.replace(first, first + " A sentence added later.", 1), encoding="utf-8")
    assert run(src, "sync").returncode == 0
    checked = run(src, "check")
    assert checked.returncode == 0, checked.stderr  # a warning, never a failure
    assert "warning: docs/zh/demo.md: the English page's prose changed" in checked.stderr
    built = build(src, folder / "site")
    assert built.returncode == 0, built.stderr
    zensical = run(src, "zensical", "--site-dir", "out-zensical")
    assert zensical.returncode == 0, zensical.stdout[-2000:] + zensical.stderr[-2000:]
    return {"mkdocs": folder / "site", "zensical": src / "out-zensical"}, first


@pytest.mark.browser
@pytest.mark.parametrize("generator", ["mkdocs", "zensical"])
def test_the_banner_shows_on_the_stale_translation(browser, stale_site, generator):
    sites, first = stale_site
    with SiteServer(sites[generator]) as server:
        context = browser.new_context()
        try:
            tab = context.new_page()
            tab.goto(server.url("zh/demo/"), wait_until="load")
            banner = tab.locator(".nb-stale .admonition.warning")
            assert banner.is_visible() and BANNER in banner.inner_text()
            tab.locator(".nb-stale details summary").click()
            diff = tab.locator(".nb-stale details pre").inner_text()
            assert f"+{first} A sentence added later." in diff and f"-{first}" in diff
            # Up to date: no banner on the other pages, nor on the English page.
            tab.goto(server.url("zh/"), wait_until="load")
            assert tab.locator(".nb-stale").count() == 0
            tab.goto(server.url("zh/demo/"), wait_until="load")
            tab.locator(".nb-stale a", has_text="英文原文").click()
            tab.wait_for_load_state("load")
            assert tab.url == server.url("demo/") and tab.locator(".nb-stale").count() == 0
        finally:
            context.close()
