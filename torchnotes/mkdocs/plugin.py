"""Executed notebooks as native Material pages.

Events:
- on_startup: marks the plugin to be kept across `mkdocs serve` rebuilds, so its memo of results survives.
- on_config: resolves paths and probes the environment once.
- on_files: runs the checks and the engine over every page of every language, once per build cycle
  (mkdocs-static-i18n builds each language in turn; the second pass finds everything memoised).
- on_page_markdown: replaces the page's Markdown with its cells and outputs, plus provenance and links.
- on_post_build: writes the execution report and gives each language a search index of its own.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from ..cache import Cache
from ..checks import check_translations, notebook_text, page_paths, sync_pairs
from ..engine import Engine, PageResult, Report
from ..environment import Environment, probe
from ..errors import BuildFailed
from ..publish import executed_notebook, write_if_changed
from ..render import RenderContext, render_markdown
from ..report import REPORT_MARKER, report_markdown
from ..strings import strings
from .config import NotebooksConfig

log = logging.getLogger("mkdocs.plugins.torchnotes")


class NotebooksPlugin(BasePlugin[NotebooksConfig]):
    def __init__(self):
        self.env: Environment | None = None
        self.report: Report | None = None
        self.results: dict[Path, PageResult] = {}
        self.fingerprint: tuple | None = None

    def on_startup(self, *, command, dirty):
        # Defining on_startup is what makes MkDocs keep this instance (and its memo) across serve rebuilds.
        pass

    def on_config(self, config):
        if not self.config.enabled:
            return config
        self.root = Path(config.config_file_path).resolve().parent
        self.docs_dir = Path(config.docs_dir).resolve()
        self.notebooks_dir = self.root / self.config.notebooks_dir
        if self.env is None:
            self.env = probe(self.root / self.config.requirements)
        return config

    # Before mkdocs-static-i18n (-100) reshapes the files per language: we want every page of every language.
    @event_priority(50)
    def on_files(self, files, config):
        if not self.config.enabled:
            return files
        langs = self.config.languages
        paths = [p for lang in langs for p in page_paths(self.docs_dir, lang)]
        stamp = tuple((p, p.stat().st_mtime_ns) for p in paths)
        if stamp == self.fingerprint:
            return files
        # The build keeps notebooks/ paired with the pages itself: a preview survives the first edit.
        # `python -m torchnotes check` (CI) still fails on a committed notebook that is out of date.
        for path in sync_pairs(self.docs_dir, self.notebooks_dir, langs):
            log.info(f"synced {path}")
        errors = check_translations(self.docs_dir, langs)
        engine = Engine(
            Cache(self.root / self.config.cache_dir), self.env, root=self.root, jobs=self.config.jobs or None,
            timeout=self.config.timeout, kernel=self.config.kernel, memory_limit_mb=self.config.memory_limit_mb,
            mode=self.config.execute, log=log.info,
        )
        self.report = engine.run(paths)
        log.info(self.report.summary_line())
        errors += self.report.failures
        for error in errors:
            # Name files as the contributor sees them in the repository.
            if error.path.is_absolute() and error.path.is_relative_to(self.root):
                error.path = error.path.relative_to(self.root)
        if errors:
            self.fingerprint = None
            raise PluginError(str(BuildFailed(errors)))
        self.results = {p.resolve(): r for p, r in zip(paths, self.report.results)}
        self.fingerprint = stamp
        return files

    def on_page_markdown(self, markdown, page, config, files):
        if not self.config.enabled:
            return markdown
        source = Path(page.file.abs_src_path).resolve()
        result = self.results.get(source)
        if result is None:
            return markdown
        lang = source.relative_to(self.docs_dir).parts[0]
        if REPORT_MARKER in markdown:
            return markdown.replace(REPORT_MARKER, report_markdown(self.report, lang, self.root, self.docs_dir))
        out_dir = Path(config.site_dir) / Path(page.file.dest_uri).parent
        stem = source.stem

        def image_sink(name: str, raw: bytes) -> str:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / name).write_bytes(raw)
            return name

        ctx = RenderContext(lang=lang, device=self.env.device, cuda=self.env.cuda, image_sink=image_sink, stem=stem)
        body = render_markdown(result.source, result.outputs, ctx)
        if result.status == "static":
            return body
        write_if_changed(out_dir / f"{stem}.ipynb", notebook_text(executed_notebook(result.source, result.outputs)).encode())
        return _after_title(body, self._provenance(source, result, lang, stem))

    def on_post_page(self, output, page, config):
        if not self.config.enabled:
            return output
        # Material fetches <href>/sitemap.xml for every <link rel="alternate"> in the head; mkdocs-static-i18n
        # makes those per page, so every page asked for two sitemaps that do not exist (404). The hreflang pairs
        # stay in sitemap.xml, and the header's language menu already links to the same page.
        output = _HEAD_ALTERNATE.sub("", output)
        # Material reads search/search_index.json, and resolves result links, against "base" in its __config,
        # which is the site root on every page: point it at the page's language root, where
        # _split_search_index wrote that language's index.
        parts = page.file.dest_uri.split("/")
        if parts[0] in self.config.languages[1:]:
            base = "/".join([".."] * (len(parts) - 2)) or "."
            output = _CONFIG_BASE.sub(lambda m: m.group(1) + json.dumps(base), output, count=1)
        return output

    def on_post_template(self, output_content, template_name, config):
        # The 404 page is a template, not a page: same head links, same useless sitemap requests.
        if self.config.enabled and template_name.endswith(".html"):
            return _HEAD_ALTERNATE.sub("", output_content)
        return output_content

    # After mkdocs-static-i18n (-100) has built every language and written the merged search index.
    @event_priority(-200)
    def on_post_build(self, config):
        if not self.config.enabled or self.report is None:
            return
        self.report.write(self.root / self.config.cache_dir / "report.json")
        _split_search_index(Path(config.site_dir), self.config.languages)

    # ------------------------------------------------------------------------------------------------

    def _provenance(self, source: Path, result: PageResult, lang: str, stem: str) -> str:
        labels = strings(lang)
        env = self.env
        seconds = labels["seconds"].format(result.run_seconds)
        line = labels["provenance"].format(torch=env.torch, device=env.device, python=env.python,
                                           date=result.date, seconds=seconds)
        rel = source.relative_to(self.docs_dir).with_suffix(".ipynb").as_posix()
        links = [f'<a href="{stem}.ipynb" download>{labels["download"]}</a>']
        if self.config.github_repo:
            colab = (f"https://colab.research.google.com/github/{self.config.github_repo}/blob/"
                     f"{self.config.branch}/{self.config.notebooks_dir}/{rel}")
            links.append(f'<a href="{colab}" rel="noopener">{labels["colab"]}</a>')
        return f'<p class="nb-provenance">{line} · {" · ".join(links)}</p>'


_HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')
_CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">\{[^<]*?"base":\s*)"[^"]*"')


def _after_title(markdown: str, line: str) -> str:
    lines = markdown.split("\n")
    for index, text in enumerate(lines):
        if text.startswith("# "):
            return "\n".join(lines[: index + 1] + ["", line, ""] + lines[index + 1:])
    return line + "\n\n" + markdown


def _split_search_index(site_dir: Path, langs: list[str]) -> None:
    """One index per language: a Chinese reader's search returns Chinese pages only, and likewise English."""
    merged = site_dir / "search" / "search_index.json"
    if not merged.exists():
        return
    index = json.loads(merged.read_text(encoding="utf-8"))
    default, others = langs[0], langs[1:]
    for lang in [default] + others:
        prefix = "" if lang == default else f"{lang}/"

        def mine(doc, lang=lang, prefix=prefix):
            location = doc["location"]
            if lang == default:
                return not any(location.startswith(f"{o}/") for o in others)
            return location.startswith(prefix)

        docs = [dict(d, location=d["location"][len(prefix):]) for d in index["docs"] if mine(d)]
        target = site_dir / prefix / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(dict(index, docs=docs), ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
