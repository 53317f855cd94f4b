"""The MkDocs adapter reuses a page's conversion and search entries only while everything they are made from
is unchanged (torchnotes/generators/mkdocs/kept_html.py, kept_search.py), and a site built with them is the site built
without them."""

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import build, fixture_copy

PAGES = 6  # the fixture's three pages in two languages
SLOW_FIXTURES = {"primed"}  # tests/slow.py: the fixture site built twice, then once or twice more by each test


@pytest.fixture(scope="module")
def primed(tmp_path_factory):
    """The fixture site built twice: its pages executed, and the second build's conversions kept."""
    tmp_path = tmp_path_factory.mktemp("primed")
    src = fixture_copy(tmp_path)
    for site in ("site1", "site2"):  # the report pages change once, from "run" to "cached"
        done = build(src, tmp_path / site)
        assert done.returncode == 0, done.stderr
    return src


@pytest.fixture
def src(primed, tmp_path):
    """A copy of the primed site (its caches included) that a test may edit."""
    copy = tmp_path / "site-src"
    shutil.copytree(primed, copy)
    return copy


def reused(log: str) -> tuple[int, int, int, int]:
    """(conversions reused, pages converted, search entries reused, pages indexed), as the build logs them."""
    html = re.search(r"reused (\d+) of (\d+) page conversions", log)
    search = re.search(r"reused (\d+) of (\d+) pages' search entries", log)
    assert html and search, log
    return tuple(map(int, html.groups() + search.groups()))


KEPT = ("mkdocs", "search", "jinja")  # the folders under .cache/torchnotes/ that hold them


def files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def search_text(site: Path) -> str:
    return json.dumps(json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8")),
                      ensure_ascii=False)


def test_no_change_reuses_every_page_and_builds_the_same_site(src, tmp_path):
    again = build(src, tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert reused(again.stderr) == (PAGES, PAGES, PAGES, PAGES)
    for folder in KEPT:
        shutil.rmtree(src / ".cache" / "torchnotes" / folder)
    scratch = build(src, tmp_path / "scratch")
    assert scratch.returncode == 0, scratch.stderr
    assert reused(scratch.stderr) == (0, PAGES, 0, PAGES)
    assert files(tmp_path / "again") == files(tmp_path / "scratch")


def kept_files(src: Path) -> dict[str, bytes]:
    return {f"{folder}/{p.name}": p.read_bytes() for folder in KEPT[:2]
            for p in sorted((src / ".cache" / "torchnotes" / folder).rglob("*.json"))}


def made_ahead(log: str) -> tuple[int, int]:
    """(conversions, search entries) the build's fork made (torchnotes/generators/mkdocs/ahead.py)."""
    found = [re.search(rf"reused \d+ of \d+ {what}(?:; (\d+) made ahead by the build's fork)?", log)
             for what in ("page conversions", "pages' search entries")]
    assert all(found), log
    return tuple(int(m.group(1) or 0) for m in found)


def test_a_build_from_scratch_shares_its_pages_with_a_fork_and_makes_the_same_site(src, tmp_path):
    """Kept nothing, `mkdocs build` forks in each language: the fork converts and indexes pages from the last one
    back while the build goes forwards. The site, and what is kept of it, are those of a build without the fork."""
    for folder in KEPT:
        shutil.rmtree(src / ".cache" / "torchnotes" / folder)
    forked = build(src, tmp_path / "forked")
    assert forked.returncode == 0, forked.stderr
    conversions, entries = made_ahead(forked.stderr)
    # Each language's fork begins at its last page at once; this process has two to convert before it gets there.
    assert conversions >= 1 and entries >= 1, forked.stderr[-3000:]
    assert reused(forked.stderr) == (0, PAGES, 0, PAGES)
    assert "made ahead stopped" not in forked.stderr
    with_fork = kept_files(src)
    for folder in KEPT:
        shutil.rmtree(src / ".cache" / "torchnotes" / folder)
    alone = build(src, tmp_path / "alone", env={"TORCHNOTES_AHEAD": "0"})
    assert alone.returncode == 0, alone.stderr
    assert made_ahead(alone.stderr) == (0, 0)
    assert files(tmp_path / "forked") == files(tmp_path / "alone")
    assert with_fork == kept_files(src)
    # A build keeping its pages forks nothing: every page is reused as before.
    again = build(src, tmp_path / "again")
    assert made_ahead(again.stderr) == (0, 0) and reused(again.stderr) == (PAGES, PAGES, PAGES, PAGES)


def test_prose_edit_converts_and_indexes_that_page_only(src, tmp_path):
    page = src / "docs" / "en" / "demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Some prose about gradients.",
                                                             "Some prose about Jacobians."), encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert reused(done.stderr) == (PAGES - 1, PAGES, PAGES - 1, PAGES)
    assert "Some prose about Jacobians." in (tmp_path / "site" / "demo" / "index.html").read_text(encoding="utf-8")
    assert "Jacobians" in search_text(tmp_path / "site") and "gradients" not in search_text(tmp_path / "site")


