"""The query expansion table (torchnotes/publish/search_expand.py) and how the search worker uses it.

The table is checked in Python against small indexes; the worker's split of mixed-script queries and its
expansion run in Node (docs/assets/javascripts/workers/search-zh.js with a stand-in for Material's worker that
records the query it receives).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, SEPARATOR, build, fixture_copy

from torchnotes.pages.glossary import read_glossary
from torchnotes.publish import search_index
from torchnotes.publish.search_expand import (
    Sources,
    SynonymFileError,
    SynonymNotHeld,
    expansion_table,
    glossary_pairs,
    read_synonyms,
)

WORKER = ROOT / "docs" / "assets" / "javascripts" / "workers" / "search-zh.js"
GLOSSARY = """# 贡献指南

## 术语表

| English | 使用 | 禁用 |
|---|---|---|
| in-place | 原地 | 就地、原位 |
| pinned (page-locked) memory | 锁页内存 | 固定内存、钉住内存 |
| batch size | 批大小 | 批量大小、batch 大小 |
| Hessian | 海森矩阵 | 黑塞 |
"""


def docs(*texts: str) -> list[dict]:
    """Index entries as Material writes them: Chinese cut by zero-width spaces, code in <code>."""
    return [{"location": f"p{i}/", "title": "", "text": f"<p>{text}</p>"} for i, text in enumerate(texts)]


@pytest.fixture
def glossary(tmp_path) -> tuple:
    path = tmp_path / "CONTRIBUTING.zh.md"
    path.write_text(GLOSSARY, encoding="utf-8")
    return tuple(read_glossary(path))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "synonyms.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_glossary_rows_become_pairs_both_ways(glossary):
    pairs = dict(glossary_pairs(glossary, "zh"))
    assert pairs["in-place"] == ("原地",) and pairs["就地"] == ("原地",) and pairs["原地"] == ("in-place",)
    assert pairs["pinned memory"] == ("锁页内存",)  # the note in (…) is not part of the term
    english_site = dict(glossary_pairs(glossary, "en"))
    assert english_site["固定内存"] == ("pinned memory",) and "pinned memory" not in english_site


def test_table_holds_only_what_the_index_holds(glossary):
    index = docs("原地\u200b操作 与 <code>add_</code>", "锁页\u200b内存 和 pinned memory", "批大小")
    table, unheld = expansion_table(index, SEPARATOR, "zh", Sources(glossary))
    rows = {row[0]: row[1:] for row in table}
    assert rows["inplace"] == ["原地"]               # in-place, in place, inplace: one key
    assert rows["就地"] == rows["原位"] == ["原地"]
    assert "原地" not in rows  # its counterpart "in-place": this index holds neither "in" nor "place"
    assert rows["pinnedmemory"] == ["锁页内存"] and rows["锁页内存"] == ["pinned memory"]
    assert rows["批量大小"] == ["批大小"]
    assert not [key for key in rows if re.search("[a-z]", key) and re.search("[\u4e00-\u9fff]", key)]  # batch 大小
    assert "hessian" not in rows and "黑塞" not in rows  # 海森矩阵 is on no page of this index: left out
    assert unheld == []
    english, _ = expansion_table(docs("pinned memory and in-place ops"), SEPARATOR, "en", Sources(glossary))
    assert {row[0]: row[1:] for row in english} == {"固定内存": ["pinned memory"], "钉住内存": ["pinned memory"],
                                                   "锁页内存": ["pinned memory"], "就地": ["in-place"],
                                                   "原位": ["in-place"], "原地": ["in-place"]}


def test_a_synonym_the_index_does_not_hold_is_reported(tmp_path):
    path = write(tmp_path, "# why\n显卡: [GPU, 图形处理器]\n\n# why\n不均衡: [不平衡]\n")
    sources = Sources(synonyms=tuple(read_synonyms(path)), synonyms_path=path)
    table, unheld = expansion_table(docs("一块 GPU", "类别不\u200b平衡"), SEPARATOR, "zh", sources)
    assert table == [["不均衡", "不平衡"], ["显卡", "GPU"]]
    assert [type(e) for e in unheld] == [SynonymNotHeld]
    assert unheld[0].line == 2 and "'显卡'" in unheld[0].message and "'图形处理器'" in unheld[0].message
    assert str(path) in unheld[0].message and "remove it" in unheld[0].message
    assert expansion_table(docs("GPU"), SEPARATOR, "en", sources) == ([], [])  # Chinese entries: Chinese site only


def test_english_synonyms_serve_both_sites(tmp_path):
    """Issue 37: an entry written wholly in English (multi-GPU) expands on the English site too; its words must be
    held there as well, and one the index lacks is reported for that language."""
    path = write(tmp_path, "# why\nmulti-GPU: [DistributedDataParallel, data parallelism]\n\n# why\n显卡: [GPU]\n")
    sources = Sources(synonyms=tuple(read_synonyms(path)), synonyms_path=path)
    table, unheld = expansion_table(docs("DistributedDataParallel and data parallelism on a GPU"), SEPARATOR, "en", sources)
    assert table == [["multigpu", "DistributedDataParallel", "data parallelism"]] and unheld == []
    table, unheld = expansion_table(docs("DistributedDataParallel on a GPU"), SEPARATOR, "en", sources)
    assert table == [["multigpu", "DistributedDataParallel"]]
    assert len(unheld) == 1 and "the en search index holds no 'data parallelism'" in unheld[0].message


@pytest.mark.parametrize(("text", "reason"), [
    ("显卡: GPU: x\n", "not valid YAML"),
    ("- 显卡\n", "a mapping"),
    ("显卡: []\n", "needs a list of words"),
    ("显卡: [GPU]\n显卡: [CUDA]\n", "listed twice"),
    ("cuda不可用: [is_available]\n", "mixes Chinese and English"),
])
def test_a_malformed_synonym_file_names_the_line(tmp_path, text, reason):
    with pytest.raises(SynonymFileError, match=reason) as raised:
        read_synonyms(write(tmp_path, text))
    assert str(tmp_path / "synonyms.yml") in raised.value.message


def test_each_of_the_sites_synonyms_says_why():
    """Each entry of the site's file sits under a comment (entries of one group share theirs)."""
    path = ROOT / "torchnotes" / "publish" / "search_synonyms_zh.yml"
    lines = path.read_text(encoding="utf-8").splitlines()
    synonyms = read_synonyms(path)
    assert len(synonyms) >= 20
    for synonym in synonyms:
        above = synonym.line - 2
        while above >= 0 and re.match(r"^[^#\s][^:]*:\s*\[", lines[above]):
            above -= 1  # another entry of the same group
        assert above >= 0 and lines[above].startswith("#"), f"{path.name}:{synonym.line}: '{synonym.key}' has no comment"


