"""One visit of every page of the built site at a laptop's width, for every module that checks something on each page
(test_browser: loads cleanly, Colab links, titles, <html lang>, axe, screenshots; test_reader_pages: error boxes
whole on screen and colour contrast at 1280 px). Walking the site took a minute or more each time, and each module
walked it: now the first pytest-xdist worker that asks walks it, and the others read what it found from a file
in the run's shared temporary folder (a file lock makes them wait for it).
"""

from __future__ import annotations

import json
from pathlib import Path

from browser_support import Recorder, SiteServer, page_lang, site_pages, strip_lang, visit_all
from error_boxes import MEASURE_JS
from filelock import FileLock
from helpers import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORT = {"width": 1280, "height": 900}  # error_boxes.WIDTHS' laptop
SHOTS = ["", "tensors/gather-scatter/", "losses/cross-entropy/", "autograd/graph/"]  # screenshots, light
AXE_PAGES = ["", "tensors/gather-scatter/", "losses/cross-entropy/", "report/"]  # every axe rule, not only contrast

# Material's search box says "Initializing search" until its worker has built the index (after fetching the
# index and lunr's language files), then "Type to start searching": every page's search must get there.
SEARCH_READY = """() => {
  const meta = document.querySelector(".md-search-result__meta")
  const words = JSON.parse(document.getElementById("__config").textContent).translations
  return !meta || meta.textContent.trim() === words["search.result.placeholder"]
}"""

# The heading's text without its permalink anchor.
H1_TEXT_JS = "h => [...h.childNodes].filter(n => !(n.classList && n.classList.contains('headerlink'))).map(n => n.textContent).join('')"


def shared(name: str, tmp_path_factory, worker_id: str, compute):
    """compute()'s JSON result, computed once per run: by the first worker that asks, read by the others."""
    base = tmp_path_factory.getbasetemp()
    folder = base if worker_id == "master" else base.parent
    path = folder / f"{name}.json"
    with FileLock(str(folder / f"{name}.lock")):
        if not path.exists():
            result = compute(folder)
            path.write_text(json.dumps(result), encoding="utf-8")
    return json.loads(path.read_text(encoding="utf-8"))


def walk(browser, site: Path, shots: Path) -> dict[str, dict]:
    """Every page loaded once at 1280 px, light, until it has settled and its search is ready: {rel: {
    "problems": what went wrong loading it, "colab": the provenance line's Colab links, "h1": its title,
    "lang": <html lang>, "axe": axe-core's serious and critical violations (AXE_PAGES only, else None),
    "shot": [its light screenshot, the colour scheme Material shows] for SHOTS only, else None,
    "boxes": where each error box lands (error_boxes.MEASURE_JS), "contrast": axe's colour-contrast violations
    outside Pygments' code blocks}}."""
    from browser_support import skip_or_fail

    if not AXE.exists():
        skip_or_fail("axe-core is not installed (npm ci)")
    axe = AXE.read_text(encoding="utf-8")
    pages = site_pages(site)
    seen: dict[str, dict] = {}
    shots.mkdir(parents=True, exist_ok=True)
    with SiteServer(site) as server:

        def inspect(page) -> list[str]:
            rel = _rel_of(server, page.url)
            links = page.locator(".nb-provenance a[href*='colab.research.google.com']")
            h1 = page.locator("h1")
            page.evaluate("() => document.fonts.ready")
            page.add_script_tag(content=axe)
            own = strip_lang(rel)
            seen[rel] = {"colab": [a.get_attribute("href") for a in links.all()],
                         "h1": h1.first.evaluate(H1_TEXT_JS).strip() if h1.count() else "",
                         "lang": page.locator("html").get_attribute("lang"),
                         "axe": _axe_violations(page) if own in AXE_PAGES else None,
                         "boxes": page.evaluate(MEASURE_JS),
                         "contrast": _contrast(page),
                         "shot": screenshot(page, shots / f"{page_lang(rel)}-{slug(own)}-light.png") if own in SHOTS else None}
            return _rendered(page)

        # A few pages at once, each followed until it has loaded and stopped fetching: Material and the search
        # worker fetch after `load`. Every page keeps its own recorder, so a problem is reported against its page.
        context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
        context.set_default_timeout(20_000)
        try:
            pool = []
            for _ in range(4):
                page = context.new_page()
                pool.append((page, Recorder().attach(page)))
            results = visit_all(pool, [server.url(rel) for rel in pages], check=inspect, ready=SEARCH_READY)
        finally:
            context.close()
        unseen = {"colab": [], "h1": "", "lang": None, "axe": None, "boxes": None, "contrast": None, "shot": None}
        return {rel: {"problems": results[server.url(rel)], **seen.get(rel, unseen)} for rel in pages}


def _rel_of(server: SiteServer, url: str) -> str:
    assert url.startswith(server.base), f"{url} is not on the site ({server.base})"
    return url[len(server.base):].split("#")[0].split("?")[0]


def _rendered(page) -> list[str]:
    """A page that answers 200 but is empty or broken has no title or no <h1>."""
    if not page.title() or page.locator("h1").count() == 0:
        return ["no <title> or no <h1>"]
    return []


def slug(rel: str) -> str:
    return rel.strip("/").replace("/", "-") or "home"


def screenshot(page, path: Path) -> list:
    """The page as a reader sees it once its fonts have loaded and Material has faded its palette in:
    [its file, the colour scheme shown]."""
    page.evaluate("() => document.fonts.ready")
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    return [str(path), page.locator("body").get_attribute("data-md-color-scheme")]


def _contrast(page) -> list[str]:
    # Pygments' code blocks are left out: their colours are the theme's, the same on every page, and
    # test_browser's test_accessibility checks them whole; with them axe took three times as long.
    found = page.evaluate("""async () => (await axe.run({exclude: [['.highlight']]}, {runOnly: ['color-contrast'],
                                           resultTypes: ['violations']})).violations""")
    return [f"{node['target']}: {node.get('failureSummary', '').splitlines()[-1].strip()}"
            for v in found for node in v["nodes"]]


def _axe_violations(page) -> list[str]:
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
