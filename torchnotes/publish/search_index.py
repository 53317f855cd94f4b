"""The search index each language's site ships: Material's entries for that language, packed.

Material's search plugin writes one index for the whole build (mkdocs-static-i18n builds both languages
into it). `write_per_language` splits it, so that a reader's search returns pages in the reader's
language, and packs each half into a smaller file of the same content. The search worker wrapper
(docs/assets/javascripts/workers/search-zh.js) unpacks it into exactly the entries Material's worker
expects, before Material's worker sees them. Packing:

- the page's path is written once, not in front of every section's anchor;
- an entry is a [location suffix, title, text] triple instead of an object with three keys;
- runs of white space outside <pre> become one space (HTML shows them as one);
- <code> and </code> become a backtick; a literal backtick is written as &#96;, which Material never writes
  (it escapes "&" in text as &amp;);
- the zero-width spaces Material puts between the Chinese words jieba finds are left out. The words,
  with how often each occurs, go once into config.torchnotes.words; the worker cuts each Chinese run
  again into the most probable sequence of those words and puts the zero-width spaces back;
- config.torchnotes.expand carries the query expansion table (torchnotes/publish/search_expand.py): what a reader may
  type (显卡, in-place, 拷贝) and the words of this index it stands for.

What the index holds is decided before Material sees a page: code, outputs, the provenance line and
the build's notices carry data-search-exclude (Material's documented block exclusion).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from torchnotes.publish.search_expand import Sources, SynonymNotHeld, expansion_table
from torchnotes.publish.zh import HAN
from torchnotes.storage import write_if_changed

FORMAT = 1
ZWSP = "\u200b"
LONGEST_WORD = 12  # a longer run between separators was not cut by jieba: not a word
_PRE = re.compile(r"(<pre>.*?</pre>)", re.S)
_SPACES = re.compile(r"\s+")
ENTRY_KEYS = {"location", "title", "text"}


class UnexpectedIndex(ValueError):
    """Material wrote an index this packing does not know how to carry without loss."""


Packer = Callable[[dict, list[dict], str], tuple[bytes, list[SynonymNotHeld]]]


def write_per_language(site_dir: Path, langs: list[str], sources: Sources | None = None,
                       packer: Packer | None = None) -> tuple[dict[str, int], list[SynonymNotHeld]]:
    """Split site/search/search_index.json into <lang root>/search/search_index.json, packed, each with its query
    expansion table (torchnotes/publish/search_expand.py); the sizes in bytes, and the synonyms no index holds.
    packer(index, docs, lang): packed() by default; a preview session's keeps what it packed (search_files.py)."""
    merged = site_dir / "search" / "search_index.json"
    if not merged.exists():
        return {}, []
    index = json.loads(merged.read_text(encoding="utf-8"))
    packer = packer or (lambda index, docs, lang: packed(index, docs, lang, sources or Sources()))
    sizes, unheld = {}, []
    for lang, docs in split(index["docs"], langs).items():
        data, missing = packer(index, docs, lang)
        unheld += missing
        # Unchanged bytes are not written again (the first language's file is where Material writes the whole index).
        write_if_changed(site_dir / ("" if lang == langs[0] else lang) / "search" / "search_index.json", data)
        sizes[lang] = len(data)
    return sizes, unheld


def packed(index: dict, docs: list[dict], lang: str, sources: Sources) -> tuple[bytes, list[SynonymNotHeld]]:
    """One language's entries, packed with their query expansion table; and the synonyms they do not hold."""
    table, missing = expansion_table(docs, index["config"]["separator"], lang, sources)
    return json.dumps(pack(dict(index, docs=docs), table), ensure_ascii=False, separators=(",", ":")).encode(), missing


def split(docs: list[dict], langs: list[str]) -> dict[str, list[dict]]:
    """Each language's entries, their locations relative to that language's root."""
    default, others = langs[0], langs[1:]
    parts: dict[str, list[dict]] = {lang: [] for lang in langs}
    for doc in docs:
        location = doc["location"]
        lang = next((o for o in others if location.startswith(f"{o}/")), default)
        if lang != default:
            doc = dict(doc, location=location[len(lang) + 1:])
        parts[lang].append(doc)
    return parts


def pack(index: dict, expand: list[list[str]] | None = None) -> dict:
    """Material's index ({config, docs}) in the packed form the worker wrapper unpacks; `expand`: the query
    expansion table (torchnotes/publish/search_expand.py), [[key, counterpart, ...], ...]."""
    separator = re.compile(index["config"]["separator"])
    words: Counter[str] = Counter()
    pages: list[list[str]] = []
    for doc in index["docs"]:
        extra = set(doc) - ENTRY_KEYS
        if extra:
            raise UnexpectedIndex(f"search entry {doc.get('location')!r} has fields the packed index does not carry: "
                                  f"{sorted(extra)} (page tags or boost); extend torchnotes/publish/search_index.py and the worker")
        for field in (doc["title"], doc["text"]):
            for token in separator.split(field):
                for run in HAN.findall(token):
                    if len(run) <= LONGEST_WORD:
                        words[run] += 1
        page, hash_, anchor = doc["location"].partition("#")
        if not pages or pages[-1][0] != page:
            pages.append([page])
        pages[-1] += [hash_ + anchor, _squeeze(doc["title"]), _squeeze(doc["text"])]
    by_count: dict[int, list[str]] = {}
    for word, count in words.most_common():
        by_count.setdefault(count, []).append(word)
    words_field = [[c, " ".join(w)] for c, w in by_count.items()]
    config = dict(index["config"], torchnotes={"format": FORMAT, "words": words_field, "expand": expand or []})
    return {"config": config, "docs": pages}


def _squeeze(value: str) -> str:
    parts = _PRE.split(value.replace(ZWSP, ""))
    for i in range(0, len(parts), 2):  # even parts are outside <pre>
        parts[i] = _SPACES.sub(" ", parts[i])
    packed = "".join(parts).strip()
    return packed.replace("`", "&#96;").replace("<code>", "`").replace("</code>", "`")
