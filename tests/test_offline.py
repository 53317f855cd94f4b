"""The offline copy (python -m torchnotes offline): each zip, unpacked, works from file:// in Chromium, and a tree that
would not work from disk stops the build with the page named.

The zips are built once per run from the real site (mkdocs.offline.yml, the execution cache as it is): by the
documented `bash scripts/build_offline.sh` in its clone of this checkout when that command runs in this session
(documented_builds.py), else here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from browser_support import Recorder
from bs4 import BeautifulSoup
from filelock import FileLock
from helpers import ROOT, header_links
from mkdocs.exceptions import PluginError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from torchnotes.generators.offline import hooks, tree
from torchnotes.generators.offline.zips import write_zip

SLOW_FIXTURES = {"offline"}  # tests/slow.py: the real site built whole for reading from disk
LANGS = ["en", "zh"]
# A page with a matplotlib figure and KaTeX math in both languages, and the queries that must find it.
PAGE = "losses/binary.html"
QUERIES = {"en": "binary cross entropy", "zh": "二分类"}


def run_offline(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchnotes", "offline", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))


@pytest.fixture(scope="module")
def offline(tmp_path_factory, shared_tmp, documented_builds, request) -> SimpleNamespace:
    # The documented `bash scripts/build_offline.sh` builds the same copy from a clone of this checkout.
    documented = documented_builds.wait("bash scripts/build_offline.sh", request.session)
    if documented is not None:
        clone = Path(documented["clone"])
        return SimpleNamespace(site=clone / "build" / "offline-site",
                               zips={lang: clone / "site" / "offline" / f"pytorch-notes-{lang}.zip" for lang in LANGS})
    base = tmp_path_factory.mktemp("offline")
    # The lock conftest's built_site holds while it builds: both builds publish into build/publish/ and keep their
    # page conversions in .cache/torchnotes/generators/mkdocs/, so they take turns.
    with FileLock(str(shared_tmp / "built-site.lock")):
        done = run_offline("--site", str(base / "site"), "--out", str(base / "zips"))
    assert done.returncode == 0, f"offline build failed:\n{done.stdout}\n{done.stderr[-4000:]}"
    return SimpleNamespace(site=base / "site", zips={lang: base / "zips" / f"pytorch-notes-{lang}.zip" for lang in LANGS})


def unpack(archive: Path, into: Path) -> Path:
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(into)
    return into / archive.stem


def in_lang(lang: str, page: str) -> str:
    return page if lang == LANGS[0] else f"{lang}/{page}"


# --- the zips in the browser --------------------------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.parametrize("lang", LANGS)
def test_offline_zip_works_from_file_urls(browser, offline, tmp_path, lang):
    other = next(other for other in LANGS if other != lang)
    top = unpack(offline.zips[lang], tmp_path)
    site = top / "site"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    log = Recorder().attach(page)
    try:
        # The zip's index.html opens this language's home page.
        page.goto((top / "index.html").as_uri())
        page.wait_for_url((site / in_lang(lang, "index.html")).as_uri())
        assert page.locator("html").get_attribute("lang") == lang

        page.goto((site / in_lang(lang, "index.html")).as_uri())
        _search(page, log, QUERIES[lang], (site / in_lang(lang, PAGE)).as_uri())
        assert page.url.split("?")[0] == (site / in_lang(lang, PAGE)).as_uri()
        _figure_and_math(page)

        title = page.locator("h1").first.inner_text()
        page.locator(".md-header .md-select").hover()
        with page.expect_navigation(wait_until="load"):
            page.locator(f'.md-header a.md-select__link[hreflang="{other}"]').click()
        assert page.url == (site / in_lang(other, PAGE)).as_uri(), "the language menu did not keep the page"
        assert page.locator("html").get_attribute("lang") == other
        assert page.locator("h1").first.inner_text() not in ("", title), "the other language's page did not render"
        _figure_and_math(page)
    finally:
        context.close()
    assert not problems(log), f"the {lang} offline copy, from file://: " + "\n".join(problems(log))


def problems(log: Recorder) -> list[str]:
    """What went wrong on the page; a file:// request is what the offline copy makes, any other host is not."""
    remote = [f"request to another host: {url}" for url in log.foreign_requests if not url.startswith("file://")]
    return [*log.console_errors, *log.page_errors, *log.failed_requests, *remote]


