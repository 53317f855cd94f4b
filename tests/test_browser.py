"""Headless Chromium over the built site, in both languages.

The site comes from TORCHNOTES_SITE (scripts/test.sh builds it first) or is built once into a temporary folder.
It is served on 127.0.0.1 under its deployment path (site_url's path), as GitHub Pages serves it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from browser_support import (
    COLORS_JS,
    LANGS,
    Recorder,
    SiteServer,
    effective_contrast,
    hex_color,
    in_lang,
    page_lang,
    skip_or_fail,
    strip_lang,
)
from helpers import ROOT
from walk import AXE, AXE_PAGES, SHOTS, VIEWPORT, screenshot, slug

pytestmark = pytest.mark.browser

# --- fixtures ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def site_dir(built_site) -> Path:
    return built_site


@pytest.fixture(scope="session")
def server(site_dir):
    with SiteServer(site_dir) as running:
        yield running


class Tab:
    """A fresh page in a fresh context, with a Recorder of everything that goes wrong on it."""

    def __init__(self, browser, server: SiteServer):
        self.server = server
        self.context = browser.new_context(viewport=VIEWPORT, color_scheme="light", accept_downloads=True)
        self.context.set_default_timeout(15_000)
        self.page = self.context.new_page()
        self.log = Recorder().attach(self.page)

    def goto(self, rel: str, wait_until: str = "load"):
        response = self.page.goto(self.server.url(rel), wait_until=wait_until)
        assert response is not None and response.ok, f"{rel}: HTTP {response.status if response else '?'}"
        return response

    def assert_no_script_errors(self) -> None:
        """No uncaught exception, no console error other than a resource failing to load, nothing fetched from
        another host. Resources that fail to load are test 1's business (every page, load by load)."""
        problems = [f"uncaught exception: {e}" for e in self.log.page_errors]
        problems += [f"console error: {e}" for e in self.log.console_errors if not e.startswith("Failed to load resource")]
        problems += [f"request to another host: {u}" for u in self.log.foreign_requests]
        assert not problems, f"{self.page.url}:\n  " + "\n  ".join(problems)


@pytest.fixture
def tab(browser, server):
    t = Tab(browser, server)
    yield t
    t.context.close()


def _rel_of(server: SiteServer, url: str) -> str:
    assert url.startswith(server.base), f"{url} is not on the site ({server.base})"
    return url[len(server.base):].split("#")[0].split("?")[0]


# --- 1. every page loads cleanly --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def every_page(laptop_walk) -> dict[str, dict]:
    """Every page of the site loaded once (tests/walk.py, a walk test_reader_pages reads too), for the tests that
    check something on each of them: {rel: {"problems": what went wrong loading it, "colab": the provenance line's
    Colab links, "h1": its title, "lang": <html lang>, "axe": axe-core's serious and critical violations (AXE_PAGES
    only, else None), "shot": (its light screenshot, the colour scheme Material shows) for SHOTS only, else None}}."""
    return {rel: {**seen, "shot": (Path(seen["shot"][0]), seen["shot"][1]) if seen["shot"] else None}
            for rel, seen in laptop_walk.items()}


def test_every_page_loads_cleanly(every_page):
    pages = list(every_page)
    by_lang = {lang: sorted(strip_lang(p) for p in pages if page_lang(p) == lang) for lang in LANGS}
    assert all(by_lang.values()), f"a language has no pages: { {k: len(v) for k, v in by_lang.items()} }"
    assert by_lang["zh"] == by_lang["en"], (
        "the languages have different pages: only en "
        f"{sorted(set(by_lang['en']) - set(by_lang['zh']))}, only zh {sorted(set(by_lang['zh']) - set(by_lang['en']))}")
    failures = {"/" + rel: seen["problems"] for rel, seen in every_page.items() if seen["problems"]}
    assert not failures, f"{len(failures)} of {len(pages)} pages have problems:\n" + _summarise(failures)


