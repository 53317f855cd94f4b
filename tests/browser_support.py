"""Helpers for the browser tests: serve a built site, record what a page does wrong, measure contrast."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"  # Debian's; Ubuntu runners get Playwright's own build (scripts/browser_source.sh)
# Debian's build of Chromium's headless shell (the same Blink and V8, without the browser's windows and UI), which
# Playwright itself runs headless tests in. The whole site walked in it (tests/walk.py): 97 s and 24 core-s, where
# the full browser took 200 s and 39 core-s; there a resized page's animation frames came up to 2.3 s late.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
# --js-flags=--no-opt: no optimising JavaScript compiler. A test's page lives a second or two, too short to repay
# it: without it the renderers used a sixth less CPU over every page of the site (Chromium 156), and the suite is
# CPU-bound on 2 cores. Pages behave the same; timings measured here are, if anything, pessimistic.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--js-flags=--no-opt"]
LANGS = ("en", "zh")  # the default language first: it is served at the root, the others under /<lang>/
SITEMAP_NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


# --- the browser ------------------------------------------------------------------------------------------

def find_chromium(playwright_path: str | None, debian: tuple[str, ...] = (HEADLESS_SHELL, CHROMIUM)) -> str | None:
    """Debian's headless shell if installed, else Debian's chromium, else the build `playwright install chromium` put
    in place, else None."""
    for candidate in (*debian, playwright_path):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def skip_or_fail(reason: str, allow_module_level: bool = False) -> None:
    """Skip where a developer lacks the browser; fail under CI=true (set by the CI runner), where a skipped
    browser test would pass the build without checking anything."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}. Under CI=true the browser tests must run, not skip: "
                    "run 'bash scripts/setup.sh --browser' in the workflow before the tests.", pytrace=False)
    pytest.skip(reason, allow_module_level=allow_module_level)


# --- the site ---------------------------------------------------------------------------------------------

def base_path(site: Path) -> str:
    """The path the site is deployed under ("/pytorch-notes/"), read from the first <loc> of its sitemap.

    The home page's language links are absolute paths under site_url (mkdocs-static-i18n writes them so),
    so the site is served under the same path as on GitHub Pages; served at "/" they would point nowhere.
    """
    sitemap = site / "sitemap.xml"
    if not sitemap.exists():
        return "/"
    loc = ET.parse(sitemap).getroot().find("sm:url/sm:loc", SITEMAP_NS)
    path = urlsplit(loc.text.strip()).path if loc is not None and loc.text else "/"
    return path if path.endswith("/") else path + "/"


def site_pages(site: Path) -> list[str]:
    """Every page of every language as a path relative to the site root: "", "tensors/views/", "zh/", ..."""
    pages = []
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        pages.append("" if rel == "." else rel + "/")
    return pages


def page_lang(rel: str) -> str:
    first = rel.split("/", 1)[0]
    return first if first in LANGS[1:] else LANGS[0]


def strip_lang(rel: str) -> str:
    """ "zh/tensors/views/" -> "tensors/views/" """
    lang = page_lang(rel)
    return rel if lang == LANGS[0] else rel[len(lang) + 1:]


def in_lang(lang: str, rel: str) -> str:
    return rel if lang == LANGS[0] else f"{lang}/{rel}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"
    pages_404 = False

    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass

    def _strip_prefix(self) -> bool:
        if not self.path.startswith(self.prefix):
            self.send_error(404, "Outside the site")
            return False
        self.path = "/" + self.path[len(self.prefix):]
        return True

    def send_header(self, keyword, value):
        # Redirects ("dir" -> "dir/") are built from the stripped path: put the site's path back.
        if keyword.lower() == "location" and value.startswith("/"):
            value = self.prefix.rstrip("/") + value
        super().send_header(keyword, value)

    def do_GET(self):
        if self._strip_prefix():
            super().do_GET()

    def send_error(self, code, message=None, explain=None):
        # GitHub Pages' rule, where asked for (SiteServer(pages_404=True)): any missing address, at any depth and in
        # any language's folder, answers 404 with the site's one root 404.html.
        page = Path(self.directory) / "404.html"
        if code != 404 or not self.pages_404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        if self._strip_prefix():
            super().do_HEAD()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # The browser drops connections it no longer needs (navigating away mid-download): not a failure.
        pass


class SiteServer:
    """The built site over HTTP on 127.0.0.1 (a free port), under its deployment path."""

    def __init__(self, site: Path, pages_404: bool = False):
        """pages_404: answer a missing address as GitHub Pages does, with the root 404.html."""
        self.site = Path(site)
        self.prefix = base_path(self.site)
        handler = type("Handler", (_QuietHandler,), {"prefix": self.prefix, "pages_404": pages_404})
        self._server = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(self.site)))
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.base = self.origin + self.prefix
        self._thread = threading.Thread(target=self._server.serve_forever, name="site-server", daemon=True)

    def url(self, rel: str = "") -> str:
        return self.base + rel.lstrip("/")

    def __enter__(self) -> SiteServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


