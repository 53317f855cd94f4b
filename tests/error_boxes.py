"""Where the message of each expected error lands on the page, as a reader sees it (issue 37).

Every error the reader can see (a traceback box not inside a closed fold) is measured at a given width: the
bounding box of its message line (`Name: message`, the summary line if the page has one, else the traceback's
last line) against everything that clips it (boxes that scroll or hide their overflow, and the viewport's
width). A message is "cut at the bottom" or "cut at the right" when part of it lies outside what clips it, with
the boxes scrolled to where they start, as the reader first sees them.

Run it on a built site to print the figures:  .venv/bin/python tests/error_boxes.py site
"""

from __future__ import annotations

import sys
from pathlib import Path

from browser_support import Recorder, SiteServer, site_pages, visit_all

WIDTHS = {1280: 900, 390: 844}  # a laptop and a phone, the heights the reader used

# An error is the summary line the build writes (.nb-error-message, after its label) or, for a build without
# one, a visible traceback box and its last line of text.
MEASURE_JS = """
() => {
  const visible = (el) => el.getClientRects().length > 0 && !el.closest('details:not([open])');
  const units = [];
  for (const el of document.querySelectorAll('.nb-error-message')) {
    if (!visible(el)) continue;
    const r = document.createRange();
    r.selectNodeContents(el);
    const label = el.querySelector('.nb-error-label');
    if (label) r.setStartAfter(label);
    units.push({box: el, range: r, text: r.toString()});
  }
  for (const pre of document.querySelectorAll('pre.nb-error')) {
    // The traceback under a summary line is not where the message is read.
    if (!visible(pre) || pre.matches('.nb-error-message, .nb-error-message ~ pre')) continue;
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    const nodes = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
    // The last non-empty line: from the last newline before the final text to the end.
    let end = null, start = null;
    for (let i = nodes.length - 1; i >= 0 && start === null; i--) {
      const t = nodes[i].data;
      let j = t.length;
      if (end === null) {
        const trimmed = t.replace(/\\s+$/, '');
        if (!trimmed.length) continue;
        end = [nodes[i], trimmed.length];
        j = trimmed.length;
      }
      const nl = t.lastIndexOf('\\n', j - 1);
      if (nl >= 0) start = [nodes[i], nl + 1];
      else if (i === 0) start = [nodes[0], 0];
    }
    if (!end) continue;
    const r = document.createRange();
    r.setStart(start[0], start[1]);
    r.setEnd(end[0], end[1]);
    units.push({box: pre, range: r, text: r.toString()});
  }
  const out = [];
  const vw = document.documentElement.clientWidth;
  for (const {box, range, text} of units) {
    const m = range.getBoundingClientRect();
    let clip = {left: 0, right: vw, top: -Infinity, bottom: Infinity};
    let boxClip = {right: Infinity, bottom: Infinity};
    for (let a = box; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      const c = {left: b.left + a.clientLeft, top: b.top + a.clientTop};
      c.right = c.left + a.clientWidth; c.bottom = c.top + a.clientHeight;
      boxClip.right = Math.min(boxClip.right, c.right);
      boxClip.bottom = Math.min(boxClip.bottom, c.bottom);
    }
    out.push({
      text: text.trim().slice(0, 80),
      cutBottom: m.bottom > boxClip.bottom + 1,
      cutRightBox: m.right > boxClip.right + 1,
      cutRightViewport: m.right > clip.right + 1,
      // The box itself scrolls sideways (what a reader notices before finding the message).
      boxScrollsSideways: box.scrollWidth > box.clientWidth + 1,
    });
  }
  // An output wider than its box scrolls sideways; it must say so (extra.css: a shadow on the hidden side).
  const hidden = [];
  for (const el of document.querySelectorAll('.nb-output pre, .nb-output .nb-html')) {
    if (!visible(el) || el.scrollWidth <= el.clientWidth + 1) continue;
    const s = getComputedStyle(el);
    const layers = (s.backgroundImage.match(/gradient[(]/g) || []).length;
    const cue = s.overflowX !== 'hidden' && layers >= 4 && /local/.test(s.backgroundAttachment);
    if (!cue) hidden.push(el.textContent.trim().slice(0, 60));
  }
  return {errors: out, pageScrollsSideways: document.documentElement.scrollWidth > vw + 1, hiddenWithoutCue: hidden};
}
"""


