"""The two steps of an MkDocs build that cost most, kept between builds: each page's Markdown-to-HTML
conversion and the search entries Material's search plugin makes from its HTML.

MkDocs converts and indexes every page on every build. Its own shortcut, `--dirty`, skips unchanged pages
altogether: their navigation and search entries go out of date, and it warns, which `--strict` refuses. Here
every page is still built in full (navigation, templates, every plugin); only these two steps are taken from
the cache, and each is keyed by everything it reads:

- conversion: the page's path and its Markdown after the plugins' `on_page_markdown`; every file of the build
  (links are resolved against them); the Markdown extensions and their options; `mkdocs.yml`; the files
  `pymdownx.snippets` appends to every page; the versions of the packages that convert; this module's source.
  A page that includes files with `--8<--` is converted every time;
- search entries: the page's HTML, URL, title, table of contents and front matter; the search options and
  the jieba dictionaries; the same versions and source. jieba's dictionaries are loaded only when a page with
  Chinese characters is indexed again.

A hit restores what `Page.render` sets and logs again what the conversion logged, so a broken link still
warns and `--strict` still stops the build. An entry is written only after its step succeeded.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from importlib.metadata import version
from pathlib import Path

import jieba
from backrefs import bre
from mkdocs.structure.toc import get_toc

from .. import kept

PACKAGES = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material", "mkdocs-static-i18n", "jieba")
_OWN = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
_HAN = bre.compile(r"\p{script: Han}")  # the characters Material's search plugin cuts with jieba
SNIPPET = "--8<--"  # pymdownx.snippets' marker: such a page names files outside its Markdown


class Reuse:
    """One per process: mkdocs serve builds again with the same instance (begin() starts each build)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.versions = {name: version(name) for name in PACKAGES}
        self.user_dictionary: str | None = None
        self.loaded_dictionary: str | None = None  # the text of the user dictionary jieba has loaded
        self.mixed_dictionaries = False  # jieba only adds words: after a second text, its cuts are not kept
        self.begin()

    def begin(self) -> None:
        self.started = time.time()
        self.used: set[str] = set()
        self.hits = {"render": 0, "search": 0}
        self.misses = {"render": 0, "search": 0}

    # -- conversion -------------------------------------------------------------------------------------

    def start_build(self, config, files) -> None:
        """Key the conversions of one build (one language): call from on_files."""
        self.snippets = any((e if isinstance(e, str) else type(e).__module__).startswith("pymdownx.snippets")
                            for e in config["markdown_extensions"])
        appended = config["mdx_configs"].get("pymdownx.snippets", {}).get("auto_append", [])
        self.build_key = _digest(
            "render", _OWN, self.versions,
            Path(config.config_file_path).read_bytes().decode("utf-8", "replace"),
            _stable(config["markdown_extensions"]), _stable(config["mdx_configs"]),
            # What MkDocs' own tree processors read of the config (not site_url, which mkdocs serve changes).
            config.use_directory_urls, _stable(dict(config.validation)),
            sorted((f.src_uri, f.url, f.inclusion.name) for f in files),
            _files(appended),
            # MkDocs collects a page's links to anchors only at this log level (Page.render).
            logging.getLogger("mkdocs.structure.pages").getEffectiveLevel() > logging.DEBUG,
        )

    def wrap_render(self, page) -> None:
        """Make page.render take its result from the cache when its input was converted before."""
        convert = page.render

        def render(config, files):
            if self.snippets and SNIPPET in page.markdown:
                # Which files it includes is known only by converting it (and they may include others).
                self.misses["render"] += 1
                return convert(config, files)
            key = _digest(self.build_key, page.file.src_uri, page.markdown)
            body = self._load("render", key)
            if body is None:
                with _Captured() as logged:
                    convert(config, files)
                body = {
                    "content": page.content, "toc": [_token(item) for item in page.toc],
                    "title": page._title_from_render, "anchors": sorted(page.present_anchor_ids or ()),
                    "links": None if page.links_to_anchors is None else
                    {target.src_uri: links for target, links in page.links_to_anchors.items()},
                    "logged": logged,
                }
                self._store("render", key, body)
                return
            page.content, page.toc = body["content"], get_toc(body["toc"])
            page._title_from_render = body["title"]
            page.present_anchor_ids = set(body["anchors"])
            if body["links"] is not None:
                page.links_to_anchors = {files.get_file_from_path(uri): links for uri, links in body["links"].items()}
            for name, level, message in body["logged"]:
                logging.getLogger(name).log(level, "%s", message)

        page.render = render

    # -- search -----------------------------------------------------------------------------------------

    def defer_user_dictionary(self, search_plugin) -> None:
        """Take jieba's user dictionary from Material's options (call before its on_config) and load it before
        the first page that is indexed again: loading it loads all of jieba's dictionary, most of a second,
        which a build that reuses every page's entries does not need. Call once per process: the options keep
        the change."""
        path = search_plugin.config.get("jieba_dict_user")
        if path and os.path.isfile(path):  # a missing file stays with Material, which warns about it
            self.user_dictionary = path
            search_plugin.config.jieba_dict_user = None

    def wrap_search(self, search_plugin) -> None:
        """Make Material's search index take a page's entries from the cache (call after its on_config)."""
        index = search_plugin.search_index
        add = index.add_entry_from_context
        options = dict(search_plugin.config, jieba_dict_user=self.user_dictionary or search_plugin.config.jieba_dict_user)
        dictionaries = [Path(p).read_text(encoding="utf-8") for p in
                        (options.get("jieba_dict"), options.get("jieba_dict_user")) if p and Path(p).is_file()]
        search_key = _digest("search", _OWN, self.versions, _stable(options), dictionaries)

        def add_entry_from_context(page):
            key = _digest(search_key, page.content, page.url, page.title, _stable(page.meta),
                          [_token(item) for item in page.toc])
            body = self._load("search", key)
            if body is None:
                if self.user_dictionary and _HAN.search(f"{page.content}{page.title}{page.meta.get('title', '')}"):
                    self._load_user_dictionary()  # Material cuts these characters with jieba
                before = len(index.entries)
                add(page)
                if self.mixed_dictionaries:
                    self.misses["search"] += 1
                else:
                    self._store("search", key, {"entries": index.entries[before:]})
                return
            index.entries.extend(body["entries"])

        index.add_entry_from_context = add_entry_from_context

    def _load_user_dictionary(self) -> None:
        text = Path(self.user_dictionary).read_text(encoding="utf-8")
        if text != self.loaded_dictionary:
            # Edited while mkdocs serve runs: jieba adds the new words to the old ones, as under Material alone.
            self.mixed_dictionaries = self.loaded_dictionary is not None
            with open(self.user_dictionary, "rb") as words:  # jieba leaves a file it opened itself open
                jieba.load_userdict(words)
            self.loaded_dictionary = text

    # -- the cache --------------------------------------------------------------------------------------

    def _load(self, step: str, key: str) -> dict | None:
        body = kept.load(self.folder / f"{key}.json")
        self.used.add(key)
        if body is not None:
            self.hits[step] += 1
        return body

    def _store(self, step: str, key: str, body: dict) -> None:
        self.misses[step] += 1
        kept.store(self.folder / f"{key}.json", body)

    def jinja_dir(self) -> Path:
        folder = self.folder.with_name("jinja")
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def finish(self) -> str:
        """Remove what this build did not use (after the last language), and say what was reused."""
        kept.prune(self.folder, self.used, before=self.started)
        return (f"reused {self.hits['render']} of {self.hits['render'] + self.misses['render']} page conversions and "
                f"{self.hits['search']} of {self.hits['search'] + self.misses['search']} pages' search entries")


