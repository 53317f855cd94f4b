"""One visit of every page of the built site at a laptop's width, shared by the modules that inspect each page.

test_browser (the page loads cleanly, its Colab link, <html lang>, axe on a few pages, screenshots) and
test_reader_pages (where each error message lands, colour contrast) once walked the whole site at 1280 px each:
80 page loads of about 1.5 core-seconds apiece, half of it Material's bundle, done twice. Now the first module that
asks walks the site once and records all of it; the other reads the record. Under pytest-xdist the record lies in
the run's shared temporary folder, behind a file lock: a second worker waits for the first's walk, then reads it.

Each page is followed until it has loaded, stopped fetching and its search is ready (its worker has fetched its
language's index from where the page says it lies, and built it). The worker of every page but WHOLE_INDEX's is
handed its language's index cut to one page (browser_support.small_indexes): building the whole index cost a third of
a core-second on every page, and what differs from page to page is only where the page looks for it, which a page
looking in the wrong place still shows (the address answers 404); test_search and test_search_zh_reader search the
whole index. Each page is then inspected: its title and heading, its Colab links, where its error messages land
(error_boxes.py), axe-core's colour-contrast rule on its content outside Pygments' code blocks (on the few pages that
together show every kind of text of the site: contrast_pages), and on AXE_PAGES every axe rule; SHOTS are screenshot. Then
it is resized to a phone's width and where its errors land is measured again: test_reader_pages walked all 80 pages
a second time for that figure, which came out the same on every page.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import lxml.html
from browser_support import Recorder, page_lang, serve_small_indexes, site_pages, small_indexes, strip_lang, visit_all
from error_boxes import MEASURE_JS, WIDTHS
from helpers import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORT = {"width": 1280, "height": 900}
SHOTS = ["", "tensors/gather-scatter/", "losses/cross-entropy/", "autograd/graph/"]
WHOLE_INDEX = ["", "tensors/gather-scatter/"]  # in each language: their worker builds the whole search index
AXE_PAGES = ["", "tensors/gather-scatter/", "losses/cross-entropy/", "report/"]

# Material's search box says "Initializing search" until its worker has built the index (after fetching the
# index and the lunr language scripts), then its placeholder.
SEARCH_READY = """() => {
  const meta = document.querySelector(".md-search-result__meta")
  const words = JSON.parse(document.getElementById("__config").textContent).translations
  return !meta || meta.textContent.trim() === words["search.result.placeholder"]
}"""

# MEASURE_JS once two animation frames have passed: the layout and paint after a resize have happened. One call, not
# two: each of Playwright's calls is a round trip to the browser, and on a loaded machine the walk waits on them.
LAID_OUT_MEASURE_JS = f"""async () => {{
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))
  return ({MEASURE_JS})()
}}"""

# What a page shows that the walk records, read in one call once its fonts have loaded: its Colab links, the text of
# its first <h1> without the permalink anchor (null: none), <html lang>, its title, and MEASURE_JS's figures.
READ_JS = f"""async () => {{
  await document.fonts.ready
  const h1 = document.querySelector("h1")
  return {{
    colab: [...document.querySelectorAll(".nb-provenance a[href*='colab.research.google.com']")]
      .map(a => a.getAttribute("href")),
    h1: h1 ? [...h1.childNodes].filter(n => !(n.classList && n.classList.contains("headerlink")))
      .map(n => n.textContent).join("").trim() : null,
    lang: document.documentElement.getAttribute("lang"),
    title: document.title,
    errors: ({MEASURE_JS})(),
  }}
}}"""


def slug(rel: str) -> str:
    return rel.strip("/").replace("/", "-") or "home"


def screenshot(page, path: Path) -> tuple[Path, str]:
    """The page as a reader sees it once its fonts have loaded and Material has faded its palette in."""
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    return path, page.locator("body").get_attribute("data-md-color-scheme")


def rendered(read: dict) -> list[str]:
    """A page that answers 200 but is empty or broken has no title or no <h1> (READ_JS's record of it)."""
    if not read["title"] or read["h1"] is None:
        return ["no <title> or no <h1>"]
    return []


def axe_violations(page) -> list[str]:
    """Every axe rule on the whole page, its serious and critical violations."""
    violations = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    found = []
    for v in violations:
        if v["impact"] in ("serious", "critical"):
            targets = [_axe_node(node) for node in v["nodes"][:4]]
            more = f" (+{len(v['nodes']) - 4} more)" if len(v["nodes"]) > 4 else ""
            found.append(f"{v['id']} [{v['impact']}] {v['help']}; {len(v['nodes'])} nodes: " + " | ".join(targets) + more)
    return found


def _axe_node(node: dict) -> str:
    target = " ".join(map(str, node["target"]))
    for check in node.get("any", []):
        data = check.get("data")
        if isinstance(data, dict) and "contrastRatio" in data:
            return f"{target} ({data.get('fgColor')} on {data.get('bgColor')}: {data['contrastRatio']})"
    return target


def contrast(page) -> list[str]:
    """axe's colour-contrast rule on the page's content (.md-content) outside Pygments' code blocks. The code
    blocks' colours are the theme's, the same on every page (with them axe took three times as long); so are the
    header, the sidebars and the footer around the content (a third of the rule's time). AXE_PAGES, with every axe
    rule on the whole page, and test_browser's test_accessibility check both."""
    found = page.evaluate("""async () => (await axe.run({include: [['.md-content']], exclude: [['.highlight']]},
                                           {runOnly: ['color-contrast'], resultTypes: ['violations']})).violations""")
    return [f"{node['target']}: {node.get('failureSummary', '').splitlines()[-1].strip()}"
            for v in found for node in v["nodes"]]


def text_kinds(html: str) -> set[str]:
    """Every kind of text a page's content (.md-content) shows outside Pygments' code blocks: for each element with
    text of its own, the chain of elements from .md-content down to it, each as its tag, classes and inline style.
    What colours a text and what lies behind it is the stylesheet's reading of that chain (no rule of the site's
    CSS, or of Material's, reads the page's language or its place on the site)."""
    kinds: set[str] = set()

    def walk_down(element, chain: str) -> None:
        if "highlight" in element.classes:
            return
        chain += f" > {element.tag}{''.join('.' + name for name in sorted(element.classes))}[{element.get('style', '')}]"
        if (element.text or "").strip() or any((child.tail or "").strip() for child in element):
            kinds.add(chain)
        for child in element:
            if isinstance(child.tag, str):  # not a comment
                walk_down(child, chain)

    for content in lxml.html.document_fromstring(html).find_class("md-content"):
        walk_down(content, "")
    return kinds


def contrast_pages(kinds: dict[str, set[str]]) -> set[str]:
    """The pages whose content the colour-contrast rule reads, from {page: text_kinds(its HTML)}: few pages that
    together show every kind of text of the site, each next page the one that adds the most kinds not yet read (of
    equals, the first by address). On every page the rule was 36 of the walk's 175 core-seconds; on one page of each pair of
    twins it read 40 pages, where 18 show every kind. A page with a kind of its own (a new box, a stale
    translation's notice) is always read."""
    left, chosen = set().union(*kinds.values()), set()
    while left:
        best = max(sorted(kinds), key=lambda rel: len(kinds[rel] & left))
        chosen.add(best)
        left -= kinds[best]
    return chosen


def site_text_kinds(site: Path, pages: list[str]) -> dict[str, set[str]]:
    return {rel: text_kinds((site / rel / "index.html").read_text(encoding="utf-8")) for rel in pages}


def at_narrow_widths(page) -> dict[str, dict]:
    """MEASURE_JS's figures at each narrower width of error_boxes.WIDTHS (a phone's), the loaded page resized to it:
    where an error lands is the layout's, which the browser makes again for the new width (the same figures as a
    load at that width, every page compared when this replaced a second walk), without loading the page again."""
    found = {}
    for width, height in WIDTHS.items():
        if width < VIEWPORT["width"]:
            page.set_viewport_size({"width": width, "height": height})
            found[str(width)] = page.evaluate(LAID_OUT_MEASURE_JS)
    page.set_viewport_size(VIEWPORT)
    return found


def walk(browser, server, site: Path, shots: Path) -> dict[str, dict]:
    """{rel: {"problems", "colab", "h1", "lang", "errors" (MEASURE_JS's figures), "narrow" (the same at each narrower
    width, by width), "contrast" (contrast_pages only, else None), "axe" (AXE_PAGES only, else None), "shot" ([path, colour scheme] for SHOTS only, else
    None)}} for every page of the site; "contrast" and "axe" are None without axe-core installed."""
    pages = site_pages(site)
    read_contrast = contrast_pages(site_text_kinds(site, pages))
    axe = AXE.read_text(encoding="utf-8") if AXE.exists() else None
    seen: dict[str, dict] = {}

    def inspect(page) -> list[str]:
        rel = page.url[len(server.base):].split("#")[0].split("?")[0]
        read = page.evaluate(READ_JS)
        record = {"colab": read["colab"], "h1": read["h1"] or "", "lang": read["lang"], "errors": read["errors"],
                  "axe": None, "contrast": None, "shot": None}
        if axe is not None:
            if rel in read_contrast or strip_lang(rel) in AXE_PAGES:
                page.add_script_tag(content=axe)
            if rel in read_contrast:
                record["contrast"] = contrast(page)
            if strip_lang(rel) in AXE_PAGES:
                record["axe"] = axe_violations(page)
        if strip_lang(rel) in SHOTS:
            path, scheme = screenshot(page, shots / f"{page_lang(rel)}-{slug(strip_lang(rel))}-light.png")
            record["shot"] = [str(path), scheme]
        record["narrow"] = at_narrow_widths(page)
        seen[rel] = record
        return rendered(read)

    # A few pages at once, each followed until it has loaded and stopped fetching: Material and the search
    # worker fetch after `load`. Every page keeps its own recorder, so a problem is reported against its page.
    whole = [rel for rel in pages if strip_lang(rel) in WHOLE_INDEX]
    results: dict[str, list[str]] = {}
    for urls, indexes, tabs in (([server.url(rel) for rel in pages if rel not in whole], small_indexes(site), 4),
                                ([server.url(rel) for rel in whole], {}, 2)):
        context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
        context.set_default_timeout(20_000)
        if indexes:
            serve_small_indexes(context, server, indexes)
        try:
            pool = []
            for _ in range(tabs):
                page = context.new_page()
                pool.append((page, Recorder().attach(page)))
            # Up to 90 s for a page's search to get ready: what is checked is that it does, and on CI's two cores,
            # beside the documented commands printing both books, one page's worker once took more than 30 s to build
            # its index.
            results.update(visit_all(pool, urls, check=inspect, ready=SEARCH_READY, timeout=90.0))
        finally:
            context.close()
    unseen = {"colab": [], "h1": "", "lang": None, "axe": None, "contrast": None, "shot": None, "narrow": {},
              "errors": {"errors": [], "pageScrollsSideways": False, "hiddenWithoutCue": []}}
    return {rel: {"problems": results[server.url(rel)], **seen.get(rel, unseen)} for rel in pages}


def shared_walk(browser, server, site: Path, shared: Path) -> dict[str, dict]:
    """walk()'s record of this site, made once per test run: the first caller walks, under a file lock in
    `shared` (the run's temporary folder, common to its workers), and the others read what it wrote."""
    from filelock import FileLock

    name = "laptop-walk-" + hashlib.sha256(str(Path(site).resolve()).encode()).hexdigest()[:12]
    record = shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if record.is_file():
            return json.loads(record.read_text(encoding="utf-8"))
        shots = shared / f"{name}-screenshots"
        shots.mkdir(exist_ok=True)
        found = walk(browser, server, Path(site), shots)
        partial = record.with_name(record.name + ".partial")
        partial.write_text(json.dumps(found, ensure_ascii=False), encoding="utf-8")
        os.replace(partial, record)
        return found
