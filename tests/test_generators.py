"""Both generators build the same published tree: the same outputs on every page, no broken link or anchor,
and a language menu that keeps the page.

The MkDocs site comes from TORCHNOTES_SITE (scripts/test.sh builds it); the Zensical site from the same cache, so
the outputs cannot have been executed twice: the one the documented `bash scripts/build_zensical.sh` builds in its
clone of this checkout when that command runs in this session (documented_builds.py), else built here
(python -m torchnotes zensical).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html
import pytest
from browser_support import SiteServer, base_path
from helpers import ROOT


@dataclass
class PageParts:
    """What the comparison needs from one built page: output <pre> texts, element ids, link targets."""

    outputs: list[str]
    ids: set[str]
    links: list[str]


OUTPUT_PRE = "//pre[ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' nb-output ')]]"


def parse(path: Path) -> PageParts:
    # lxml, not html.parser: the two tests read each of the 160 pages of both builds twice (40 core-s of the run).
    tree = lxml.html.fromstring(path.read_text(encoding="utf-8"))
    return PageParts(outputs=["".join(pre.itertext()) for pre in tree.xpath(OUTPUT_PRE)],
                     ids={element.get("id") for element in tree.xpath("//*[@id]") if element.get("id")},
                     links=tree.xpath("//a/@href[string()] | //img/@src[string()]"))


def pages(site: Path) -> list[Path]:
    """Every built page, as a path relative to the site; search/ and assets/ hold none."""
    return sorted(p.relative_to(site) for p in site.rglob("*.html")
                  if not {"assets", "search"} & set(p.relative_to(site).parts))


@pytest.fixture(scope="module")
def mkdocs_site(built_site) -> Path:
    return built_site


@pytest.fixture(scope="module")
def zensical_site(mkdocs_site, documented_builds, request) -> Path:
    # The documented `bash scripts/build_zensical.sh` builds the same site from a clone of this checkout with its cache.
    documented = documented_builds.wait("bash scripts/build_zensical.sh", request.session)
    if documented is not None:
        assert "0 kernels" in documented["stdout"], f"the Zensical build executed pages:\n{documented['stdout'][-1500:]}"
        return Path(documented["clone"]) / "site-zensical"
    # Zensical refuses a site_dir outside the project: build/ is the repository's own git-ignored build folder.
    target = ROOT / "build" / "test-zensical"
    # After the MkDocs build the cache holds every page: this publishes without running a kernel.
    done = subprocess.run([sys.executable, "-m", "torchnotes", "zensical", "--site-dir", str(target)],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"the Zensical build failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert "0 kernels" in done.stdout, f"the Zensical build executed pages the MkDocs build had cached:\n{done.stdout[-1500:]}"
    return target


def test_every_page_has_the_same_outputs_in_both_builds(mkdocs_site, zensical_site):
    ours, theirs = pages(mkdocs_site), pages(zensical_site)
    missing = sorted(set(ours) - set(theirs))
    assert not missing, f"pages the Zensical build lacks: {missing}"
    compared = differing = 0
    problems = []
    for rel in ours:
        left, right = parse(mkdocs_site / rel).outputs, parse(zensical_site / rel).outputs
        compared += len(left)
        if left != right:
            differing += 1
            first = next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), min(len(left), len(right)))
            problems.append(f"{rel}: {len(left)} outputs under MkDocs, {len(right)} under Zensical; "
                            f"first difference at output {first + 1}:\n  mkdocs:   {left[first:first + 1]!r:.300}"
                            f"\n  zensical: {right[first:first + 1]!r:.300}")
    assert not problems, f"{differing} page(s) differ:\n" + "\n".join(problems[:5])
    # Both languages of the real site hold hundreds of outputs: an empty comparison would prove nothing.
    assert compared > 500, f"only {compared} outputs found: is div.nb-output still what the renderer writes?"


BUILT_APART = {("pdf",), ("offline",)}  # scripts/build_pdf.sh and build_offline.sh write these into the built site


def broken_links(site: Path) -> list[str]:
    """Internal links and images whose file or #anchor does not exist in the built site."""
    parsed: dict[Path, PageParts] = {}

    def parts(path: Path) -> PageParts:
        if path not in parsed:
            parsed[path] = parse(path)
        return parsed[path]

    prefix = base_path(site)  # absolute links (the 404 page's) start with the deployment path
    broken = []
    for rel in pages(site):
        for href in parts(site / rel).links:
            url = urlsplit(href)
            if url.scheme or url.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            if url.path.startswith("/"):
                if not url.path.startswith(prefix):
                    broken.append(f"{rel}: {href} (outside the site's path {prefix})")
                    continue
                target = site / unquote(url.path[len(prefix):])
            else:
                target = (site / rel).parent / unquote(url.path) if url.path else site / rel
            target = target.resolve()
            if target.is_relative_to(site.resolve()) and target.relative_to(site.resolve()).parts[:1] in BUILT_APART:
                continue  # the books and zips, made after the site; a preview without them says how to build them
            if target.is_dir():
                target = target / "index.html"
            if not target.is_relative_to(site.resolve()) or not target.exists():
                broken.append(f"{rel}: {href} (no file)")
            elif url.fragment and target.suffix == ".html" and unquote(url.fragment) not in parts(target).ids:
                broken.append(f"{rel}: {href} (no id {url.fragment!r} on {target.relative_to(site.resolve())})")
    return broken


@pytest.mark.slow  # the real site's links, in its MkDocs and its Zensical build
@pytest.mark.parametrize("build", ["mkdocs", "zensical"])
def test_no_broken_internal_link_or_anchor(build, request):
    site = request.getfixturevalue(f"{build}_site")
    assert len(pages(site)) > 70
    broken = broken_links(site)
    assert not broken, f"{len(broken)} broken link(s) in the {build} build:\n" + "\n".join(broken[:20])


def test_the_link_check_sees_a_broken_anchor(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "index.html").write_text('<p id="there">')
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">x</h2><a href="#here">ok</a><a href="#gone">x</a>'
                                              '<a href="../b/">no page</a><a href="https://example.org/">out</a>'
                                              '<a href="/c/#there">ok</a><a href="../c/#where">x</a><img src="gone.png">')
    assert broken_links(tmp_path) == ["a/index.html: #gone (no id 'gone' on a/index.html)",
                                      "a/index.html: ../b/ (no file)",
                                      "a/index.html: ../c/#where (no id 'where' on c/index.html)",
                                      "a/index.html: gone.png (no file)"]


@pytest.mark.browser
@pytest.mark.parametrize("start, lang, target", [
    ("tensors/gather-scatter/", "zh", "zh/tensors/gather-scatter/"),
    ("zh/data/datasets/", "en", "data/datasets/"),
    ("", "zh", "zh/"),
])
def test_zensical_language_menu_keeps_the_page(browser, zensical_site, start, lang, target):
    with SiteServer(zensical_site) as server:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(server.url(start), wait_until="load")
            link = page.locator(f'.md-header a.md-select__link[hreflang="{lang}"]')
            assert link.evaluate("a => a.href") == server.url(target)
        finally:
            context.close()
