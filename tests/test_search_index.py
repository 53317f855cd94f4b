"""The packed search index (torchnotes/publish/search_index.py) unpacks, in the real worker, to Material's entries.

The worker wrapper (docs/assets/javascripts/workers/search-zh.js) runs in Node on the packed index; what
it hands Material's worker is compared with the entries Material's plugin makes (its jieba cut, redone here).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from helpers import ROOT, SEPARATOR, site_search_options

from torchnotes.publish import search_index
from torchnotes.publish.zh import HAN

WORKER = ROOT / "docs" / "assets" / "javascripts" / "workers" / "search-zh.js"

UNPACK = r"""
const fs = require("fs")
globalThis.self = globalThis
self.location = { search: "?material=material.js" }
const listeners = []
self.addEventListener = (type, fn) => listeners.push(fn)
globalThis.importScripts = () => self.addEventListener("message", ev => received.push(ev.data))
const received = []
require(process.argv[2])
const packed = JSON.parse(fs.readFileSync(process.argv[3], "utf-8"))
const ev = { data: { type: 0, data: packed }, stopImmediatePropagation() {} }
for (const fn of listeners) fn(ev)
fs.writeFileSync(process.argv[4], JSON.stringify(received[0].data))
"""


def unpack(tmp_path: Path, packed: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to run the search worker (apt-get install nodejs)", pytrace=False)
    (tmp_path / "unpack.js").write_text(UNPACK, encoding="utf-8")
    (tmp_path / "packed.json").write_text(json.dumps(packed, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run([node, str(tmp_path / "unpack.js"), str(WORKER), str(tmp_path / "packed.json"),
                          str(tmp_path / "out.json")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))


def material_index(lang: str) -> dict:
    """Entries as Material's plugin makes them from the prose of this site's pages: jieba cut, <code> kept."""
    options = site_search_options(lang)
    if lang == "zh":
        import jieba
        with (ROOT / options["jieba_dict_user"]).open("rb") as words:  # as Material's plugin loads it
            jieba.load_userdict(words)
    docs = []
    for page in sorted((ROOT / "docs" / lang).rglob("*.md")):
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8").split("---", 2)[-1], flags=re.S)
        location = page.relative_to(ROOT / "docs" / lang).with_suffix("").as_posix() + "/"
        for number, section in enumerate(re.split(r"^## ", prose, flags=re.M)):
            title, _, body = section.partition("\n")
            paragraphs = [p.strip().replace("\n", " ") for p in body.split("\n\n") if p.strip()]
            text = " ".join("<p>" + re.sub(r"`([^`]+)`", r"<code>\1</code>", p) + "</p>" for p in paragraphs)
            suffix = "" if number == 0 else "#" + re.sub(r"\W+", "-", title.lower()).strip("-")
            docs.append({"location": location + suffix,
                         "title": segmented(title.strip()), "text": segmented(text)})
    return {"config": {"lang": options["lang"], "separator": options["separator"], "pipeline": ["stemmer"]},
            "docs": docs}


def segmented(text: str) -> str:
    """As Material's search plugin indexes Chinese: each run of Han characters cut by jieba, the words set
    apart by zero-width spaces."""
    import jieba

    return HAN.sub(lambda run: "\u200b" + "\u200b".join(jieba.cut(run.group(0))) + "\u200b", text).strip("\u200b")


def squeezed(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_packed_index_unpacks_to_materials_entries(tmp_path, lang):
    original = material_index(lang)
    packed = search_index.pack(original)
    size = {name: len(json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode())
            for name, index in (("packed", packed), ("original", original))}
    # What Material repeats (paths, keys, <code> tags, and for Chinese the zero-width spaces) is gone.
    assert size["packed"] < {"en": 0.9, "zh": 0.8}[lang] * size["original"], size
    unpacked = unpack(tmp_path, packed)
    assert unpacked["config"] == original["config"]  # the packing's own field is gone
    assert [d["location"] for d in unpacked["docs"]] == [d["location"] for d in original["docs"]]
    for mine, theirs in zip(unpacked["docs"], original["docs"]):
        for field in ("title", "text"):
            # Everything but the Chinese cut comes back exactly (white space as HTML shows it).
            assert mine[field].replace("\u200b", "") == squeezed(theirs[field].replace("\u200b", "")), mine["location"]

    def words(docs):
        found = []
        for doc in docs:
            for run in re.findall(r"[\u4e00-\u9fff\u200b]+", doc["text"]):
                found += [w for w in run.split("\u200b") if w]
        return found

    theirs, mine = words(original["docs"]), words(unpacked["docs"])
    if lang == "en":
        assert mine == theirs
        return
    assert len(theirs) > 10_000  # the zh pages are really in the comparison
    # The worker's cut is a unigram model over jieba's own words: nearly every word comes back as jieba cut it.
    shared = sum((Counter(theirs) & Counter(mine)).values())
    assert shared / len(theirs) >= 0.97, f"only {shared / len(theirs):.1%} of jieba's words come back"


def test_a_literal_backtick_and_code_survive(tmp_path):
    original = {"config": {"lang": ["en"], "separator": SEPARATOR, "pipeline": []}, "docs": [
        {"location": "a/", "title": "<code>view</code> and `x`", "text": "<p>say <code>a`b</code>  and\n &amp;#96; too</p>"},
        {"location": "a/#b", "title": "B", "text": "<pre><code>x  =\n  1</code></pre>"},
        {"location": "c/", "title": "C", "text": ""},
    ]}
    packed = search_index.pack(original)
    assert [page[0] for page in packed["docs"]] == ["a/", "c/"]  # one path per page
    unpacked = unpack(tmp_path, packed)
    assert unpacked["docs"] == [
        {"location": "a/", "title": "<code>view</code> and `x`", "text": "<p>say <code>a`b</code> and &amp;#96; too</p>"},
        {"location": "a/#b", "title": "B", "text": "<pre><code>x  =\n  1</code></pre>"},  # <pre> keeps its spaces
        {"location": "c/", "title": "C", "text": ""},
    ]


def test_page_tags_stop_the_packing_by_name():
    index = {"config": {"separator": SEPARATOR}, "docs": [{"location": "a/", "title": "A", "text": "", "tags": ["x"]}]}
    with pytest.raises(search_index.UnexpectedIndex, match=r"'a/'.*tags"):
        search_index.pack(index)
