"""Each page's search entries kept between builds, through Material's documented front matter.

Material's search plugin indexes every page on every build: it parses the page's HTML into sections and cuts
the Chinese ones with jieba, whose dictionary takes most of a second to load. A page whose HTML, address,
title, table of contents and front matter did not change gives the same entries, so:

- before Material indexes a page (on_page_context, ahead of it), a page whose entries are kept is marked
  `search: exclude: true` for that one step (Material's documented front matter), and unmarked right after;
- after the build (the merged index written by Material and mkdocs-static-i18n), the entries Material made
  for the other pages are kept, and every page's entries are put back in the order Material indexed them.

jieba's dictionary and the site's words (search_words_zh.txt, loaded with jieba's own `load_userdict`) are
loaded only before the first page with Chinese characters that Material indexes again.
"""

from __future__ import annotations

import hashlib
import json
import time
from importlib.metadata import version
from pathlib import Path

import jieba

from torchnotes import kept
from torchnotes.publish.zh import HAN

_OWN = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


class KeptSearch:
    def __init__(self, folder: Path, words: Path | None):
        self.folder = folder
        self.words = words
        self.loaded: str | None = None  # the text of the user dictionary jieba has loaded
        self.mixed = False  # jieba only adds words: after a second text, what it cuts is not kept
        self.begin()

    def begin(self) -> None:
        """Each build (mkdocs serve builds again after an edit, the user dictionary's too)."""
        self.text = self.words.read_text(encoding="utf-8") if self.words and self.words.is_file() else None
        self.key = _digest(_OWN, version("mkdocs-material"), version("jieba"), self.text)
        self.started = time.time()
        self.used: set[str] = set()
        self.order: list[tuple[str, str, list | None]] = []  # (page URL, key, kept entries or None)
        self.hits = 0

    def before(self, page, search_options: dict) -> None:
        """Call ahead of Material's on_page_context: a page with kept entries is excluded for this step."""
        meta = {k: v for k, v in page.meta.items() if k != "search"}
        key = _digest(self.key, search_options, page.content, page.url, page.title, meta, page.meta.get("search"),
                      [_token(item) for item in page.toc])
        self.used.add(key)
        body = kept.load(self.folder / f"{key}.json")
        excluded = (page.meta.get("search") or {}).get("exclude")
        self.order.append((page.url, key, [] if excluded else None if body is None else body["entries"]))
        if body is not None and not excluded:
            self.hits += 1
            page.meta["search"] = dict(page.meta.get("search") or {}, exclude=True, torchnotes_kept=True)
        # A page its front matter excludes (the report, the benchmarks) is not indexed: nothing for jieba to cut.
        elif body is None and not excluded and self.text is not None and self.loaded != self.text and HAN.search(page.content + page.title):
            self.mixed = self.loaded is not None
            with open(self.words, "rb") as words:  # jieba leaves a file it opened itself open
                jieba.load_userdict(words)
            self.loaded = self.text

    def after(self, page) -> None:
        """Call after Material's on_page_context: the page's front matter as it was."""
        search = page.meta.get("search") or {}
        if search.get("torchnotes_kept"):
            rest = {k: v for k, v in search.items() if k not in ("exclude", "torchnotes_kept")}
            if rest:
                page.meta["search"] = rest
            else:
                del page.meta["search"]

    def complete(self, index_file: Path) -> None:
        """Put every page's entries into the index Material wrote, in its order; keep the new ones."""
        if not index_file.exists():
            return
        index = json.loads(index_file.read_text(encoding="utf-8"))
        made: dict[str, list] = {}
        for entry in index["docs"]:
            made.setdefault(entry["location"].split("#")[0], []).append(entry)
        docs = []
        for url, key, entries in self.order:
            if entries is None:
                entries = made.get(url, [])
                if not self.mixed:
                    kept.store(self.folder / f"{key}.json", {"entries": entries})
            docs += entries
        index["docs"] = docs
        index_file.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")

    def finish(self) -> str:
        kept.prune(self.folder, self.used, before=self.started)
        return f"reused {self.hits} of {len(self.order)} pages' search entries"


def _token(item) -> dict:
    return {"level": item.level, "id": item.id, "name": item.title, "children": [_token(c) for c in item.children]}


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()
