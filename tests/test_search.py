"""Site search in the real browser: recall on the queries of tests/search_queries.yml, index size, first-search time.

The site is the whole build (conftest's built_site: TORCHNOTES_SITE, or built once for the run), English at its
root and Chinese under zh/, each language with its own Material search index. Each query is typed into
Material's search box; the top 3 result pages are read from the results list. Run it alone:
    .venv/bin/python -m pytest tests/test_search.py -s   (TORCHNOTES_SITE=site reuses a build)
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from browser_support import SiteServer
from helpers import ROOT, SEPARATOR, TOP, VIEWPORT, SearchBox, site_search_options

QUERIES = yaml.safe_load((ROOT / "tests" / "search_queries.yml").read_text(encoding="utf-8"))
RECALL_TARGET = 0.95    # share of queries whose page is in the top 3 (issue 14)
# A reader on a slow link (10 Mbit/s, 40 ms) still gets the first results while waiting for them: far above the
# ~1 s measured here, so only a broken or bloated search fails it (speed targets are the benchmark's).
FIRST_SEARCH_BOUND = 10.0
# bytes per language: 350 KB (issue 15), then 560 KB once issue 47 gave every lesson page its pitfalls and
# exercises (about 45 % more prose, all of it meant to be found; 155 KB and 188 KB gzipped as served).
# test_first_search_on_a_slow_link holds the reader's wait for it.
INDEX_BUDGET = 560 * 1024

WORKER = ROOT / "docs" / "assets" / "javascripts" / "workers" / "search-zh.js"
browser_test = pytest.mark.browser



@pytest.fixture(scope="module")
def site_dir(built_site) -> Path:
    for lang_dir in (built_site, built_site / "zh"):
        assert (lang_dir / "search" / "search_index.json").exists(), f"{lang_dir} holds no search index"
    return built_site


@pytest.fixture(scope="module")
def server(site_dir):
    with SiteServer(site_dir) as running:
        yield running


def lang_root(lang: str) -> str:
    return "" if lang == "en" else f"{lang}/"


# What no result's excerpt may start with (issue 44 §5: "、 COO 稀疏张量"); "." only before a space (".data").
PUNCTUATION_FIRST = re.compile(r"^(?:[、。，．？！；：）」』》〉”’,;:!?)]|\.(?=\s))")
EXCERPTS = """articles => articles.map(article => {
    const copy = article.cloneNode(true)
    copy.querySelectorAll("h1, h2, nav, .md-search-result__icon").forEach(node => node.remove())
    return copy.textContent.replace(/\u200b/g, "").trim()
})"""


def run_queries(browser, server, lang: str) -> tuple[list[tuple[str, list[str], list[str]]], list[float], list[str]]:
    """(query, expected pages, top pages) for each query, the seconds each took, and the excerpts that start with
    punctuation."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        box = SearchBox(context.new_page(), server.url(lang_root(lang)))
        box.open()
        outcomes, times, punctuated = [], [], []
        for item in QUERIES[lang]:
            if "page" not in item:
                continue  # only a page that must not be found (test_internal_pages_are_not_found)
            expected = item["page"] if isinstance(item["page"], list) else [item["page"]]
            found, elapsed = box.search(str(item["q"]))
            outcomes.append((str(item["q"]), expected, found[:TOP]))
            times.append(elapsed)
            excerpts = box.page.eval_on_selector_all(".md-search-result__article", EXCERPTS)
            punctuated += [f"{item['q']!r}: {text[:30]!r}" for text in excerpts if PUNCTUATION_FIRST.match(text)]
        assert not box.errors, f"the page logged errors while searching: {box.errors}"
        return outcomes, times, punctuated
    finally:
        context.close()


# A reader's connection for the throttled measurement: 10 Mbit/s down, 40 ms round trip (Chrome DevTools).
THROTTLED = {"offline": False, "latency": 40, "downloadThroughput": 10e6 / 8, "uploadThroughput": 5e6 / 8}


def first_search_seconds(browser, server, lang: str, query: str, network: dict | None = None) -> tuple[float, float]:
    """(seconds from typing to results on a fresh page with an empty cache, seconds for the next query).

    The box is typed into as soon as the page is parsed, so the first search waits for the index to arrive
    and for the worker to build it, as a reader's first search does.
    """
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        if network:
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", network)
        box = SearchBox(page, server.url(lang_root(lang)))
        box.open()
        pages, first = box.search(query, first=True)
        assert pages, f"{query!r} found nothing on the {lang} site"
        _, second = box.search(query + " ")
        return first, second
    finally:
        context.close()