def _summarise(failures: dict[str, list[str]], detailed: int = 3) -> str:
    """The problems common to many pages once (with <page> for the page's own path), then a few pages in full."""
    common: dict[str, list[str]] = {}
    for rel, problems in failures.items():
        for problem in set(problems):
            pattern = re.sub(r"https?://127\.0\.0\.1:\d+", "", problem)
            own = strip_lang(rel.lstrip("/"))  # the page's path in any language
            if own:
                pattern = pattern.replace("/" + own, "/<page>/")
            common.setdefault(pattern, []).append(rel)
    lines = [f"  on {len(rels)} page(s), e.g. {rels[0]}: {pattern}" for pattern, rels in
             sorted(common.items(), key=lambda item: -len(item[1]))]
    for rel, problems in list(failures.items())[:detailed]:
        lines.append(f"  {rel}\n    " + "\n    ".join(problems))
    if len(failures) > detailed:
        lines.append(f"  ... and {len(failures) - detailed} more pages")
    return "\n".join(lines)


# --- 2. the language switcher keeps the page ----------------------------------------------------------------

def _switch_language(tab: Tab, lang: str, rel: str) -> None:
    page = tab.page
    page.locator(".md-header .md-select").hover()
    link = page.locator(f'.md-header .md-select a.md-select__link[hreflang="{lang}"]')
    link.wait_for(state="visible")
    target = tab.server.url(in_lang(lang, rel))
    assert link.evaluate("a => a.href") == target, f"the {lang} entry of the language menu does not link to {target}"
    with page.expect_navigation(wait_until="load"):
        link.click()


@pytest.mark.parametrize("rel", ["tensors/gather-scatter/", ""], ids=["deep-page", "home"])
def test_language_switcher_keeps_the_page(tab, rel):
    tab.goto(rel)
    assert tab.page.locator("html").get_attribute("lang") == "en"
    en_title = tab.page.locator("h1").first.inner_text()

    _switch_language(tab, "zh", rel)
    assert _rel_of(tab.server, tab.page.url) == in_lang("zh", rel)
    assert tab.page.locator("html").get_attribute("lang") == "zh"
    assert tab.page.locator("h1").first.inner_text() != en_title, "the Chinese page shows the English title"

    _switch_language(tab, "en", rel)
    assert _rel_of(tab.server, tab.page.url) == rel
    assert tab.page.locator("html").get_attribute("lang") == "en"
    assert tab.page.locator("h1").first.inner_text() == en_title


# --- 3. search answers in the reader's language --------------------------------------------------------------