def test_packed_index_carries_the_table(tmp_path):
    site = tmp_path / "site"
    (site / "search").mkdir(parents=True)
    index = {"config": {"separator": SEPARATOR}, "docs": docs("一块 GPU") + [
        {"location": "zh/a/", "title": "显存", "text": "<p>一块 GPU</p>"}]}
    (site / "search" / "search_index.json").write_text(json.dumps(index), encoding="utf-8")
    path = write(tmp_path, "# why\n显卡: [GPU]\n多卡: [多块 GPU]\n")
    sizes, unheld = search_index.write_per_language(site, ["en", "zh"], Sources(synonyms=tuple(read_synonyms(path)),
                                                                               synonyms_path=path))
    zh = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert zh["config"]["torchnotes"]["expand"] == [["显卡", "GPU"]]
    assert [e.line for e in unheld] == [3]  # 多块 is on no zh page


def test_the_build_packs_the_synonyms_and_strict_stops_on_a_word_no_page_writes(tmp_path):
    """The plugin's `search_synonyms` option, end to end on the fixture site (whose zh page writes 梯度)."""
    src = fixture_copy(tmp_path)
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "      github_repo: example/fixture\n", "      github_repo: example/fixture\n      search_synonyms: words.yml\n"),
        encoding="utf-8")
    (src / "words.yml").write_text("# why\n斜率: [梯度]\n# why\n图形卡: [图形处理器]\n", encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode != 0
    assert "words.yml:4: '图形卡': the zh search index holds no '图形处理器'" in done.stderr, done.stderr[-3000:]
    (src / "words.yml").write_text("# why\n斜率: [梯度]\n", encoding="utf-8")
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    zh = json.loads((tmp_path / "site" / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert zh["config"]["torchnotes"]["expand"] == [["斜率", "梯度"]]


# Runs the worker wrapper in Node on a small packed index with a stand-in for Material's worker.
NODE_HARNESS = r"""
const listeners = [], received = []
globalThis.self = globalThis
self.location = { search: "?material=material.js" }
self.addEventListener = (type, fn) => listeners.push(fn)
self.dispatchEvent = ev => {
  let stopped = false
  ev.stopImmediatePropagation = () => { stopped = true }
  for (const fn of listeners) { fn(ev); if (stopped) break }
}
globalThis.MessageEvent = class { constructor(type, init) { this.data = init.data } }
globalThis.importScripts = () => self.addEventListener("message", ev => received.push(ev.data))
require(process.argv[2])
const send = data => self.dispatchEvent({ data })
const separator = "[\\s\\u200b\\-_,:;!?=\\[\\]()\"`/]+|\\.(?!\\d)|(?!\\b)(?=[A-Z][a-z])"
send({ type: 0, data: { config: { separator, torchnotes: { format: 1, words: [[3, "原地 操作 显存 报错 锁页内存 平衡"]],
  expand: [["inplace", "原地"], ["pinnedmemory", "锁页内存"], ["显卡", "GPU"], ["不均衡", "不平衡"], ["原地", "in-place"]] } },
  docs: [["a/", "", "", "原地操作 报错 in-place GPU 锁页内存 pinned memory 显存 不平衡"]] } })
const queries = JSON.parse(process.argv[3])
for (const q of queries) send({ type: 2, data: q })
console.log(JSON.stringify({ received: received.slice(1).map(m => m.data),
                             split: queries.map(q => self.torchnotesSearch.splitScripts(q)) }))
"""


def worker(queries: list[str], tmp_path: Path) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the search worker (apt-get install nodejs)", pytrace=False)
    harness = tmp_path / "harness.js"
    harness.write_text(NODE_HARNESS, encoding="utf-8")
    run = subprocess.run([node, str(harness), str(WORKER), json.dumps(queries, ensure_ascii=False)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_worker_splits_mixed_scripts(tmp_path):
    out = worker(["inplace报错", "cuda不可用", "1x1卷积", "GPU上计时", "显存 OOM", "+原地 -报错"], tmp_path)
    assert out["split"] == ["inplace 报错", "cuda 不可用", "1x1 卷积", "GPU 上计时", "显存 OOM", "+原地 -报错"]


def test_worker_expands_and_weighs_the_typed_words_first(tmp_path):
    out = worker(["inplace报错", "pinned memory", "显卡", "样本不均衡", "原地操作", "显存", '"原地 操作"'], tmp_path)
    assert out["received"] == [
        "inplace*^3 place*^3 报\\错*^3 原\\地^3",  # "inplace" is no word of the index: 原地 stands in for it, as
                                                   # heavy; and "place", what the index kept of "in-place"
        "pinned*^3 memory*^3 锁\\页\\内\\存^1", # the index holds both words: the counterpart weighs less
        "GPU^3",                                # 显, 卡 are dropped: alone they would match 显存
        "样^3 本^3 不^3 平\\衡^3",              # single characters and counterparts: whole words, not prefixes
        "原\\地*^3 操\\作*^3 in^1 place^1",      # 原地 is a word of the index: in-place weighs 1
        "显\\存",                                # nothing to expand: the query as before
        '"原\\地 操\\作"',                       # lunr's syntax: left as typed
    ]


def test_worker_searches_english_phrases_without_stop_words(tmp_path):
    """Issue 44 §5: "in" of "in-place error" matched every word starting with "in"; the spellings of a compound
    find the same pages; a plural is searched as its singular, which the trailing wildcard widens to both."""
    out = worker(["in-place error", "in place", "inplace", "the", "pinned memories", "how to save a model"], tmp_path)
    assert out["received"] == [
        "place*^3 error*^3 原\\地^1",   # no "in*"; 原地, the glossary's counterpart of in-place
        "place*^3 原\\地^1",            # "in place" as "in-place"
        "inplace*^3 place*^3 原\\地^3",  # and "inplace" as what the index kept of "in-place"
        "the",                          # a query of stop words alone is searched as typed
        "pinned memory",                # the singular, which the trailing wildcard widens to both
        "save model",
    ]


def test_worker_drops_punctuation_at_the_start_of_an_excerpt(tmp_path):
    """Material starts an excerpt at the first piece between tags that holds a match: after an inline <code> that
    was the punctuation following it ("、 COO 稀疏张量")."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the search worker (apt-get install nodejs)", pytrace=False)
    harness = tmp_path / "excerpt.js"
    harness.write_text(NODE_HARNESS.split("const queries")[0] + r"""
const texts = JSON.parse(process.argv[3])
const posted = []
console.log(JSON.stringify(texts.map(t => self.torchnotesSearch.excerpt(t))))
""", encoding="utf-8")
    texts = ["、 COO <mark>稀疏</mark>张量", "\u200b。\u200b然后", "：<mark>x</mark>", ".data 的陷阱", ", and then",
             "<mark>梯度</mark>、累加", "plain"]
    run = subprocess.run([node, str(harness), str(WORKER), json.dumps(texts, ensure_ascii=False)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["COO <mark>稀疏</mark>张量", "然后", "<mark>x</mark>", ".data 的陷阱", "and then",
                                      "<mark>梯度</mark>、累加", "plain"]