@pytest.mark.parametrize("lang", ["zh", "en"])
@browser_test
def test_right_page_in_top_3(browser, server, lang):
    outcomes, times, punctuated = run_queries(browser, server, lang)
    assert not punctuated, f"{lang}: excerpts that start with punctuation: {punctuated}"
    misses = [(q, expected, found) for q, expected, found in outcomes if not set(expected) & set(found)]
    hits = len(outcomes) - len(misses)
    print(f"\n{lang}: {hits}/{len(outcomes)} queries find their page in the top {TOP}; "
          f"median {sorted(times)[len(times) // 2] * 1000:.0f} ms per query")
    for q, expected, found in misses:
        print(f"  miss {q!r}: want {expected}, got {found}")
    assert hits >= RECALL_TARGET * len(outcomes), (
        f"{lang}: only {hits}/{len(outcomes)} queries have their page in the top {TOP}: "
        + "; ".join(f"{q!r} wants {e[0]}, got {f}" for q, e, f in misses))


@pytest.mark.parametrize("lang", ["zh", "en"])
@browser_test
def test_strict_queries_and_internal_pages(browser, server, lang):
    """Issue 37: the queries marked strict each find their page in the top 3 (not only towards the recall target),
    and the build's own pages (the report, the benchmarks: `search: {exclude: true}`) are in no result list."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        box = SearchBox(context.new_page(), server.url(lang_root(lang)))
        box.open()
        problems, ranks = [], []
        for item in QUERIES[lang]:
            if not (item.get("strict") or item.get("absent")):
                continue
            found, _ = box.search(str(item["q"]))
            expected = item.get("page", [])
            expected = expected if isinstance(expected, list) else [expected]
            rank = next((i + 1 for i, rel in enumerate(found) if rel in expected), None)
            ranks.append(f"{item['q']!r}: {expected[0] if expected else '-'} at {rank}")
            if item.get("strict") and not (rank and rank <= TOP):
                problems.append(f"{item['q']!r} wants {expected} in the top {TOP}, got {found[:TOP]}")
            leaked = [rel for rel in found if rel in item.get("absent", [])]
            if leaked:
                problems.append(f"{item['q']!r} lists the internal page(s) {leaked}: {found}")
        assert not box.errors, f"the page logged errors while searching: {box.errors}"
    finally:
        context.close()
    print(f"\n{lang}: " + "; ".join(ranks))
    assert ranks, f"no strict or absent queries for {lang} in tests/search_queries.yml"
    assert not problems, "\n".join(problems)


def test_internal_pages_are_not_in_the_index(site_dir):
    """The report and the benchmarks carry `search: {exclude: true}`: neither language's index holds them, while
    the versions page, beside them in the nav, stays searchable."""
    for lang in ("en", "zh"):
        index = json.loads((site_dir / lang_root(lang) / "search" / "search_index.json").read_text(encoding="utf-8"))
        pages = {doc[0] for doc in index["docs"]}
        assert "versions/" in pages and "tensors/views/" in pages, f"{lang}: {sorted(pages)}"
        assert not pages & {"report/", "benchmarks/"}, f"{lang}: the index holds {sorted(pages & {'report/', 'benchmarks/'})}"


@browser_test
def test_search_stays_in_current_language(browser, server):
    """English API names on the zh site find zh pages; a mixed query on the en site is answered in English."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        zh = SearchBox(context.new_page(), server.url("zh/"))
        zh.open()
        found, _ = zh.search("DataLoader")
        assert "data/sampling-loading/" in found[:TOP], f"zh site: 'DataLoader' gave {found}"
        en = SearchBox(context.new_page(), server.url(""))
        en.open()
        found, _ = en.search("DataLoader 采样器")
        assert "data/sampling-loading/" in found[:TOP], f"en site: 'DataLoader 采样器' gave {found}"
        assert not zh.errors and not en.errors, zh.errors + en.errors
    finally:
        context.close()


@browser_test
def test_first_search_on_a_slow_link(browser, server, site_dir, request):
    """Typing to results on a fresh page (index fetched and built on the way) stays within a reader's patience;
    the figures go to pytest's cache folder (.pytest_cache/d/search-latency.json), not the repository."""
    record = {}
    for lang, query in (("en", "gradient accumulation"), ("zh", "梯度累加")):
        index = site_dir / lang_root(lang) / "search" / "search_index.json"
        record[lang] = {"query": query, "index_bytes": index.stat().st_size}
        for name, network in (("local", None), ("10 Mbit/s, 40 ms", THROTTLED)):
            first, next_query = first_search_seconds(browser, server, lang, query, network)
            record[lang][name] = {"first_search_ms": round(first * 1000), "next_query_ms": round(next_query * 1000)}
            print(f"\n{lang} ({name}): first search {first * 1000:.0f} ms, next query {next_query * 1000:.0f} ms")
            assert first < FIRST_SEARCH_BOUND, f"{lang} ({name}): the first search took {first:.1f} s"
    folder = request.config.cache.mkdir("search-latency")
    (folder / "search-latency.json").write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def test_each_index_within_budget(site_dir):
    """Issue 15: what a reader downloads on the first search. Code, outputs and the build's notices stay out
    of it, and the packing (torchnotes/publish/search_index.py) drops what Material repeats."""
    sizes = {lang: (site_dir / lang_root(lang) / "search" / "search_index.json").stat().st_size for lang in ("en", "zh")}
    assert all(size <= INDEX_BUDGET for size in sizes.values()), f"{sizes} (budget {INDEX_BUDGET} bytes each)"