@pytest.mark.parametrize(("lang", "rel", "query"), [
    ("zh", "autograd/graph/", "梯度"),
    ("en", "autograd/graph/", "gradient"),
], ids=["zh", "en"])
def test_search_returns_pages_in_the_readers_language(tab, lang, rel, query):
    page = tab.page
    tab.goto(in_lang(lang, rel))
    search = page.locator(".md-search__input")
    search.click()
    search.press_sequentially(query, delay=30)
    # Characters not on the keyboard are inserted without key events, as an IME commits them; Material
    # searches on keyup, which the key that ends a composition gives. "End" gives one and changes nothing.
    search.press("End")
    page.locator(".md-search-result__item").first.wait_for(state="visible", timeout=20_000)
    _wait_until_stable(page, ".md-search-result__list a")

    hrefs = page.locator(".md-search-result__list a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs, f"no result links for {query!r}"
    rels = [_rel_of(tab.server, h) for h in hrefs]
    if lang == LANGS[0]:
        wrong = [r for r in rels if page_lang(r) != lang]
    else:
        wrong = [r for r in rels if not r.startswith(f"{lang}/")]
    assert not wrong, f"{lang} search for {query!r} returned pages of another language: {wrong}"
    # The term is the subject of the autograd section: its pages must be among the results.
    assert any(strip_lang(r).startswith("autograd/") for r in rels), f"no autograd page found for {query!r}: {rels}"
    tab.assert_no_script_errors()


def _wait_until_stable(page, selector: str, quiet_ms: int = 400, timeout_ms: int = 10_000) -> None:
    """Wait until the hrefs under `selector` stop changing (results are re-rendered as the query grows)."""
    read = "links => links.map(a => a.href).join(' ')"
    last, waited = page.locator(selector).evaluate_all(read), 0
    while waited < timeout_ms:
        page.wait_for_timeout(quiet_ms)
        waited += quiet_ms
        now = page.locator(selector).evaluate_all(read)
        if now == last:
            return
        last = now


# --- 4. copying code copies only the code --------------------------------------------------------------------

FIRST_BLOCK_WITH_STDOUT_JS = """
() => [...document.querySelectorAll('.md-content div.highlight')].findIndex(block => {
  const next = block.nextElementSibling;
  return next && next.matches('div.nb-output') && next.querySelector('pre.nb-stdout');
})
"""


def test_copy_button_copies_code_without_outputs(tab):
    page = tab.page
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tab.server.origin)
    tab.goto("tensors/views/")
    index = page.evaluate(FIRST_BLOCK_WITH_STDOUT_JS)
    assert index >= 0, "no code block followed by a stdout output on the page"
    block = page.locator(".md-content div.highlight").nth(index)
    code = block.locator("code").first.evaluate("c => c.textContent").rstrip()
    output = block.locator("xpath=following-sibling::div[1]").evaluate("o => o.textContent")
    assert code and output.strip()

    block.hover()
    # Material 9.7+ puts the button in a nav (button.md-code__button); older releases used button.md-clipboard.
    button = block.locator("button[data-clipboard-target]")
    assert button.count() == 1, "the code block has no copy button"
    button.click()
    page.locator(".md-dialog").filter(has_text=re.compile(r"\S")).wait_for(state="visible")
    copied = page.evaluate("() => navigator.clipboard.readText()")

    assert copied == code, f"clipboard differs from the code block:\n--- clipboard\n{copied}\n--- code\n{code}"
    leaked = [line for line in (raw.strip() for raw in output.splitlines()) if line and line not in code and line in copied]
    assert not leaked, f"output lines in the clipboard: {leaked}"
    tab.assert_no_script_errors()


# --- 5. outputs and tracebacks are legible in both schemes ------------------------------------------------

LEGIBLE = {
    "stdout": ".nb-output pre.nb-stdout",
    "traceback": ".nb-output pre.nb-error",
    "traceback label": ".nb-output pre.nb-error .nb-error-label",
    "traceback red": ".nb-output pre.nb-error .ansi-red-fg",
}

# Every differently coloured piece of text in the tracebacks (ANSI classes, inline 256-colour styles).
TRACEBACK_COLOURS_JS = """
(pres) => {
  const seen = new Map();
  for (const pre of pres) {
    for (const span of pre.querySelectorAll('span')) {
      if (!span.textContent.trim()) continue;
      const key = getComputedStyle(span).color;
      if (!seen.has(key)) seen.set(key, span);
    }
  }
  return [...seen.values()].map(span => {
    const backgrounds = [];
    for (let node = span; node && node.nodeType === 1; node = node.parentElement) {
      backgrounds.push(getComputedStyle(node).backgroundColor);
    }
    const style = span.getAttribute('style');
    const label = (span.className ? '.' + span.className.split(' ').join('.') : 'span') + (style ? `[style="${style}"]` : '');
    return {color: getComputedStyle(span).color, backgrounds, label, text: span.textContent.slice(0, 30)};
  });
}
"""


def _contrasts(page) -> dict[str, tuple[float, str]]:
    found = {}
    for name, selector in LEGIBLE.items():
        element = page.locator(selector).first
        assert element.count() == 1, f"nothing matches {selector}"
        found[name] = _measure(element.evaluate(COLORS_JS))
    for info in page.locator(".nb-output pre.nb-error").evaluate_all(TRACEBACK_COLOURS_JS):
        found[f"traceback span {info['label']}"] = _measure(info)
    return found