def test_markdown_options_convert_every_page_again(src, tmp_path):
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "  - admonition\n", "  - admonition\n  - toc:\n      permalink: true\n"), encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert reused(done.stderr)[0] == 0
    assert 'class="headerlink"' in (tmp_path / "site" / "demo" / "index.html").read_text(encoding="utf-8")


def test_a_page_that_includes_a_file_is_converted_again_when_the_file_changes(src, tmp_path):
    """pymdownx.snippets inserts the files a page names before the page's Markdown is keyed."""
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "  - admonition\n", "  - admonition\n  - pymdownx.snippets:\n      base_path: [snippets]\n"), encoding="utf-8")
    (src / "snippets").mkdir()
    (src / "snippets" / "note.md").write_text("Included, first version.\n", encoding="utf-8")
    for lang in ("en", "zh"):
        page = src / "docs" / lang / "index.md"
        page.write_text(page.read_text(encoding="utf-8") + '\n--8<-- "note.md"\n', encoding="utf-8")
    first = build(src, tmp_path / "first")
    assert first.returncode == 0, first.stderr
    again = build(src, tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert reused(again.stderr)[:2] == (PAGES, PAGES)
    (src / "snippets" / "note.md").write_text("Included, second version.\n", encoding="utf-8")
    second = build(src, tmp_path / "second")
    assert second.returncode == 0, second.stderr
    assert reused(second.stderr)[:2] == (PAGES - 2, PAGES)  # all but the two index pages
    assert "Included, second version." in (tmp_path / "second" / "index.html").read_text(encoding="utf-8")


def test_a_new_page_converts_every_page_again(src, tmp_path):
    """Links resolve against the build's files: a new file may be what a link on another page points at."""
    for lang in ("en", "zh"):
        (src / "docs" / lang / "extra.md").write_text("---\ntitle: Extra\ndescription: x\n---\n\n# Extra\n\nMore.\n",
                                                      encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert reused(done.stderr)[:2] == (0, PAGES + 2)
    assert (tmp_path / "site" / "extra" / "index.html").exists()


def test_a_conversion_that_warns_is_never_kept_and_strict_still_stops(src, tmp_path):
    """A page with a broken link is converted, and warns, on every build: only a clean conversion is kept."""
    for lang in ("en", "zh"):
        page = src / "docs" / lang / "index.md"
        page.write_text(page.read_text(encoding="utf-8") + "\nSee [the missing page](missing.md).\n", encoding="utf-8")
    for attempt in ("first", "second"):
        done = build(src, tmp_path / attempt)
        assert done.returncode != 0, f"{attempt} build passed with a broken link"
        assert done.stderr.count("contains a link 'missing.md'") == 2, done.stderr
        assert re.search(r"Aborted with \d+ warnings in strict mode", done.stdout + done.stderr), done.stdout
        kept = [p.read_text(encoding="utf-8") for p in (src / ".cache" / "torchnotes" / "mkdocs").rglob("*.json")]
        assert kept and not any("the missing page" in text for text in kept)


def test_links_to_anchors_of_a_kept_page_still_check(primed, src, tmp_path):
    """A kept page hands its anchors to MkDocs: a new link to one of them is not reported as missing, a link to
    an anchor it lacks is."""
    built = primed.parent / "site2"  # the primed site's second build, whose conversions src keeps
    anchor = re.search(r'<h[1-6] id="([^"]+)"', (built / "demo" / "index.html").read_text(encoding="utf-8"))
    assert anchor, "the fixture's demo page has a section"
    anchor = anchor.group(1)
    page = src / "docs" / "en" / "index.md"
    body = page.read_text(encoding="utf-8")
    page.write_text(body + f"\n[Good](demo.md#{anchor}) and [bad](demo.md#no-such-anchor).\n", encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert reused(done.stderr)[0] == PAGES - 1  # demo.md is kept
    assert "does not contain an anchor '#no-such-anchor'" in done.stderr
    assert f"anchor '#{anchor}'" not in done.stderr


def test_a_damaged_kept_conversion_is_made_again(src, tmp_path):
    kept = sorted((src / ".cache" / "torchnotes" / "mkdocs" / "mkdocs").glob("*.json"))
    assert kept
    for path in kept:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if "html" in stored["body"]:
            stored["body"]["html"] = "<p>edited by hand</p>"
            path.write_text(json.dumps(stored), encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert reused(done.stderr)[0] == 0
    assert not any("edited by hand" in p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))


def test_only_what_the_last_build_used_is_kept(src, tmp_path):
    folders = [src / ".cache" / "torchnotes" / name / "mkdocs" for name in ("mkdocs", "search")]
    assert [len(list(f.glob("*.json"))) for f in folders] == [PAGES, PAGES]  # a conversion and entries per page
    page = src / "docs" / "zh" / "demo.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n又一段。\n", encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert [len(list(f.glob("*.json"))) for f in folders] == [PAGES, PAGES]


def test_a_page_indexed_again_is_cut_with_the_user_dictionary(src, tmp_path):
    """jieba's user dictionary is loaded only before the first page that is indexed again (kept_search.py): a
    build that reuses the other pages' entries cuts that page as a build from scratch does."""
    (src / "words.txt").write_text("交叉熵\n", encoding="utf-8")
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "  - torchnotes:\n", "  - torchnotes:\n      search_words: words.txt\n"), encoding="utf-8")
    first = build(src, tmp_path / "first")
    assert first.returncode == 0, first.stderr
    page = src / "docs" / "zh" / "demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("关于梯度", "关于交叉熵与梯度"), encoding="utf-8")
    second = build(src, tmp_path / "second")
    assert second.returncode == 0, second.stderr
    assert reused(second.stderr)[2:] == (PAGES - 1, PAGES)
    for folder in KEPT:
        shutil.rmtree(src / ".cache" / "torchnotes" / folder)
    scratch = build(src, tmp_path / "scratch")
    assert scratch.returncode == 0, scratch.stderr
    index = (tmp_path / "second" / "zh" / "search" / "search_index.json").read_bytes()
    assert index == (tmp_path / "scratch" / "zh" / "search" / "search_index.json").read_bytes()
    words = " ".join(text for _, text in json.loads(index)["config"]["torchnotes"]["words"]).split()
    assert "交叉熵" in words


def test_a_user_dictionary_edited_in_one_process_is_not_kept(tmp_path):
    """jieba only adds words: once a process has loaded two texts of the user dictionary (edited while mkdocs
    serve runs), what it cuts is not what a fresh build would cut, so new entries are used but not kept."""
    from types import SimpleNamespace

    from torchnotes.generators.mkdocs.kept_search import KeptSearch

    words = tmp_path / "words.txt"
    words.write_text("甲乙丙丁\n", encoding="utf-8")
    kept = KeptSearch(tmp_path / "kept", words)
    index = tmp_path / "search_index.json"
    for text, stored in (("甲乙丙丁\n", 1), ("戊己庚辛\n", 1)):
        words.write_text(text, encoding="utf-8")
        kept.begin()
        page = SimpleNamespace(content=f"<p>{text.strip()}</p>", url="p/", title="页", meta={}, toc=[])
        kept.before(page, {"lang": ["zh"]})
        assert "search" not in page.meta  # not kept yet: Material indexes it
        index.write_text(json.dumps({"config": {}, "docs": [{"location": "p/", "title": "页", "text": text}]}),
                         encoding="utf-8")
        kept.complete(index)
        assert len(list((tmp_path / "kept").glob("*.json"))) == stored
    assert kept.mixed


def test_a_page_excluded_from_search_never_loads_jieba(src, tmp_path):
    """A Chinese page its front matter leaves out of search (the report, the benchmarks) is not indexed, so it
    is no reason to load jieba and the site's user dictionary (about a second of every no-change build, before
    this was fixed)."""
    (src / "words.txt").write_text("学习率 5 n\n", encoding="utf-8")
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "      requirements: requirements.txt\n", "      requirements: requirements.txt\n      search_words: words.txt\n"),
        encoding="utf-8")
    # Other words: every Chinese page is cut again, and the dictionary loads (what the check below looks for).
    words = build(src, tmp_path / "words")
    assert words.returncode == 0, words.stderr
    assert "Building prefix dict" in words.stderr, words.stderr[-2000:]
    report = src / "docs" / "zh" / "report.md"
    report.write_text(report.read_text(encoding="utf-8").replace("title: Report\n", "title: 报告\nsearch:\n  exclude: true\n"),
                      encoding="utf-8")
    excluded = build(src, tmp_path / "excluded")
    assert excluded.returncode == 0, excluded.stderr
    assert "Building prefix dict" not in excluded.stderr, excluded.stderr[-2000:]
    assert reused(excluded.stderr)[2:] == (PAGES - 1, PAGES), excluded.stderr[-2000:]
