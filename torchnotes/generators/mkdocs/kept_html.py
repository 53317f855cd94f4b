"""A page's HTML kept between builds, served through Python-Markdown's public extension API.

MkDocs converts every page on every build, and highlighting the code of 78 pages is most of a no-change build.
Its own shortcut, `--dirty`, skips unchanged pages altogether and warns, which `--strict` refuses. Here every
page is still built in full by MkDocs (navigation, templates, every plugin, search); only the conversion of a
page whose input did not change is served from the cache, by three processors of a Markdown extension:

1. a preprocessor, after pymdownx.snippets has inserted the files a page includes, keys the page's Markdown
   with the build's key and, on a hit, hands on the page's anchors as raw HTML: MkDocs' own preprocessor
   that follows reads them, as it does for any raw HTML, so links to them still check;
2. a second preprocessor, right after MkDocs' one, replaces those lines with one placeholder of
   Python-Markdown's HTML stash, which its raw-HTML postprocessor swaps for the kept HTML, byte for byte;
3. the last postprocessor, after the last tree processor, keeps the HTML and the table of contents of a conversion that logged no warning
   (a page whose links are broken is converted, and warns, on every build), and on a hit gives the table
   of contents back as the toc extension's documented `toc_tokens`.

The build's key holds everything a conversion reads besides the page: every file of the build (links are
resolved against them), the Markdown extensions and their options, mkdocs.yml, the URL style and validation
options, the versions of the packages that convert, and this module's source.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from importlib.metadata import version
from pathlib import Path

from markdown import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from torchnotes import kept

PACKAGES = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material", "mkdocs-static-i18n")
_ANCHOR = re.compile(r'<[^>]*?\s(?:id|name)="([^"]*)"')
_OWN = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


class KeptHtml(Extension):
    """One per process (mkdocs serve builds again with it); MkDocs makes a Markdown instance per page with it."""

    def __init__(self, folder: Path):
        super().__init__()
        self.folder = folder
        self.versions = {name: version(name) for name in PACKAGES}
        self.build_key = ""
        self.page: str | None = None  # the page being converted (the plugin's on_page_markdown), else None
        self.begin()

    def begin(self, partial: bool = False) -> None:
        """Each build; partial: a dirty build (mkdocs serve --dirty), which converts only the pages it rebuilds."""
        self.partial = partial
        self.started = time.time()
        self.used: set[str] = set()
        self.hits = self.misses = self.ahead = 0  # ahead: made during this build by its fork (ahead.py)

    def start_build(self, config, files) -> None:
        """Key the conversions of one build (one language): call from on_files."""
        self.build_key = _digest(
            _OWN, self.versions, Path(config.config_file_path).read_bytes().decode("utf-8", "replace"),
            _stable([e for e in config["markdown_extensions"] if e is not self]), _stable(config["mdx_configs"]),
            # What MkDocs' own tree processors read of the config (not site_url, which mkdocs serve changes).
            config.use_directory_urls, _stable(dict(config.validation)),
            sorted((f.src_uri, f.url, f.inclusion.name) for f in files),
        )

    def extendMarkdown(self, md) -> None:  # noqa: N802 - Python-Markdown's name
        conversion = _Conversion(self, md)
        # After pymdownx.snippets (32) and normalize_whitespace (30); before MkDocs' raw-HTML anchors (21).
        md.preprocessors.register(_Serve(conversion), "torchnotes_kept_html", 29)
        md.preprocessors.register(_Stash(conversion), "torchnotes_kept_html_stash", 20.5)
        # The toc extension runs the postprocessors on each heading's text: only the run after the last tree
        # processor is the page's.
        md.treeprocessors.register(_TreeDone(conversion), "torchnotes_kept_html_tree_done", -1000)
        md.postprocessors.register(_Keep(conversion), "torchnotes_keep_html", -100)

    def kept_count(self) -> int:
        """How many conversions were kept before this build began (of any page and language)."""
        if not self.folder.is_dir():
            return 0
        return sum(1 for f in self.folder.glob("*.json") if f.stat().st_mtime < self.started)

    def finish(self) -> str:
        """Remove what this build did not use (after the last language), and say what was reused."""
        if not self.partial:  # a dirty build used only the conversions of the pages it rebuilt
            kept.prune(self.folder, self.used, before=self.started)
        ahead = f"; {self.ahead} made ahead by the build's fork" if self.ahead else ""
        return f"reused {self.hits} of {self.hits + self.misses + self.ahead} page conversions{ahead}"


class _Conversion:
    """One page's conversion: what the three processors share."""

    def __init__(self, ext: KeptHtml, md):
        self.ext, self.md = ext, md
        self.key: str | None = None
        self.kept: dict | None = None
        self.tree_done = False
        self.warnings = _Warnings()


class _Serve(Preprocessor):
    def __init__(self, conversion: _Conversion):
        super().__init__(conversion.md)
        self.c = conversion

    def run(self, lines: list[str]) -> list[str]:
        ext = self.c.ext
        if ext.page is None:
            return lines  # a conversion that is not a page's (the plugin did not announce one)
        self.c.key = _digest(ext.build_key, ext.page, lines)
        ext.used.add(self.c.key)
        file = ext.folder / f"{self.c.key}.json"
        self.c.kept = kept.load(file)
        if self.c.kept is None:
            self.c.warnings.listen()
            return lines
        if kept.made_since(file, ext.started):
            ext.ahead += 1
        else:
            ext.hits += 1
        # Only the anchors, for MkDocs' preprocessor that reads them from raw HTML: parsing the whole page
        # again would cost what the cache saves.
        return ["".join(f'<a id="{anchor}"></a>' for anchor in self.c.kept["anchors"])]


class _Stash(Preprocessor):
    def __init__(self, conversion: _Conversion):
        super().__init__(conversion.md)
        self.c = conversion

    def run(self, lines: list[str]) -> list[str]:
        if self.c.kept is None:
            return lines
        return [self.md.htmlStash.store(self.c.kept["html"])]


class _TreeDone(Treeprocessor):
    def __init__(self, conversion: _Conversion):
        super().__init__(conversion.md)
        self.c = conversion

    def run(self, root) -> None:
        self.c.tree_done = True


class _Keep(Postprocessor):
    def __init__(self, conversion: _Conversion):
        super().__init__(conversion.md)
        self.c = conversion

    def run(self, text: str) -> str:
        c = self.c
        if not c.tree_done:
            return text
        if c.kept is not None:
            self.md.toc_tokens = c.kept["toc"]  # the toc extension's result, which MkDocs reads
        elif c.key is not None:
            warned = c.warnings.stop()
            c.ext.misses += 1
            if not warned:
                kept.store(c.ext.folder / f"{c.key}.json", {"html": text, "toc": getattr(self.md, "toc_tokens", []),
                                                            "anchors": sorted(set(_ANCHOR.findall(text)))})
        return text


class _Warnings(logging.Handler):
    """Whether a conversion logged a warning (a broken link): such a conversion is not kept."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0
        # MkDocs' own loggers do not propagate to the root one; the extensions' do.
        self.loggers = [logging.getLogger("mkdocs"), logging.getLogger()]

    def listen(self) -> None:
        self.count = 0
        for logger in self.loggers:
            logger.addHandler(self)

    def stop(self) -> int:
        for logger in self.loggers:
            logger.removeHandler(self)
        return self.count

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


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
