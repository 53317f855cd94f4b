"""MkDocs adapter: publish the pages (execute, render) and let MkDocs build from the published tree.

Events:
- on_startup: marks the plugin to be kept across `mkdocs serve` rebuilds, so it publishes only on change, with
  one Session (torchnotes.publish.tree) for all of them; on_shutdown closes it.
- on_config: runs the publish step (torchnotes.publish.tree, no MkDocs inside) and points docs_dir at its tree;
  mkdocs-static-i18n then builds each language folder of that tree as usual. A rebuild whose sources are the
  same bytes as the last one's publishes nothing.
- on_nav to on_post_build: a `mkdocs build` that keeps little shares its pages with a fork (ahead.py).
- on_pre_build / on_files / on_nav: under `mkdocs serve --dirty` (scripts/serve.sh), a build of the changed pages
  only, with every page's title in the navigation, or a full one when what every page shows changed
  (torchnotes/generators/mkdocs/dirty.py).
- on_serve: watches the sources (docs/), not the published tree the build itself writes.
- on_files / on_page_markdown / on_page_content: pages whose input did not change take their HTML from the previous
  build through a Markdown extension (torchnotes/generators/mkdocs/kept_html.py) instead of being converted again.
- on_post_page / on_post_build: one search index per language, packed (torchnotes/publish/search_index.py).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

from jinja2 import FileSystemBytecodeCache
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from torchnotes.engine.environment import Environment, probe
from torchnotes.errors import BuildFailed
from torchnotes.generators.mkdocs import alternates, not_found, search_files
from torchnotes.generators.mkdocs.ahead import Ahead
from torchnotes.generators.mkdocs.config import NotebooksConfig
from torchnotes.generators.mkdocs.dirty import DirtyBuilds
from torchnotes.generators.mkdocs.kept_html import KeptHtml
from torchnotes.generators.mkdocs.kept_search import KeptSearch
from torchnotes.layout import CacheFolder
from torchnotes.log import Printed, logger
from torchnotes.pages.freshness import REBASE
from torchnotes.publish.kept_pages import sources_stamp, stat_inputs
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
        self.kept: KeptHtml | None = None  # with kept_search, made by the first on_config (_kept)
        self.kept_search: KeptSearch | None = None
        self.session: Session | None = None  # one per `mkdocs serve`: a rebuild redoes only what changed
        self.not_found: dict[str, str] = {}  # the 404 page of each language, by language
        self.digests: dict[Path, tuple] = {}  # each source file's (size, mtime) and the hash of its bytes
        self.serving, self.dirty = False, None  # on_startup: mkdocs serve, and its DirtyBuilds with --dirty
        self.ahead = Ahead(active=False)  # on_startup: mkdocs build shares a cold build's pages with a fork
        self.search_files = search_files.SearchFiles()  # each language's packed index, written again only when it changed

    def on_startup(self, *, command, dirty):
        # Defining on_startup is what makes MkDocs keep this instance (and its session) across serve rebuilds.
        self.serving, self.dirty = command == "serve", DirtyBuilds() if command == "serve" and dirty else None
        self.ahead = Ahead.for_command(command)

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
            self.session = Session.for_settings(self.settings, preview=self.serving)
        _ToMkDocs.attach()
        if self.kept is None:
            self.kept, self.kept_search = _kept(self.folder, Path(config.config_file_path), self.config,
                                                own_index=self.dirty is not None)
        stamp = (sources_stamp(self.sources, self.digests), repr(self.settings), stat_inputs(self.settings))
        if stamp != self.stamp or not publish_dir.exists():
            self.stamp = None  # a failed publish is never taken for a done one
            self.published = _publish(Publisher(self.settings, self.env, session=self.session), publish_dir)
            self.stamp = stamp
        config.docs_dir = str(publish_dir)
        if self.kept not in config.markdown_extensions:  # mkdocs serve loads the config again for each build
            config.markdown_extensions.append(self.kept)
        return config

    def on_pre_build(self, config):
        if not self.config.enabled or self.kept is None or _inner(config):
            return
        # The first language's build: a dirty one rebuilds what changed only, unless every page must change.
        partial = self.dirty is not None and self.dirty.start(config, _titles(self.published))
        self.kept.begin(partial)  # each build (mkdocs serve) counts afresh, also after a failed one
        self.kept_search.begin(partial)

    def _start_build(self, files, config):
        if self.kept is not None:
            self.kept.start_build(config, files)
        return files

    @event_priority(-200)  # after mkdocs-static-i18n (-100): the files of this language's build as they are built
    def _dirty_files(self, files, config):
        if self.dirty is not None and self.config.enabled:
            self.dirty.files(files)
        return files

    on_files = CombinedEvent(_start_build, _dirty_files)

    @event_priority(-200)  # after mkdocs-static-i18n (-100)
    def on_nav(self, nav, config, files):
        if self.dirty is not None and self.config.enabled:
            self.dirty.read_titles(nav, config)
        self.ahead.start(config, files, self.kept, self.kept_search)
        return nav

    def on_build_error(self, error):
        if self.dirty is not None:
            self.dirty.failed()
        self.ahead.wait()

    def on_env(self, env, config, files):
        return _with_bytecode_cache(env, self.folder.jinja) if self.kept is not None else env

    # Last: the page's Markdown is final; the conversion that follows is this page's.
    @event_priority(-100)
    def on_page_markdown(self, markdown, page, config, files):
        if self.kept is not None:
            self.kept.page = page.file.src_uri
        self.ahead.begun(page)
        return markdown

    def on_page_content(self, html, page, config, files):
        if self.kept is not None:
            self.kept.page = None
        return _rebased(html, page, config)

    # Around Material's search plugin (0): pages whose entries are kept are not indexed again.
    @event_priority(100)
    def _before_search(self, context, page, config, nav):
        self.ahead.writing(page)
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
            server.unwatch(config.docs_dir)  # the build writes the published tree; the contributor edits the sources
            server.watch(str(self.sources))
            if self.kept_search is not None and "zh" in self.config.languages:  # jieba cuts Chinese only
                self.kept_search.warm()
        return server

    def on_post_page(self, output, page, config):
        return _page_links(output, page.file.dest_uri, config, self.config.languages) if self.config.enabled else output

    def on_post_template(self, output_content, template_name, config):
        if not self.config.enabled or not template_name.endswith(".html"):
            return output_content
        return _kept_not_found(alternates.dropped(output_content), template_name, config, self.not_found, self.config.languages)

    # After mkdocs-static-i18n (-100) has built every language and written the merged search index.
    @event_priority(-200)
    def on_post_build(self, config):
        self.ahead.wait()  # this language's pages are written
        if not self.config.enabled or self.published is None:
            return
        if _inner(config):
            return  # the end of mkdocs-static-i18n's build of one more language: the index is not merged yet
        self.published.report.write(self.folder.report)
        _write_site_files(config, self.not_found, self.config.languages)
        if self.kept is not None:
            log.info(self.kept.finish())
        search_files.finish(self.kept_search, self.search_files, config, self.config.languages, self.settings)
        if self.dirty is not None:
            log.info(self.dirty.finish())


def _kept_not_found(output: str, template_name: str, config, not_found: dict[str, str], languages: list[str]) -> str:
    """The 404 page is a template, not a page: same head links, same useless sitemap requests. mkdocs-static-i18n
    renders it once per language, each over the last at the site's root: each is kept."""
    if template_name == "404.html":
        not_found[config.theme.get("language") or languages[0]] = output
    return output