# --- what a page does wrong -------------------------------------------------------------------------------

LOCAL_HOSTS = {"127.0.0.1"}


@dataclass
class Recorder:
    """Console errors, uncaught exceptions, failed requests, HTTP errors and requests to other hosts.

    It also follows the requests in flight, so that a caller can tell when a page has stopped fetching, and
    which navigation each request belongs to: a request that our own next navigation aborted is not a failure.
    """

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    bad_responses: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.generation = 0
        self.loaded = False
        self.in_flight: set = set()
        self.last_activity = time.monotonic()
        self._born: dict = {}

    def attach(self, page) -> Recorder:
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on("request", self._on_request)
        page.on("requestfinished", self._on_done)
        page.on("requestfailed", self._on_failed)
        page.on("response", self._on_response)
        page.on("load", self._on_load)
        return self

    def navigating(self) -> None:
        """Call before sending the page somewhere else: what is still in flight belongs to the old page."""
        self.generation += 1
        self.loaded = False
        self.in_flight.clear()
        self.last_activity = time.monotonic()

    def quiet_for(self) -> float:
        """Seconds since the page loaded and its last request ended; 0 while anything is in flight."""
        if not self.loaded or self.in_flight:
            return 0.0
        return time.monotonic() - self.last_activity

    def _on_load(self, *_) -> None:
        self.loaded = True
        self.last_activity = time.monotonic()

    def _on_console(self, message) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            self.console_errors.append(f"{message.text} [{where}]" if where else message.text)

    def _on_request(self, request) -> None:
        self._born[request] = self.generation
        self.in_flight.add(request)
        self.last_activity = time.monotonic()
        parts = urlsplit(request.url)
        if parts.scheme in ("data", "blob", "about"):
            return
        if parts.hostname not in LOCAL_HOSTS:
            self.foreign_requests.append(request.url)

    def _on_done(self, request) -> None:
        self.in_flight.discard(request)
        self._born.pop(request, None)
        self.last_activity = time.monotonic()

    def _on_failed(self, request) -> None:
        born = self._born.pop(request, self.generation)
        self.in_flight.discard(request)
        self.last_activity = time.monotonic()
        if born < self.generation and "ERR_ABORTED" in (request.failure or ""):
            return  # cut off by our own next navigation
        self.failed_requests.append(f"{request.url} ({request.failure})")

    def _on_response(self, response) -> None:
        if response.status >= 400:
            self.bad_responses.append(f"{response.status} {response.url}")

    def clear(self) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).clear()

    def problems(self) -> list[str]:
        labels = {"console_errors": "console error", "page_errors": "uncaught exception",
                  "failed_requests": "request failed", "bad_responses": "HTTP error",
                  "foreign_requests": "request to another host"}
        return [f"{labels[name]}: {item}" for name in labels for item in getattr(self, name)]


def visit_all(pages_and_logs: list, urls: list[str], check=None, quiet: float = 0.25,
              timeout: float = 30.0, ready: str | None = None) -> dict[str, list[str]]:
    """Load every URL, several at a time, each until it has loaded and fetched nothing for `quiet` seconds.

    Material's bundle and the search worker fetch after the load event (index, lunr languages, sitemaps),
    so `load` alone would miss their failures; Playwright's networkidle waits 0.5 s per page, this less.
    `ready`, if given, is a JavaScript predicate that must also hold: work that is silent for a while and
    then fetches again (the search worker building its index) is waited for, not cut off by the next URL.
    `check(page)`, if given, returns more problems for a page once it has settled.
    Returns {url: problems} for every URL, in the order given.
    """
    todo = list(urls)
    results: dict[str, list[str]] = {}
    slots: list[list] = [[page, log, None, 0.0] for page, log in pages_and_logs]  # page, log, url, started
    pump = slots[0][0]
    while todo or any(slot[2] for slot in slots):
        for slot in slots:
            page, log, url, started = slot
            if url is not None:
                waited = time.monotonic() - started
                settled = log.quiet_for() >= quiet and (ready is None or page.evaluate(ready))
                if settled or waited > timeout:
                    problems = log.problems() + (list(check(page)) if check else [])
                    if waited > timeout:
                        stuck = (", ".join(sorted(r.url for r in log.in_flight))
                                 or ("the load event" if not log.loaded else f"the page to be ready ({ready})"))
                        problems.append(f"still waiting after {timeout:.0f} s for {stuck}")
                    results[url] = problems
                    slot[2] = None
            if slot[2] is None and todo:
                url = todo.pop(0)
                log.navigating()
                log.clear()
                page.goto(url, wait_until="commit")
                slot[2], slot[3] = url, time.monotonic()
        pump.wait_for_timeout(30)  # lets Playwright deliver the events of every page
    return {url: results[url] for url in urls}