def _search(page, log: Recorder, query: str, expected: str) -> None:
    """Type the query; one of the first three pages found must be `expected`; open it from the results."""
    search = page.locator(".md-search__input")
    search.click()  # from file:// Material starts its search (iframe-worker, search_index.js) on the first focus
    search.press_sequentially(query, delay=20)
    search.press("End")  # a keyup after the last character, also for Chinese typed without key events
    try:
        page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=20_000)
    except PlaywrightTimeout:
        meta = page.locator(".md-search-result__meta").inner_text()
        pytest.fail(f"search for {query!r} from file:// showed no result in 20 s; the search box says {meta!r}; "
                    f"the page logged: {problems(log) or 'nothing'}", pytrace=False)
    hrefs = page.locator(".md-search-result__item > .md-search-result__link").evaluate_all(
        "links => links.map(a => a.href)")
    pages = list(dict.fromkeys(href.split("?")[0].split("#")[0] for href in hrefs))
    assert expected in pages[:3], f"search for {query!r} from file:// found {pages[:5]}, not {expected}"
    link = page.locator(".md-search-result__item > .md-search-result__link").nth(
        next(i for i, href in enumerate(hrefs) if href.split("?")[0].split("#")[0] == expected))
    with page.expect_navigation(wait_until="load"):
        link.click()


def _figure_and_math(page) -> None:
    figure = page.locator("img.nb-image").first
    figure.scroll_into_view_if_needed()  # loading="lazy"
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=figure.element_handle())
    assert page.locator(".arithmatex .katex").count() > 0, "KaTeX rendered no math"


# --- what stops the build ------------------------------------------------------------------------------------

def tiny_site(root: Path, body: str) -> Path:
    """One page (page.html) with `body`, beside a target page and an image."""
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "index.html").write_text("<h1>sub</h1>")
    (root / "logo.png").write_bytes(b"\x89PNG")
    (root / "page.html").write_text(f"<html><head><title>t</title></head><body>{body}</body></html>")
    return root


@pytest.mark.parametrize(("body", "error", "words"), [
    ('<script src="https://cdn.example.org/x.js"></script>', tree.RemoteAsset, "another host"),
    ('<link rel="stylesheet" href="//fonts.example.org/a.css">', tree.RemoteAsset, "another host"),
    ('<a href="sub/">sub</a>', tree.DirectoryLink, "use_directory_urls"),
    ('<a href="sub">sub</a>', tree.DirectoryLink, "use_directory_urls"),
    ('<img src="gone.png">', tree.MissingTarget, "does not hold"),
    ('<a href="../../etc/passwd">x</a>', tree.MissingTarget, "does not hold"),
], ids=["script-cdn", "protocol-relative-css", "folder-link", "folder-link-no-slash", "missing-image", "outside"])
def test_a_tree_that_does_not_work_from_disk_is_refused(tmp_path, body, error, words):
    site = tiny_site(tmp_path / "site", body)
    with pytest.raises(error, match=words) as raised:
        tree.check(site)
    assert "page.html" in str(raised.value)


@pytest.mark.parametrize("css", ["@font-face { src: url(https://fonts.example.org/a.woff2) }",
                                 '@import "//fonts.example.org/css?family=Roboto";'], ids=["url", "import"])
def test_a_stylesheet_from_another_host_is_refused(tmp_path, css):
    site = tiny_site(tmp_path / "site", "")
    (site / "extra.css").write_text(f"a {{ color: red }}\n{css}\n.b {{ background: url(data:image/png;base64,AA) }}")
    with pytest.raises(tree.RemoteAsset, match=r"extra\.css: loads '(https:)?//fonts\.example\.org"):
        tree.check(site)


def test_links_that_work_from_disk_pass(tmp_path):
    site = tiny_site(tmp_path / "site", '<a href="sub/index.html#x">s</a> <a href="https://github.com/x">gh</a> '
                                         '<link rel="canonical" href="https://example.org/page/"> <a href="#top">t</a> '
                                         '<img src="logo.png"> <img src="data:image/png;base64,AAAA"> '
                                         '<a href="mailto:a@example.org">m</a>')
    (site / "local.css").write_text("@font-face { src: url(fonts/a.woff2) } .x { background: url('data:,') }")
    assert tree.check(site) == 7


def test_the_build_script_stops_naming_the_page(offline, tmp_path):
    """A built tree with a CDN script in one page: no zip, and the message names the page."""
    site = tmp_path / "site"
    shutil.copytree(offline.site, site)
    page = site / "zh" / PAGE
    page.write_text(page.read_text(encoding="utf-8").replace(
        "</head>", '<script src="https://cdn.jsdelivr.net/npm/x/x.js"></script></head>', 1), encoding="utf-8")
    done = run_offline("--no-build", "--site", str(site), "--out", str(tmp_path / "zips"))
    assert done.returncode == 1
    assert f"zh/{PAGE}" in done.stderr and "another host" in done.stderr, done.stderr
    assert not (tmp_path / "zips").exists()


def test_each_language_has_its_search_script(offline):
    for lang in LANGS:
        folder = offline.site / ("" if lang == LANGS[0] else lang) / "search"
        script = (folder / "search_index.js").read_text(encoding="utf-8")
        assert script.startswith("var __index = {"), f"{folder}: not the script Material loads from file://"
        assert not (folder / "search_index.json").exists()
    zh = (offline.site / "zh" / "search" / "search_index.js").read_text(encoding="utf-8")
    assert re.search(r'"losses/binary\.html"', zh), "the zh index does not hold zh pages by their .html paths"