def _with_bytecode_cache(env, folder: Path):
    """Templates compiled once across builds: Jinja's bytecode cache checks each template's source before it uses
    what it kept."""
    folder.mkdir(parents=True, exist_ok=True)
    env.bytecode_cache = FileSystemBytecodeCache(str(folder))
    return env


def _publish(publisher: Publisher, publish_dir: Path) -> Published:
    try:
        published = publisher.run(publish_dir)
    except BuildFailed as failed:
        raise PluginError(str(failed)) from failed
    log.info(published.summary_line())
    return published


def _kept(folder: CacheFolder, config_file: Path, options: NotebooksConfig, *,
          own_index: bool) -> tuple[KeptHtml, KeptSearch]:
    """What a build keeps of the previous one, pages' HTML and search entries: one folder per config file, so the
    offline copy's build (mkdocs.offline.yml) keeps its own."""
    words = config_file.resolve().parent / options.search_words if options.search_words else None
    return (KeptHtml(folder.kept_html(config_file.stem)),
            KeptSearch(folder.kept_search(config_file.stem), words, own_index=own_index))


def _page_links(output: str, dest_uri: str, config, languages: list[str]) -> str:
    """The hreflang pairs (and x-default) for search engines, each page folder given the sitemap Material fetches for
    them (alternates.py). The offline copy's .html pages share folders, so it has none. Then search's base."""
    if config.use_directory_urls:
        output = alternates.with_default(output, languages[0])
    else:
        output = alternates.dropped(output)
    return search_files.language_base(output, dest_uri, languages)


def _rebased(html: str, page, config) -> str:
    """Links written relative to the source file (freshness.source_page_url): directory URLs put pages one deeper."""
    return html.replace(f'<a {REBASE} href="', f'<a {REBASE} href="../') if (
        config.use_directory_urls and page.file.name != "index") else html


def _write_site_files(config, not_found_pages: dict[str, str], languages: list[str]) -> None:
    """The one 404 page (not_found.py) and each page folder's sitemap (alternates.py)."""
    try:
        not_found.write(not_found_pages, Path(config.site_dir), languages,
                        urlsplit(config.site_url or "").path.rstrip("/") + "/")
    except not_found.NotFoundPageUnexpected as error:
        raise PluginError(f"404 page: {error}") from error
    if config.use_directory_urls:
        alternates.write_page_sitemaps(Path(config.site_dir), config.site_url, languages[0])


def _titles(published: Published | None) -> dict[str, str]:
    """Each page's title by its source (the navigation's, as dirty.py compares them)."""
    results = published.report.results if published else []
    return {r.page: str(r.source.meta.get("title")) for r in results if r.source is not None}


def _inner(config) -> bool:
    """Whether this is mkdocs-static-i18n's build of a language after the first (it runs it from on_post_build)."""
    return bool(getattr(config.plugins.get("i18n"), "building", False))


