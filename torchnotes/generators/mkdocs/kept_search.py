"""Each page's search entries kept between builds, through Material's documented front matter.

Material's search plugin indexes every page on every build: it parses the page's HTML into sections and cuts
the Chinese ones with jieba, whose dictionary takes most of a second to load. A page whose HTML, address,
title, table of contents and front matter did not change gives the same entries, so:

- before Material indexes a page (on_page_context, ahead of it), a page whose entries are kept is marked
  `search: exclude: true` for that one step (Material's documented front matter), and unmarked right after;
- after the build (the merged index written by Material and mkdocs-static-i18n), the entries Material made
  for the other pages are kept, and every page's entries are put back in the order Material indexed them.

Under `mkdocs serve --dirty` (scripts/serve.sh, own_index) Material must index nothing: in a dirty build it merges
its entries into the previous build's, and mkdocs-static-i18n merges the result again, so its index doubles with
every rebuild. There the pages that are not kept are indexed here, with Material's own indexer (its SearchIndex,
configured as the plugin is), and mkdocs-static-i18n's removal of a translation's sections that are word for word
its original's is done here too. A dirty build rebuilds some pages only (partial): the others keep the entries,
and the place, the build before gave them.

jieba's dictionary and the site's words (search_words_zh.txt, loaded with jieba's own `load_userdict`) are
loaded only before the first page with Chinese characters that is indexed again.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from importlib.metadata import version
from pathlib import Path

import jieba
from material.plugins.search.plugin import SearchIndex

from torchnotes import kept
from torchnotes.publish.zh import HAN

_OWN = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


class KeptSearch:
    def __init__(self, folder: Path, words: Path | None, own_index: bool = False):
        self.folder = folder
        self.words = words
        self.own_index = own_index
        self.loaded: str | None = None  # the text of the user dictionary jieba has loaded
        self.mixed = False  # jieba only adds words: after a second text, what it cuts is not kept
        # Each page's entries by URL, in the order Material indexes them, as the last build left them: a partial
        # build changes those of the pages it rebuilt.
        self.site: dict[str, list] = {}
        self.begin()

    def begin(self, partial: bool = False) -> None:
        """Each build (mkdocs serve builds again after an edit, the user dictionary's too); partial: a dirty build,
        which rebuilds only some pages."""
        self.partial = partial
        self.text = self.words.read_text(encoding="utf-8") if self.words and self.words.is_file() else None
        self.key = _digest(_OWN, version("mkdocs-material"), version("jieba"), self.text, self.own_index)
        self.started = time.time()
        self.used: set[str] = set()
        self.order: list[tuple[str, str, list | None]] = []  # (page URL, key, entries; None: Material makes them)
        self.hits = self.ahead = 0  # ahead: made during this build by its fork (ahead.py)

    def warm(self) -> None:
        """Load jieba's dictionary on a thread of its own (mkdocs serve, once it serves): the preview's first rebuild
        that indexes a Chinese page again would otherwise wait most of a second for it. jieba loads it under a lock
        of its own, which its cut takes too."""
        threading.Thread(target=jieba.initialize, name="jieba dictionary", daemon=True).start()

    def before(self, page, search_options: dict) -> None:
        """Call ahead of Material's on_page_context: a page with kept entries (or, own_index, any page) is excluded
        for this step."""
        meta = {k: v for k, v in page.meta.items() if k != "search"}
        key = _digest(self.key, search_options, page.content, page.url, page.title, meta, page.meta.get("search"),
                      [_token(item) for item in page.toc])
        self.used.add(key)
        if (page.meta.get("search") or {}).get("exclude"):
            # A page its front matter excludes (the report, the benchmarks) is not indexed: nothing for jieba to cut.
            self.order.append((page.url, key, []))
            return
        file = self.folder / f"{key}.json"
        body = kept.load(file)
        entries = None if body is None else body["entries"]
        if entries is not None and kept.made_since(file, self.started):
            self.ahead += 1
        elif entries is not None:
            self.hits += 1
        elif self.text is not None and self.loaded != self.text and HAN.search(page.content + page.title):
            self.mixed = self.loaded is not None
            with open(self.words, "rb") as words:  # jieba leaves a file it opened itself open
                jieba.load_userdict(words)
            self.loaded = self.text
        if entries is None and self.own_index:
            index = SearchIndex(**search_options)  # as Material's search plugin makes them
            index.add_entry_from_context(page)
            entries = index.entries
            if not self.mixed:
                kept.store(self.folder / f"{key}.json", {"entries": entries})
        if entries is not None:
            page.meta["search"] = dict(page.meta.get("search") or {}, exclude=True, torchnotes_kept=True)
        self.order.append((page.url, key, entries))

    def after(self, page) -> None:
        """Call after Material's on_page_context: the page's front matter as it was."""
        search = page.meta.get("search") or {}
        if search.get("torchnotes_kept"):
            rest = {k: v for k, v in search.items() if k not in ("exclude", "torchnotes_kept")}
            if rest:
                page.meta["search"] = rest
            else:
                del page.meta["search"]

    def complete(self, index_file: Path, languages: list[str] | None = None) -> None:
        """Put every page's entries into the index Material wrote, in its order; keep the new ones. languages (own
        index): those whose word-for-word copies of the first language's sections mkdocs-static-i18n leaves out."""
        if not index_file.exists():
            return
        index = json.loads(index_file.read_text(encoding="utf-8"))
        made: dict[str, list] = {}
        for entry in index["docs"]:
            made.setdefault(entry["location"].split("#")[0], []).append(entry)
        pages = {}
        for url, key, entries in self.order:
            if entries is None:
                entries = made.get(url, [])
                if not self.mixed:
                    kept.store(self.folder / f"{key}.json", {"entries": entries})
            pages[url] = entries
        if self.partial:
            self.site.update(pages)
        else:
            self.site = pages
        docs = [entry for entries in self.site.values() for entry in entries]
        index["docs"] = _without_duplicates(docs, languages) if self.own_index and languages else docs
        index_file.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")

    def finish(self) -> str:
        if not self.partial:  # a dirty build used only the keys of the pages it rebuilt
            kept.prune(self.folder, self.used, before=self.started)
        ahead = f"; {self.ahead} made ahead by the build's fork" if self.ahead else ""
        return f"reused {self.hits} of {len(self.order)} pages' search entries{ahead}"


def _without_duplicates(docs: list[dict], languages: list[str]) -> list[dict]:
    """mkdocs-static-i18n's reconfigure_search: an entry of another language's page (location "zh/...") that has the
    title and text of an entry of the first language, and a location ending in that entry's, is left out."""
    prefixes = tuple(f"{lang}/" for lang in languages)
    others: dict[tuple[str, str], list[int]] = {}
    for i, doc in enumerate(docs):
        if doc["location"].startswith(prefixes):
            others.setdefault((doc["title"], doc["text"]), []).append(i)
    dropped: set[int] = set()
    for doc in docs:
        if doc["location"].startswith(prefixes):
            continue
        for i in others.get((doc["title"], doc["text"]), []):
            if i not in dropped and docs[i]["location"].endswith(doc["location"]):
                dropped.add(i)
    return [doc for i, doc in enumerate(docs) if i not in dropped]


def _token(item) -> dict:
    return {"level": item.level, "id": item.id, "name": item.title, "children": [_token(c) for c in item.children]}


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()