def _cut_right(e: dict) -> bool:
    return e["cutRightBox"] or e["cutRightViewport"]


def measure(browser, server: SiteServer, pages: list[str], width: int, pool: int = 3, also=None) -> dict[str, dict]:
    """{rel: {"errors": [...], "pageScrollsSideways": bool}} for every page at one width, in one context; `also(page)`,
    if given, is run on each page once measured and its result stored under "also"."""
    context = browser.new_context(viewport={"width": width, "height": WIDTHS.get(width, 900)}, color_scheme="light")
    context.set_default_timeout(20_000)
    found: dict[str, dict] = {}

    def check(page) -> list[str]:
        page.evaluate("() => document.fonts.ready")
        found[page.url] = page.evaluate(MEASURE_JS)
        if also is not None:
            found[page.url]["also"] = also(page)
        return []

    # The search worker builds its index on every page load: not what is measured here, and most of the CPU.
    context.route("**/search/search_index.json", lambda route: route.abort())
    try:
        slots = []
        for _ in range(pool):
            page = context.new_page()
            slots.append((page, Recorder().attach(page)))
        visit_all(slots, [server.url(rel) for rel in pages], check=check, quiet=0.1)
    finally:
        context.close()
    return {rel: found[server.url(rel)] for rel in pages}


def summary(measured: dict[str, dict]) -> dict:
    errors = [(rel, e) for rel, m in measured.items() for e in m["errors"]]
    return {"boxes": len(errors),
            "cut_bottom": sum(e["cutBottom"] for _, e in errors),
            "cut_right": sum(_cut_right(e) for _, e in errors),
            "boxes_scrolling_sideways": sum(e["boxScrollsSideways"] for _, e in errors),
            "cut_bottom_pages": sorted({rel for rel, e in errors if e["cutBottom"]}),
            "pages_scrolling_sideways": sorted(rel for rel, m in measured.items() if m["pageScrollsSideways"])}


def problems(measured: dict[str, dict], width: int) -> list[str]:
    found = []
    for rel, m in measured.items():
        for e in m["errors"]:
            where = [w for w, bad in (("cut at the bottom", e["cutBottom"]), ("cut at the right", _cut_right(e))) if bad]
            if where:
                found.append(f"/{rel} at {width} px: {' and '.join(where)}: {e['text']!r}")
        if m["pageScrollsSideways"]:
            found.append(f"/{rel} at {width} px: the page scrolls sideways")
        found += [f"/{rel} at {width} px: an output hides content with no scroll cue: {text!r}"
                  for text in m.get("hiddenWithoutCue", [])]
    return found


def main(site: str) -> None:
    import time

    import playwright.sync_api as playwright_sync
    from browser_support import CHROMIUM, CHROMIUM_ARGS, HEADLESS_SHELL, find_chromium

    pages = site_pages(Path(site))
    with playwright_sync.sync_playwright() as p, SiteServer(Path(site)) as server:
        executable = find_chromium(p.chromium.executable_path)
        if executable is None:
            raise SystemExit(f"no Chromium at {HEADLESS_SHELL}, {CHROMIUM} nor at {p.chromium.executable_path}: "
                             "bash scripts/setup.sh --browser installs one")
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        for width in WIDTHS:
            began = time.monotonic()
            measured = measure(browser, server, pages, width)
            s = summary(measured)
            print(f"{width} px: {len(pages)} pages, {s['boxes']} error boxes, {s['cut_bottom']} cut at the bottom, "
                  f"{s['cut_right']} cut at the right, {s['boxes_scrolling_sideways']} scroll sideways, {len(s['pages_scrolling_sideways'])} pages scroll sideways "
                  f"({time.monotonic() - began:.0f} s)")
            print("  cut at the bottom on:", ", ".join(s["cut_bottom_pages"]) or "none")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "site")