# --- colours ----------------------------------------------------------------------------------------------

_NUM = r"\s*([-+0-9.eE]+%?)\s*"


def parse_color(value: str) -> tuple[float, float, float, float]:
    """A computed CSS colour as (r, g, b, a), channels 0-255 and alpha 0-1."""
    value = value.strip()
    if value == "transparent":
        return (0.0, 0.0, 0.0, 0.0)
    match = re.fullmatch(r"rgba?\((.*)\)", value)
    if match:
        parts = [p for p in re.split(r"[\s,/]+", match.group(1).strip()) if p]
        rgb = [float(p[:-1]) * 2.55 if p.endswith("%") else float(p) for p in parts[:3]]
        alpha = _alpha(parts[3]) if len(parts) > 3 else 1.0
        return (*rgb, alpha)
    match = re.fullmatch(r"color\(srgb(.*)\)", value)
    if match:
        parts = [p for p in re.split(r"[\s/]+", match.group(1).strip()) if p]
        rgb = [float(p) * 255 for p in parts[:3]]
        alpha = _alpha(parts[3]) if len(parts) > 3 else 1.0
        return (*rgb, alpha)
    raise ValueError(f"unsupported computed colour {value!r}")


def _alpha(text: str) -> float:
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def over(top: tuple, bottom: tuple) -> tuple[float, float, float, float]:
    """Source-over compositing of `top` onto `bottom`."""
    ta, ba = top[3], bottom[3]
    alpha = ta + ba * (1 - ta)
    if alpha == 0:
        return (0.0, 0.0, 0.0, 0.0)
    rgb = [(top[i] * ta + bottom[i] * ba * (1 - ta)) / alpha for i in range(3)]
    return (*rgb, alpha)


def luminance(color: tuple) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in color[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: tuple, bg: tuple) -> float:
    """WCAG 2 contrast ratio of two opaque colours."""
    lighter, darker = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def effective_contrast(text_color: str, backgrounds: list[str]) -> tuple[float, tuple, tuple]:
    """Contrast of a text colour over the stack of background colours from the element up to <html>.

    Backgrounds are composited from the canvas (white) upwards; the text colour, which may be translucent,
    is composited over the result.
    """
    bg = (255.0, 255.0, 255.0, 1.0)
    for value in reversed(backgrounds):
        bg = over(parse_color(value), bg)
    fg = over(parse_color(text_color), bg)
    return contrast(fg, bg), fg, bg


# Text colour of an element, and the background colours of it and its ancestors (innermost first).
COLORS_JS = """
(el) => {
  const backgrounds = [];
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    backgrounds.push(getComputedStyle(node).backgroundColor);
  }
  const style = getComputedStyle(el);
  return {color: style.color, backgrounds, text: el.textContent.slice(0, 60)};
}
"""


def hex_color(color: tuple) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in color[:3])


# --- a search index cut to one page ----------------------------------------------------------------------------

def small_indexes(site: Path) -> dict[str, bytes]:
    """Each language's search index (by its path under the site) with its configuration (the languages, the
    separator, the words of Chinese and their expansions) and its first page only: a page's search worker builds
    the whole index, a third of a core-second on every page load, which a test that searches nothing pays for."""
    found = {}
    for index in sorted(site.glob("**/search/search_index.json")):
        whole = json.loads(index.read_text(encoding="utf-8"))
        found[index.relative_to(site).as_posix()] = json.dumps({**whole, "docs": whole["docs"][:1]}).encode()
    return found


# The jump to an anchor made in the page, as a reader's click on a link to it does. Asked of Playwright instead (page.goto
# to the anchor) after a resize on a loaded machine, it was at times not scrolled at all: 5 of 12 tries beside six
# busy loops, and CI failed on one (the changes page's link to cuda/memory #cell-27 at 390 px).
JUMP_JS = """(id) => {
    location.hash = ""
    if (scrollY !== 0) throw new Error(`not at the top before the jump: ${scrollY}`)
    location.hash = id
}"""


def jump_from_the_top(page, anchor: str) -> None:
    """Scroll the loaded page to its top, then follow a link to #anchor in it, as a reader arriving there."""
    page.evaluate(JUMP_JS, anchor.removeprefix("#"))


def serve_small_indexes(context, server, indexes: dict[str, bytes]) -> None:
    """The pages of this browser context get small_indexes() for their language's index at its address; a request
    anywhere else goes to the server, which answers 404 (a page that looks for its index in the wrong place)."""
    def answer(route) -> None:
        url = route.request.url.split("?")[0]
        rel = url[len(server.base):] if url.startswith(server.base) else None
        if rel in indexes:
            route.fulfill(status=200, content_type="application/json", body=indexes[rel])
        else:
            route.continue_()

    context.route("**/search/search_index.json", answer)