def _measure(info: dict) -> tuple[float, str]:
    ratio, fg, bg = effective_contrast(info["color"], info["backgrounds"])
    return ratio, f"{hex_color(fg)} on {hex_color(bg)}: {info['text'].strip()[:40]!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_outputs_and_tracebacks_are_legible_in_light_and_dark(tab, lang):
    page = tab.page
    tab.goto(in_lang(lang, "losses/cross-entropy/"))
    body = page.locator("body")
    assert body.get_attribute("data-md-color-scheme") == "default"
    page.wait_for_timeout(300)  # Material transitions colours for .25s
    results = {"light": _contrasts(page)}

    page.locator('form[data-md-component="palette"] label:visible').first.click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.wait_for_timeout(300)
    results["dark"] = _contrasts(page)

    low = [f"{scheme} {name}: {ratio:.2f} ({detail})"
           for scheme, found in results.items() for name, (ratio, detail) in found.items() if ratio < 4.5]
    assert not low, "contrast below 4.5:1:\n  " + "\n  ".join(low)
    tab.assert_no_script_errors()


# --- 6. the downloaded notebook is the page's notebook ---------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _normalise(text: str) -> str:
    return " ".join(ANSI.sub("", text).split())


@pytest.mark.parametrize("rel", ["tensors/views/", "zh/tensors/gather-scatter/"])
def test_download_link_gives_the_executed_notebook(tab, rel, tmp_path):
    page = tab.page
    tab.goto(rel)
    links = page.locator(".nb-provenance a[download]")
    stem = strip_lang(rel).rstrip("/").rsplit("/", 1)[-1]
    assert [a.get_attribute("href").rsplit("/", 1)[-1] for a in links.all()] == [f"{stem}.ipynb", f"{stem}-page.py"], \
        "the provenance line offers the notebook, then the script"
    with page.expect_download() as script:
        links.nth(1).click()
    assert script.value.suggested_filename == f"{stem}-page.py"
    script.value.save_as(tmp_path / f"{stem}-page.py")
    assert "# %% [markdown]" in (tmp_path / f"{stem}-page.py").read_text(encoding="utf-8")
    with page.expect_download() as info:
        links.nth(0).click()
    download = info.value
    assert download.suggested_filename == f"{stem}.ipynb"
    target = tmp_path / download.suggested_filename
    download.save_as(target)

    notebook = nbformat.read(target, as_version=nbformat.NO_CONVERT)
    nbformat.validate(notebook)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code_cells if c.outputs]
    assert counts, "the notebook has no outputs: not executed"
    assert all(n is not None for n in counts) and counts == sorted(counts), f"execution counts {counts}"

    # Cells whose outputs the page leaves out on purpose (render.py's remove-* tags) are not compared.
    shown = [c for c in code_cells if not {"remove-cell", "remove-output"} & set(c.metadata.get("tags", []))]
    in_notebook = [_normalise(o.text) for c in shown for o in c.outputs
                   if o.output_type == "stream" and o.name == "stdout"]
    # A needs-cuda cell's recorded GPU output is shown on the page; the notebook holds what this build ran.
    on_page = [_normalise(t) for t in page.locator(".nb-output:not(.nb-output--recorded) pre.nb-stdout").all_text_contents()]
    assert on_page, "the page shows no stdout"
    assert in_notebook == on_page, _first_difference(in_notebook, on_page)
    tab.assert_no_script_errors()


def _first_difference(left: list[str], right: list[str]) -> str:
    for i, (a, b) in enumerate(zip(left, right)):
        if a != b:
            return f"stdout #{i} differs:\n  notebook: {a[:300]}\n  page:     {b[:300]}"
    return f"notebook has {len(left)} stdout outputs, the page {len(right)}"


# --- 7. the Colab link opens the paired notebook -----------------------------------------------------------

