"""Issue 44 §3 and §4, in Chromium over the built site: a missing address shows the 404 page in its own language,
served as GitHub Pages serves it (one root 404.html for every missing path), with a language menu that leads to
the other language's home; and the language menu keeps the reader's cell (#cell-N) or exercise (#exercise-N).
"""

from __future__ import annotations

import re

import pytest
from browser_support import SiteServer, in_lang, jump_from_the_top, serve_small_indexes, small_indexes

pytestmark = pytest.mark.browser

HOME_TITLE = {"en": "PyTorch Notes", "zh": "PyTorch 笔记"}
NOT_FOUND = {"en": "404 · Page not found", "zh": "404 · 找不到这个页面"}
OTHER = {"en": "zh", "zh": "en"}


@pytest.fixture(scope="module")
def pages_server(built_site):
    """The built site behind GitHub Pages' 404 rule: any missing address answers with the root 404.html."""
    with SiteServer(built_site, pages_404=True) as running:
        yield running


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="light")
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" and "404" not in m.text else None)
    tab.errors = errors
    yield tab
    context.close()


def _menu_link(page, lang: str):
    page.locator(".md-header .md-select").hover()
    link = page.locator(f'.md-header .md-select a.md-select__link[hreflang="{lang}"]')
    link.wait_for(state="visible")
    return link


@pytest.mark.parametrize(("rel", "lang"), [
    ("no/such/page/", "en"), ("tensors/no-such-page/", "en"), ("zh/no/such/page/", "zh"),
    ("zh/tensors/views/no-such-page", "zh"),
], ids=["en-root", "en-deep", "zh-root", "zh-deep"])
def test_a_missing_address_answers_in_its_language(page, pages_server, rel, lang):
    response = page.goto(pages_server.url(rel), wait_until="load")
    assert response is not None and response.status == 404, f"/{rel}: HTTP {response and response.status}"
    assert page.locator("html").get_attribute("lang") == lang
    assert page.locator("h1").first.inner_text().strip() == NOT_FOUND[lang]
    assert page.title() == HOME_TITLE[lang]
    # The page's own scripts ran once, in order, on the written body: Material's header and the site's scripts.
    assert page.locator(".md-header__topic").first.inner_text().strip() == HOME_TITLE[lang]
    assert not page.errors, f"/{rel}: {page.errors}"
    home = page.locator("article a", has_text="PyTorch").first
    assert home.evaluate("a => a.href") == pages_server.url(in_lang(lang, "")), f"/{rel}: the link home"

    # The language menu leads to the other language's home page, never to a page the build rendered last.
    link = _menu_link(page, OTHER[lang])
    target = pages_server.url(in_lang(OTHER[lang], ""))
    assert link.evaluate("a => a.href") == target, f"/{rel}: the {OTHER[lang]} entry of the language menu"
    with page.expect_navigation(wait_until="load"):
        link.click()
    assert page.url == target
    assert page.locator("html").get_attribute("lang") == OTHER[lang]


def test_without_javascript_the_404_page_is_english(browser, pages_server):
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = context.new_page()
        response = tab.goto(pages_server.url("zh/no-such-page/"))
        assert response.status == 404
        assert tab.locator("h1").first.inner_text().strip() == NOT_FOUND["en"]
    finally:
        context.close()


def _in_view(page, anchor: str) -> bool:
    """The anchor's element below the fixed header and above the window's bottom edge, with the code under it."""
    return page.evaluate("""(id) => {
        const target = document.getElementById(id)
        const header = document.querySelector(".md-header").getBoundingClientRect().bottom
        const box = target.getBoundingClientRect()
        return box.top >= header - 1 && box.bottom <= window.innerHeight
    }""", anchor)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_language_menu_keeps_the_cell(browser, pages_server, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 900})
    try:
        page = context.new_page()
        page.goto(pages_server.url("cuda/memory/#cell-9"), wait_until="load")
        for lang in ("zh", "en"):
            link = _menu_link(page, lang)
            with page.expect_navigation(wait_until="load"):
                link.click()
            assert page.url == pages_server.url(in_lang(lang, "cuda/memory/#cell-9")), f"to {lang}: {page.url}"
            page.wait_for_timeout(200)
            assert _in_view(page, "cell-9"), f"{width} px, {lang}: cell 9 is not in view after the switch"

        # An anchor the reader follows on the page (hashchange) travels too; a heading's, whose id differs
        # between the languages, does not.
        page.goto(pages_server.url("tensors/views/"), wait_until="load")
        page.locator('a[href="#cell-5"]').first.click()
        assert _menu_link(page, "zh").evaluate("a => a.href") == pages_server.url("zh/tensors/views/#cell-5")
        page.evaluate("location.hash = '#further-reading'")
        assert _menu_link(page, "zh").evaluate("a => a.href") == pages_server.url("zh/tensors/views/")
    finally:
        context.close()


