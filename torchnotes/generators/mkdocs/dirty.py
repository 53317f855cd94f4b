"""`mkdocs serve --dirty` (scripts/serve.sh), kept right.

A dirty build is MkDocs' supported way of rebuilding less: it reads, converts and renders only the pages whose
published Markdown is newer than their HTML, and copies only the files newer than their copy. A rebuild after a
prose edit renders one page instead of eighty. What it does not do, this module does:

- every page's navigation title: MkDocs does not read the pages it does not rebuild, so the navigation of the
  pages it does would name them by nothing. Their source is read (Page.read_source, which fills the title from
  the front matter, as a full build does) before any page is rendered;
- a full build when what every page shows changed: the site's configuration (as the build loaded it), the
  theme's templates (custom_dir), the files pages include (pymdownx.snippets' base_path), and the list of
  pages with their titles (navigation, the previous and next links, the language menu). The site folder is
  emptied first, so a deleted page is no longer served either;
- a file gone from the site's sources is removed from the site folder (MkDocs leaves it there);
- the search index of every page (torchnotes/generators/mkdocs/kept_search.py keeps the entries of the pages
  not rebuilt).

MkDocs still warns that a dirty build "will likely lead to inaccurate navigation": with the above it does not, so
that one warning is left out of the log (a logging filter), and one line says what was rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path

from mkdocs.theme import Theme

from torchnotes.publish.kept_pages import stat_tree

DIRTY_WARNING = "A 'dirty' build is being performed"


class DirtyBuilds:
    """What one `mkdocs serve --dirty` session knows of its previous build."""

    def __init__(self):
        self.key: str | None = None  # of what every page shows, as the last full build saw it
        self.previous: set[str] = set()  # the site files the last build's sources made (both languages)
        self.current: set[str] = set()
        self.partial = False
        logging.getLogger("mkdocs.commands.build").addFilter(_NotInaccurate())

    def start(self, config, titles: dict[str, str]) -> bool:
        """Before the build of the first language; titles: each page's title by its source. Returns whether this
        build is partial (the pages whose sources are unchanged are not rebuilt); otherwise the site folder is
        emptied, and every page is built."""
        key = structure_key(config, titles)
        self.partial = key == self.key
        if not self.partial:
            empty(Path(config.site_dir))
        self.key = key
        self.current = set()
        return self.partial

    def files(self, files) -> None:
        """Call in on_files of each language's build, once its files are final."""
        self.current.update(f.abs_dest_path for f in files)

    def read_titles(self, nav, config) -> None:
        """Call in on_nav of each language's build: the pages MkDocs will not read are read, for their titles."""
        if not self.partial:
            return
        for page in nav.pages:
            if page.markdown is None:
                page.read_source(config)

    def finish(self) -> str:
        """After the last language's build: remove what a previous build made from sources that are gone; says
        what was rebuilt."""
        gone = sorted(self.previous - self.current) if self.partial else []
        for path in gone:
            Path(path).unlink(missing_ok=True)
        self.previous = self.current
        return (f"dirty build: {'only what changed' if self.partial else 'every page'} rebuilt"
                + (f", {len(gone)} file(s) whose source is gone removed" if gone else ""))

    def failed(self) -> None:
        """A build that failed may have left the site half rebuilt: the next one builds everything."""
        self.key = None


def structure_key(config, titles: dict[str, str]) -> str:
    """What every page of the site shows besides its own content: the configuration as this build loaded it (not
    its files, which may have been saved again since: that is the next build's), the theme's templates and the
    files pages include, by their modification times, and every page's title."""
    folders = [config.theme.custom_dir] if config.theme.custom_dir else []
    snippets = config.mdx_configs.get("pymdownx.snippets", {}).get("base_path", [])
    folders += [snippets] if isinstance(snippets, str) else list(snippets)
    root = Path(config.config_file_path).parent.resolve()
    # Not the project's root itself (snippets' default base_path): its every file would be a change.
    folders = [root / folder for folder in folders if (root / folder).resolve() != root]
    loaded = {key: config[key] for key in sorted(config.keys())}
    # mkdocs serve's first build has these paths as given on the command line, its rebuilds resolved.
    loaded["config_file_path"] = str(Path(config.config_file_path).resolve())
    return hashlib.sha256(json.dumps([loaded, [stat_tree(folder) for folder in folders], sorted(titles.items())],
                                     default=_described, ensure_ascii=False).encode()).hexdigest()


def _described(value):
    """A configuration value as JSON can hold it, the same for the same value within this process."""
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    if isinstance(value, Theme):
        return [value.name, [str(Path(d).resolve()) for d in value.dirs], sorted(value.static_templates), dict(value)]
    text = repr(value)
    if " at 0x" not in text:  # the address to serve on, the validation options, a list of names...
        return text
    if hasattr(value, "items"):  # the plugins, by their options
        return {str(k): getattr(v, "config", v) for k, v in value.items()}
    # An object named by its address (a Markdown extension given as one): by its class and options instead.
    return [f"{type(value).__module__}.{type(value).__qualname__}", getattr(value, "getConfigs", lambda: None)()]


def empty(folder: Path) -> None:
    if not folder.is_dir():
        return
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


class _NotInaccurate(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(DIRTY_WARNING)
