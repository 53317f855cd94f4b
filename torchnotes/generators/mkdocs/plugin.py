"""MkDocs adapter: publish the pages (execute, render) and let MkDocs build from the published tree.

Events:
- on_startup: marks the plugin to be kept across `mkdocs serve` rebuilds, so it publishes only on change, with
  one Session (torchnotes.publish.tree) for all of them; on_shutdown closes it.
- on_config: runs the publish step (torchnotes.publish.tree, no MkDocs inside) and points docs_dir at its tree;
  mkdocs-static-i18n then builds each language folder of that tree as usual.
- on_serve: watches the sources (docs/), not the published tree the build itself writes.
- on_files / on_page_markdown / on_page_content: pages whose input did not change take their HTML from the previous
  build through a Markdown extension (torchnotes/generators/mkdocs/kept_html.py) instead of being converted again.
- on_post_page / on_post_build: one search index per language, packed (torchnotes/publish/search_index.py).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from jinja2 import FileSystemBytecodeCache
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from torchnotes.engine.environment import Environment, probe
from torchnotes.errors import BuildFailed
from torchnotes.generators.mkdocs import alternates, not_found
from torchnotes.generators.mkdocs.config import NotebooksConfig
from torchnotes.generators.mkdocs.kept_html import KeptHtml
from torchnotes.generators.mkdocs.kept_search import KeptSearch
from torchnotes.layout import CacheFolder
from torchnotes.log import Printed, logger
from torchnotes.pages.freshness import REBASE
from torchnotes.pages.glossary import GlossaryError
from torchnotes.publish import search_expand, search_index
from torchnotes.publish.session import Session
from torchnotes.publish.tree import Published, Publisher
from torchnotes.settings import Settings

log = logging.getLogger("mkdocs.plugins.torchnotes")


class _ToMkDocs(logging.Handler):
    """The build's records (torchnotes/log.py) in MkDocs' log, as information: a CPU build warns of the GPU
    recordings it lacks, which must not stop `mkdocs build --strict`."""

    def emit(self, record: logging.LogRecord) -> None:
        log.info(Printed().format(record))

    @classmethod
    def attach(cls) -> None:
        if not any(isinstance(handler, cls) for handler in logger.handlers):
            logger.addHandler(cls())


class NotebooksPlugin(BasePlugin[NotebooksConfig]):
    def __init__(self):
        self.env: Environment | None = None
        self.published: Published | None = None
        self.stamp: tuple | None = None
        self.kept: KeptHtml | None = None
        self.kept_search: KeptSearch | None = None
        self.session: Session | None = None  # one per `mkdocs serve`: a rebuild redoes only what changed
        self.not_found: dict[str, str] = {}  # the 404 page of each language, by language

    def on_startup(self, *, command, dirty):
        # Defining on_startup is what makes MkDocs keep this instance (and its session) across serve rebuilds.
        pass

    def on_shutdown(self):
        if self.session is not None:
            self.session.close()  # the zygotes it kept

    def on_config(self, config):
        if not self.config.enabled:
            return config
        root = Path(config.config_file_path).resolve().parent
        sources = Path(config.docs_dir).resolve()
        publish_dir = (root / self.config.publish_dir).resolve()
        if sources == publish_dir:
            return config  # mkdocs-static-i18n re-runs on_config for each language: already published
        self.sources = sources
        if self.env is None:
            self.env = probe(root / self.config.requirements)
        options = {name: self.config[name] for name in Settings().options}
        self.settings = replace(Settings(), root=root, docs_dir=self.sources, site_url=config.site_url or "", **options)
        self.folder = CacheFolder(self.settings.path("cache_dir"))
        if self.session is None:
            self.session = Session.for_settings(self.settings)
        _ToMkDocs.attach()
        stamp = tuple((p, p.stat().st_mtime_ns) for p in sorted(self.sources.rglob("*")) if p.is_file())
        if stamp != self.stamp or not publish_dir.exists():
            try:
                self.published = Publisher(self.settings, self.env, session=self.session).run(publish_dir)
            except BuildFailed as failed:
                self.stamp = None
                raise PluginError(str(failed)) from failed
            log.info(self.published.summary_line())
            self.stamp = stamp
        config.docs_dir = str(publish_dir)
        if self.kept is None:
            # One folder per config file: the offline copy's build (mkdocs.offline.yml) keeps its own.
            self.kept = KeptHtml(self.folder.kept_html(Path(config.config_file_path).stem))
        if self.kept not in config.markdown_extensions:  # mkdocs serve loads the config again for each build
            config.markdown_extensions.append(self.kept)
        if self.kept_search is None:
            words = root / self.config.search_words if self.config.search_words else None
            self.kept_search = KeptSearch(self.folder.kept_search(Path(config.config_file_path).stem), words)
        self.kept.begin()  # each build (mkdocs serve) counts afresh, also after a failed one
        self.kept_search.begin()
        return config

    def on_files(self, files, config):
        if self.kept is not None:
            self.kept.start_build(config, files)
        return files

    def on_env(self, env, config, files):
        if self.kept is not None:  # Jinja's bytecode cache checks each template's source before it uses what it kept
            self.folder.jinja.mkdir(parents=True, exist_ok=True)
            env.bytecode_cache = FileSystemBytecodeCache(str(self.folder.jinja))
        return env

    # Last: the page's Markdown is final; the conversion that follows is this page's.
    @event_priority(-100)
    def on_page_markdown(self, markdown, page, config, files):
        if self.kept is not None:
            self.kept.page = page.file.src_uri
        return markdown

    def on_page_content(self, html, page, config, files):
        if self.kept is not None:
            self.kept.page = None
        # Links written relative to the source file (freshness.source_page_url): directory URLs put pages one deeper.
        return html.replace(f'<a {REBASE} href="', f'<a {REBASE} href="../') if (
            config.use_directory_urls and page.file.name != "index") else html

    # Around Material's search plugin (0): pages whose entries are kept are not indexed again.
    @event_priority(100)
    def _before_search(self, context, page, config, nav):
        search = config.plugins.get("material/search")
        if self.kept_search is not None and search is not None and search.config.enabled:
            self.kept_search.before(page, dict(search.config))
        return context

    @event_priority(-100)
    def _after_search(self, context, page, config, nav):
        if self.kept_search is not None:
            self.kept_search.after(page)
        return context

    on_page_context = CombinedEvent(_before_search, _after_search)

    def on_serve(self, server, config, builder):
        if self.config.enabled:
            # The build writes the published tree; the contributor edits the sources.
            server.unwatch(config.docs_dir)
            server.watch(str(self.sources))
        return server

    def on_post_page(self, output, page, config):
        if not self.config.enabled:
            return output
        # The hreflang pairs (and x-default) for search engines, each page folder given the sitemap Material
        # fetches for them (alternates.py). The offline copy's .html pages share folders, so it has none.
        if config.use_directory_urls:
            output = alternates.with_default(output, self.config.languages[0])
        else:
            output = _drop_alternates(output)
        return _language_base(output, page.file.dest_uri, self.config.languages)

    def on_post_template(self, output_content, template_name, config):
        if not self.config.enabled or not template_name.endswith(".html"):
            return output_content
        # The 404 page is a template, not a page: same head links, same useless sitemap requests. mkdocs-static-i18n
        # renders it once per language, each over the last at the site's root: keep each.
        output_content = _drop_alternates(output_content)
        if template_name == "404.html":
            self.not_found[config.theme.get("language") or self.config.languages[0]] = output_content
        return output_content

    # After mkdocs-static-i18n (-100) has built every language and written the merged search index.
    @event_priority(-200)
    def on_post_build(self, config):
        if not self.config.enabled or self.published is None:
            return
        if getattr(config.plugins.get("i18n"), "building", False):
            return  # the end of mkdocs-static-i18n's build of one more language: the index is not merged yet
        self.published.report.write(self.folder.report)
        try:
            not_found.write(self.not_found, Path(config.site_dir), self.config.languages,
                            urlsplit(config.site_url or "").path.rstrip("/") + "/")
        except not_found.NotFoundPageUnexpected as error:
            raise PluginError(f"404 page: {error}") from error
        if config.use_directory_urls:
            alternates.write_page_sitemaps(Path(config.site_dir), config.site_url, self.config.languages[0])
        if self.kept is not None:
            log.info(self.kept.finish())
        if self.kept_search is not None:
            self.kept_search.complete(Path(config.site_dir) / "search" / "search_index.json")
            log.info(self.kept_search.finish())
        _write_search_indexes(Path(config.site_dir), self.config.languages, self.settings)


def _write_search_indexes(site_dir: Path, languages: list[str], settings) -> None:
    """Each language's packed search index (torchnotes.publish.search_index), with the query expansion table."""
    try:
        sources = search_expand.Sources.load(settings.root, settings.search_synonyms)
        sizes, unheld = search_index.write_per_language(site_dir, languages, sources)
    except (search_index.UnexpectedIndex, search_expand.SynonymFileError, GlossaryError) as error:
        raise PluginError(f"search index: {error}") from error
    for synonym in unheld:  # a warning: `mkdocs build --strict` stops, `mkdocs serve` goes on
        log.warning(f"search synonyms: {synonym}")
    log.info("search index: " + ", ".join(f"{lang} {size / 1024:.0f} KB" for lang, size in sizes.items()))


_HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def _drop_alternates(html: str) -> str:
    # In the head only: the pattern's leading whitespace makes a search of the whole page cost 2 ms a page.
    end = html.find("</head>")
    return _HEAD_ALTERNATE.sub("", html) if end < 0 else _HEAD_ALTERNATE.sub("", html[:end]) + html[end:]
_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base":\s*)"[^"]*"')


def _language_base(output: str, dest_uri: str, languages: list[str]) -> str:
    """Material reads search/search_index.json, and resolves result links, against "base" in its __config, which is
    the site root on every page: point it at the page's language root, where search_index.write_per_language wrote
    that language's index."""
    parts = dest_uri.split("/")
    if parts[0] not in languages[1:]:
        return output
    base = "/".join([".."] * (len(parts) - 2)) or "."
    return _CONFIG_BASE.sub(lambda m: m.group(1) + json.dumps(base), output, count=1)