def test_colab_link_points_at_the_paired_notebook(every_page):
    """Every page with a paired notebook has one Colab link, to that notebook, which carries the page's title;
    a page without one (the generated report, versions and benchmark pages) has none."""
    problems, linked = [], set()
    for rel, seen in every_page.items():
        lang, own = page_lang(rel), strip_lang(rel)
        expected = f"notebooks/{lang}/{own.rstrip('/') or 'index'}.ipynb"
        source = ROOT / expected
        if not source.is_file():
            if seen["colab"]:
                problems.append(f"/{rel}: a Colab link ({seen['colab']}) but no {expected} in the repository")
            continue
        linked.add(expected)
        if len(seen["colab"]) != 1:
            problems.append(f"/{rel}: {len(seen['colab'])} Colab links, expected one to {expected}")
            continue
        href = urlsplit(seen["colab"][0])
        if not (href.scheme == "https" and href.hostname == "colab.research.google.com"
                and href.path.startswith("/github/") and href.path.endswith("/" + expected)):
            problems.append(f"/{rel}: Colab opens {seen['colab'][0]}, expected https://colab.research.google.com/github/…/{expected}")
            continue
        # The paired notebook is this page: its Markdown carries the page's title.
        notebook = json.loads(source.read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
        text += "\n" + str(notebook["metadata"].get("jupytext", {}).get("root_level_metadata", {}).get("title", ""))
        if seen["h1"] not in text.replace("`", "").replace("*", ""):
            problems.append(f"/{rel}: {expected} does not carry the page title {seen['h1']!r}")
    notebooks = {p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").rglob("*.ipynb")}
    assert linked == notebooks, f"notebooks without a page: {sorted(notebooks - linked)}"
    assert not problems, f"{len(problems)} page(s):\n  " + "\n  ".join(problems)


# --- 8. screenshots ---------------------------------------------------------------------------------------

def test_screenshots_of_key_pages(every_page, browser, server, tmp_path):
    """The light pages in both languages (taken by test 1's visit, with a light system preference), then dark
    ones in a context whose system preference is dark.

    Material remembers the chosen palette in localStorage, so the dark scheme gets a context of its own.
    """
    taken = {rel: seen["shot"] for rel, seen in every_page.items() if seen["shot"]}
    assert sorted(taken) == sorted(in_lang(lang, rel) for lang in LANGS for rel in SHOTS)
    problems = [f"/{rel}: colour scheme {scheme!r} with a light system preference"
                for rel, (_, scheme) in taken.items() if scheme != "default"]
    context = browser.new_context(viewport=VIEWPORT, color_scheme="dark")
    try:
        page = context.new_page()
        log = Recorder().attach(page)
        for lang in LANGS:
            url = in_lang(lang, "autograd/graph/")
            page.goto(server.url(url), wait_until="load")
            path, scheme = screenshot(page, tmp_path / f"{lang}-{slug('autograd/graph/')}-dark.png")
            taken[url + " (dark)"] = path, scheme
            if scheme != "slate":
                problems.append(f"/{url}: colour scheme {scheme!r} with a dark system preference")
        problems += log.page_errors + log.foreign_requests
    finally:
        context.close()
    small = [f"{path.name}: {path.stat().st_size} bytes" for path, _ in taken.values() if path.stat().st_size <= 20_000]
    assert not small, "near-empty screenshots:\n  " + "\n  ".join(small)
    assert not problems, "\n".join(problems)


# --- 9. accessibility ------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_accessibility(every_page, lang):
    """<html lang> on every page of the language, and no serious or critical axe-core violation on AXE_PAGES
    (run on the pages as test 1 loaded them)."""
    if not AXE.exists():
        skip_or_fail("axe-core is not installed (npm ci)")
    expected = ("zh", "zh-Hans", "zh-CN") if lang == "zh" else ("en",)
    mine = {rel: seen for rel, seen in every_page.items() if page_lang(rel) == lang}
    problems = [f"/{rel}: <html lang={seen['lang']!r}>, expected {expected[0]!r}"
                for rel, seen in mine.items() if seen["lang"] not in expected]
    checked = [rel for rel, seen in mine.items() if seen["axe"] is not None]
    assert sorted(map(strip_lang, checked)) == sorted(AXE_PAGES), f"axe ran on {checked}"
    problems += [f"/{rel}: {violation}" for rel in checked for violation in mine[rel]["axe"]]
    assert not problems, "accessibility problems:\n  " + "\n  ".join(problems)