def test_missing_index_is_named(tmp_path):
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text('{"config": {}, "docs": []}')
    with pytest.raises(tree.MissingIndex, match=r"zh.*no search index for 'zh'"):
        tree.write_search_scripts(tmp_path, LANGS)


def test_the_hooks_refuse_directory_urls():
    config = SimpleNamespace(use_directory_urls=True, extra={})
    with pytest.raises(PluginError, match="use_directory_urls: false"):
        hooks.on_config(config)


def test_same_tree_same_zip(tmp_path):
    site = tiny_site(tmp_path / "site", '<a href="sub/index.html">s</a>')
    (site / "zh").mkdir()
    (site / "zh" / "index.html").write_text("<title>Home - PyTorch 笔记</title>")
    first = write_zip(site, "zh", LANGS, tmp_path / "a").read_bytes()
    os.utime(site / "page.html", (0, 0))
    assert write_zip(site, "zh", LANGS, tmp_path / "b").read_bytes() == first
    with zipfile.ZipFile(tmp_path / "a" / "pytorch-notes-zh.zip") as opened:
        stub = opened.read("pytorch-notes-zh/index.html").decode()
    assert 'url=site/zh/index.html' in stub and "<title>PyTorch 笔记</title>" in stub


# --- published and linked ------------------------------------------------------------------------------------

def test_the_deploy_workflow_publishes_the_zips_with_the_site():
    steps = yaml.safe_load((ROOT / ".github/workflows/deploy.yml").read_text())["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    site = next(i for i, run_ in enumerate(runs) if "mkdocs build" in run_)
    zips = next(i for i, run_ in enumerate(runs) if "scripts/build_offline.sh" in run_)
    upload = next(i for i, step in enumerate(steps) if "upload-pages-artifact" in step.get("uses", ""))
    assert site < zips < upload
    assert "OUT" not in steps[zips].get("env", {}), "the zips go to site/offline/, which the upload publishes"
    assert steps[upload]["with"]["path"] == "site/"


def test_every_page_links_its_languages_zip(offline):
    """The header of every page links the zip of the page's language; both home pages link both zips."""
    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["site_url"]
    pages = [p for p in offline.site.rglob("*.html") if not {"assets", "search"} & set(p.relative_to(offline.site).parts)]
    assert len(pages) > 70
    for page in pages:
        lang = "zh" if page.relative_to(offline.site).parts[0] == "zh" else "en"
        links = header_links(page, "a.nb-offline-link")
        assert links == {f"{site_url}offline/pytorch-notes-{lang}.zip"}, f"{page}: {links}"
    for home in (offline.site / "index.html", offline.site / "zh" / "index.html"):
        hrefs = {a["href"] for a in BeautifulSoup(home.read_text(encoding="utf-8"), "html.parser").select("article a")}
        assert {f"{site_url}offline/pytorch-notes-{lang}.zip" for lang in LANGS} <= hrefs, home


def test_a_failed_mkdocs_build_is_named(tmp_path):
    done = run_offline("--config", str(tmp_path / "missing.yml"), "--site", str(tmp_path / "site"),
                       "--out", str(tmp_path / "zips"))
    assert done.returncode == 1
    assert "mkdocs build -f" in done.stderr and "missing.yml" in done.stderr, done.stderr
    assert not (tmp_path / "zips").exists()


def test_a_content_link_to_another_language_follows_the_language_menu():
    """The out-of-date notice of a translation links the English page for directory URLs; offline it must name the
    same .html page as the language menu does."""
    html = ('<a href="../../tensors/views.html" hreflang="en" class="md-select__link">English</a>'
            '<a href="views.html" hreflang="zh" class="md-select__link">中文</a>'
            '<div class="nb-stale"><a href="../../tensors/views/" hreflang="en">英文原文</a>'
            '<a href="x/" hreflang="fr">fr</a></div>')
    out = hooks.on_post_page(html, page=None, config=None)
    assert '<a href="../../tensors/views.html" hreflang="en">英文原文</a>' in out
    assert '<a href="x/" hreflang="fr">' in out, "a language without a menu entry is left alone (the check names it)"
    assert out.count('class="md-select__link"') == 2


def test_a_half_built_tree_is_refused_and_no_zip_is_written(tmp_path):
    """--no-build over a tree that a stopped build left (no Chinese home page): one message, no zip, no part."""
    site = tiny_site(tmp_path / "site", '<a href="page.html">p</a>')
    (site / "index.html").write_text("<title>Home - PyTorch Notes</title>")
    done = run_offline("--no-build", "--site", str(site), "--out", str(tmp_path / "zips"))
    assert done.returncode == 1 and "is not a whole offline build (no zh/index.html)" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "zips").exists()