def test_the_language_menu_keeps_an_exercise(browser, pages_server, built_site):
    found = None
    for html in sorted(built_site.rglob("index.html")):
        rel = html.parent.relative_to(built_site).as_posix() + "/"
        if rel.startswith("zh/"):
            continue
        match = re.search(r'id="(exercise-\d+)"', html.read_text(encoding="utf-8"))
        if match:
            found = rel, match.group(1)
            break
    if found is None:
        pytest.skip("no page of this site has an exercise yet")
    rel, anchor = found
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(pages_server.url(f"{rel}#{anchor}"), wait_until="load")
        link = _menu_link(page, "zh")
        with page.expect_navigation(wait_until="load"):
            link.click()
        assert page.url == pages_server.url(f"zh/{rel}#{anchor}")
    finally:
        context.close()


# Where a link to a cell lands: its number below the header, the start of its code inside the window.
LANDED_JS = """(id) => {
    const number = document.getElementById(id)
    if (!number) return "no such cell"
    let code = number.nextElementSibling
    while (code && !code.querySelector("pre, code") && !code.matches(".highlight, pre")) code = code.nextElementSibling
    const header = document.querySelector(".md-header").getBoundingClientRect().bottom
    const box = number.getBoundingClientRect()
    if (box.top < header - 1) return `the number is under the header (${box.top} < ${header})`
    if (!code) return "no code after the number"
    const first = code.getBoundingClientRect().top + 16
    return first <= window.innerHeight ? "" : `the code starts below the window (${first})`
}"""
CELL_LINK_WIDTHS = {1280: 900, 390: 844}


@pytest.fixture(scope="module")
def cell_landings(browser, pages_server, built_site) -> dict[int, list[str]]:
    """{width: [where a link from the changes page to a cell missed]}. Each page a link leads to is loaded once, at a
    laptop's width: every link to it is followed there, then the page is resized to a phone's width and every link
    followed again. Following a link to another cell of the page is the browser's own jump to an anchor, at either
    width; a second load of every page for the phone cost 35 core-seconds and found what the first did. None of
    them is searched: each gets its language's search index cut to one page."""
    context = browser.new_context(viewport={"width": 1280, "height": CELL_LINK_WIDTHS[1280]})
    serve_small_indexes(context, pages_server, small_indexes(built_site))
    try:
        page = context.new_page()
        targets = []
        for lang in ("en", "zh"):
            page.goto(pages_server.url(in_lang(lang, "versions/")), wait_until="load")
            hrefs = page.eval_on_selector_all("article a[href*='#']", "links => links.map(a => a.href)")
            assert not [h for h in hrefs if "#drift-" in h], "a link to the pills, not to the cell"
            targets += [h for h in hrefs if re.search(r"#cell-\d+$", h)]
        assert targets, "the changes page links to no cell"
        by_page: dict[str, list[str]] = {}
        for href in dict.fromkeys(targets):
            by_page.setdefault(href.rsplit("#", 1)[0], []).append(href)
        missed: dict[int, list[str]] = {width: [] for width in CELL_LINK_WIDTHS}
        for address, hrefs in by_page.items():
            page.goto(address, wait_until="load")
            for width, height in CELL_LINK_WIDTHS.items():
                page.set_viewport_size({"width": width, "height": height})
                for href in hrefs:
                    cell = href.rsplit("#", 1)[1]
                    jump_from_the_top(page, cell)
                    page.wait_for_timeout(100)
                    seen = page.evaluate(LANDED_JS, cell)
                    if seen:
                        missed[width].append(f"{href}: {seen}")
        return missed
    finally:
        context.close()


@pytest.mark.parametrize("width", list(CELL_LINK_WIDTHS))
def test_every_link_from_the_changes_page_lands_on_the_cells_number_and_code(cell_landings, width):
    """§1: a link from the changes page to a cell shows that cell's number and the start of its code below the
    header, not the row of pills under its output."""
    assert not cell_landings[width], f"{width} px:\n  " + "\n  ".join(cell_landings[width])