# --- without a browser: the options and the query cut ----------------------------------------------------

def test_zh_user_dictionary_keeps_site_terms_whole():
    """jieba's own dictionary splits these terms; with the site's user dictionary (the plugin's search_words, loaded with jieba's load_userdict)
    each is one word in the index, so a query for it matches one token instead of a pair of common ones."""
    import jieba

    options = site_search_options("zh")
    user_dict = ROOT / options["jieba_dict_user"]
    assert user_dict.is_file(), f"{options['jieba_dict_user']} is missing"
    terms = ["学习率", "交叉熵", "二分类", "批采样器", "去重", "优化器", "变长", "雅可比矩阵"]
    plain = jieba.Tokenizer()
    assert [t for t in terms if list(plain.cut(t)) != [t]] == terms, "jieba already knows these: pick others"
    with_site = jieba.Tokenizer()
    with user_dict.open("rb") as words:  # jieba leaves a file it opened itself unclosed
        with_site.load_userdict(words)
    assert {t: list(with_site.cut(t)) for t in terms} == {t: [t] for t in terms}


def test_separator_splits_api_names_and_chinese_punctuation():
    pattern = re.compile(SEPARATOR)
    split = [t for t in pattern.split("torch.utils.data.DataLoader(batch_size=4)：采样器\u200b家族，见 nn.Module") if t]
    assert split == ["torch", "utils", "data", "Data", "Loader", "batch", "size", "4", "采样器", "家族", "见",
                     "nn", "Module"]
    assert pattern.split("1.5") == ["1.5"]  # decimals stay whole
    assert site_search_options("en")["separator"] == site_search_options("zh")["separator"]


# Runs the worker wrapper in Node with a stand-in for Material's worker, which records what it receives.
NODE_HARNESS = r"""
const path = process.argv[2]
const listeners = []
const received = []
globalThis.self = globalThis
self.location = { search: "?material=material.js" }
self.addEventListener = (type, fn) => listeners.push(fn)
self.dispatchEvent = ev => {
  let stopped = false
  ev.stopImmediatePropagation = () => { stopped = true }
  for (const fn of listeners) { fn(ev); if (stopped) break }
}
globalThis.importScripts = () => self.addEventListener("message", ev => received.push(ev.data))
require(path)
const send = data => self.dispatchEvent({ data })
send({ type: 0, data: { config: { separator: "[\\s\\u200b]+" }, docs: [
  { location: "a/", title: "梯度\u200b会\u200b累加", text: "<p>\u200b变长\u200b序列\u200b与\u200b DataLoader \u200b采样器\u200b</p>" },
  { location: "b/", title: "非\u200b叶子张量", text: "<p>\u200b非叶子\u200b张量\u200b张量\u200b分布式\u200b分布\u200b</p>" },
] } })
const queries = ["梯度累加", "变长序列", "DataLoader 采样器", "tensor", "梯度下降", "非叶子张量", "分布式"]
for (const q of queries) send({ type: 2, data: q })
console.log(JSON.stringify({ received, cut: self.torchnotesSearch.cut("梯度累加器") }))
"""


def test_worker_cuts_chinese_queries_into_index_words(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the search worker's cut (apt-get install nodejs)", pytrace=False)
    harness = tmp_path / "harness.js"
    harness.write_text(NODE_HARNESS, encoding="utf-8")
    run = subprocess.run([node, str(harness), str(WORKER)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    setup, *queries = out["received"]
    assert setup["type"] == 0  # Material still gets the index
    assert [q["data"] for q in queries] == [
        "梯\\度 累\\加",             # words of the index, escaped so that Material's own cut keeps them whole
        "变\\长 序\\列",
        "DataLoader 采\\样\\器",     # the English part untouched
        "tensor",
        "梯\\度 下^1 降^1",          # unknown words fall back to single characters, matched whole: no "下*"
        "非\\叶\\子 张\\量 叶\\子\\张\\量",  # the likelier cut, then a word jieba may have cut instead
        "分\\布\\式",              # not 分布 as well: a word inside a piece would drown it
    ]
    assert out["cut"] == ["梯度", "累加", "器"]