class _Captured(logging.Handler):
    """What a conversion logs, to log it again when the conversion is reused."""

    def __enter__(self) -> list:
        self.records: list = []
        self.seen: set[int] = set()
        # MkDocs' own loggers do not propagate to the root one; the extensions' do.
        self.loggers = [logging.getLogger("mkdocs"), logging.getLogger()]
        for logger in self.loggers:
            logger.addHandler(self)
        return self.records

    def __exit__(self, *exc) -> None:
        for logger in self.loggers:
            logger.removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if id(record) not in self.seen:
            self.seen.add(id(record))
            self.records.append([record.name, record.levelno, record.getMessage()])


def _token(item) -> dict:
    """A table-of-contents entry as the toc extension's token, which mkdocs.structure.toc.get_toc reads."""
    return {"level": item.level, "id": item.id, "name": item.title, "children": [_token(c) for c in item.children]}


def _files(paths) -> list:
    """Each file's name and content hash (a missing file is named as such: snippets reports it itself)."""
    return [[str(p), hashlib.sha256(Path(p).read_bytes()).hexdigest() if Path(p).is_file() else None]
            for p in (paths if isinstance(paths, list) else [paths])]


def _stable(value) -> str:
    """A configuration value as text that is the same in every process (a function by its name, not its address)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=_describe)


def _describe(value):
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "getConfigs"):  # a Markdown extension given as an instance
        return [f"{type(value).__module__}.{type(value).__qualname__}", value.getConfigs()]
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return f"{getattr(value, '__module__', type(value).__module__)}.{name}"


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, default=_describe).encode()).hexdigest()
