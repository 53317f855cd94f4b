"""Each language's packed search index (torchnotes/publish/search_index.py), packed again only when it changed.

Packing both languages' indexes, with their query expansion tables, takes a third of a second; a preview rebuild
after a prose edit changes one language's entries, and a save that changes nothing changes none. So what was
packed is kept, in memory, by the entries and configuration of the language's index and the files of the
expansion table (the glossary, the synonyms): a language whose inputs are unchanged is not packed again, and its file
is written only if it does not hold those bytes (the first language's is where Material writes the whole index,
on every build). The files are the bytes search_index.write_per_language writes.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from torchnotes.pages.glossary import GlossaryError
from torchnotes.publish import search_expand, search_index
from torchnotes.publish.kept_pages import stat_tree

log = logging.getLogger("mkdocs.plugins.torchnotes")


class SearchFiles:
    """One per plugin instance: a `mkdocs serve` keeps it across its rebuilds."""

    def __init__(self):
        self.sources: tuple[list, search_expand.Sources] | None = None  # the files' stat, and what they held
        self.packed: dict[str, tuple[tuple, bytes, list]] = {}  # by language: (made from, bytes, synonyms not held)

    def write(self, site_dir: Path, langs: list[str], root: Path,
              synonyms: str) -> tuple[dict[str, int], list[search_expand.SynonymNotHeld]]:
        """search_index.write_per_language, each language packed only when its entries or sources changed."""
        sources = self._sources(root, synonyms)

        def packer(index: dict, docs: list[dict], lang: str) -> tuple[bytes, list]:
            # Compared as they are, not by a hash of them: serialising both languages' entries to hash them took
            # longer than comparing them. They are read afresh from the index file on every build, and never changed.
            made_from = (index["config"], docs, self.sources[0])
            known = self.packed.get(lang)
            if known is None or known[0] != made_from:
                known = self.packed[lang] = (made_from, *search_index.packed(index, docs, lang, sources))
            return known[1], known[2]

        return search_index.write_per_language(site_dir, langs, sources, packer)

    def _sources(self, root: Path, synonyms: str) -> search_expand.Sources:
        files = [root / "CONTRIBUTING.zh.md"] + ([root / synonyms] if synonyms else [])
        stat = [stat_tree(path) for path in files]
        if self.sources is None or self.sources[0] != stat:
            self.sources = (stat, search_expand.Sources.load(root, synonyms))
        return self.sources[1]


def finish(kept_search, files: SearchFiles, config, languages: list[str], settings) -> None:
    """After the last language's build: every page's entries into the merged index Material wrote
    (kept_search.py), then each language's packed index, with its query expansion table."""
    site_dir = Path(config.site_dir)
    if kept_search is not None:
        i18n = config.plugins.get("i18n")
        deduplicated = languages if i18n is not None and i18n.config.get("reconfigure_search") else None
        kept_search.complete(site_dir / "search" / "search_index.json", deduplicated)
        log.info(kept_search.finish())
    try:
        sizes, unheld = files.write(site_dir, languages, Path(settings.root), settings.search_synonyms)
    except (search_index.UnexpectedIndex, search_expand.SynonymFileError, GlossaryError) as error:
        raise PluginError(f"search index: {error}") from error
    for synonym in unheld:  # a warning: `mkdocs build --strict` stops, `mkdocs serve` goes on
        log.warning(f"search synonyms: {synonym}")
    log.info("search index: " + ", ".join(f"{lang} {size / 1024:.0f} KB" for lang, size in sizes.items()))


_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base":\s*)"[^"]*"')


def language_base(output: str, dest_uri: str, languages: list[str]) -> str:
    """Material reads search/search_index.json, and resolves result links, against "base" in its __config, which is
    the site root on every page: point it at the page's language root, where search_index.write_per_language wrote
    that language's index."""
    parts = dest_uri.split("/")
    if parts[0] not in languages[1:]:
        return output
    base = "/".join([".."] * (len(parts) - 2)) or "."
    return _CONFIG_BASE.sub(lambda m: m.group(1) + json.dumps(base), output, count=1)
