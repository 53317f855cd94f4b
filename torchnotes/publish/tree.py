"""The publish step: pages and their execution results become one tree of plain Markdown per language.

    <out>/<lang>/<page>.md                  the page: prose, code, each code cell's outputs right under it
    <out>/<lang>/<page>/<page>.ipynb        the executed notebook (download link under the title)
    <out>/<lang>/<page>/<image>.png         images the cells drew
    <out>/<lang>/assets/...                 everything under docs/ that is not a page (CSS, JS, fonts)

Any generator that reads Markdown with Material's extensions builds this tree (MkDocs + Material, Zensical):
assets sit in a folder named after the page, which is the page's own URL under directory URLs, so a bare
file name links from the page in every generator. Nothing here imports a generator. A file whose bytes
did not change is not rewritten, so a generator's own incremental build sees only real changes.

What a page gets besides its rendered cells (provenance, GPU recordings, version pills, banners, downloads) is
the business of the page features (torchnotes/publish/features/): this module checks, executes, and hands each
page to them in order.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from torchnotes.engine.scheduler import Engine, Report, Run
from torchnotes.errors import BuildFailed
from torchnotes.publish.features import FEATURES, Build, PageOut
from torchnotes.publish.kept_pages import page_key, site_key
from torchnotes.publish.render import Conversions, RenderContext, render_markdown
from torchnotes.publish.session import Session
from torchnotes.storage import copy_if_changed, write_if_changed

logger = logging.getLogger(__name__)  # under the build's logger, torchnotes (torchnotes/log.py)

PUBLISHED_META = ("title", "description", "search")  # front matter the generators read; the rest is the engine's


@dataclass
class Published:
    report: Report
    out: Path
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    notebooks: list[Path] = field(default_factory=list)  # paired notebooks under notebooks/ brought in sync
    kept: int = 0
    reused: int = 0  # pages whose files a preview session kept from its previous runs (kept_pages.py)

    def summary_line(self) -> str:
        reused = f"; {self.reused} of {len(self.report.results)} pages as rendered before" if self.reused else ""
        return (f"published {len(self.written)} changed file(s), kept {self.kept}, removed {len(self.removed)}; "
                f"{len(self.notebooks)} notebook(s) synced{reused}")


class Publisher:
    def __init__(self, settings, env, *, mode: str | None = None, jobs: int | None = None,
                 session: Session | None = None, sync: bool = True):
        """settings: torchnotes.settings.Settings; env: the Environment the pages run in; session: what a
        `mkdocs serve` keeps across its rebuilds (without one, this publisher's own); sync: bring notebooks/ in
        sync with the pages."""
        self.settings = settings
        self.env = env
        self.engine = Engine(settings, env, reader=session.reader if session else None,
                             zygotes=session.zygotes if session else None, run=Run(mode=mode, jobs=jobs))
        self.reader = self.engine.reader
        self.conversions = session.conversions if session else Conversions()
        self.kept = session.pages if session else None  # each page's files, from the session's previous runs
        self.build = Build(settings, env, self.reader, sync=sync)
        if session is not None:
            self.build.memo = session.memo
        self.features = [feature(self.build) for feature in FEATURES]
        self.build.features = self.features

    def run(self, out: Path | None = None) -> Published:
        """Check, execute what the cache lacks, and write the tree; raises BuildFailed listing every broken page."""
        settings = self.settings
        out = Path(out) if out is not None else settings.path("publish_dir")
        pages = self.build.pages
        self.engine.start_early(pages)
        try:
            errors = [error for feature in self.features for error in feature.check(pages)]
            if errors:
                raise BuildFailed(errors)
            report = self.engine.run(pages)
        finally:
            self.engine.close_early()  # the checks stopped the build before any kernel
        logger.info(report.summary_line())
        if report.failures:
            raise BuildFailed(report.failures)
        self.build.report = report
        for feature in self.features:
            feature.start()
        result = Published(report, out)
        result.notebooks = [path for feature in self.features for path in getattr(feature, "synced", [])]
        wanted: set[Path] = set()
        site = site_key(settings, self.env, pages, out) if self.kept is not None else None
        try:
            for page_result in report.results:
                self._publish_page(page_result, out, wanted, result, site)
        except BaseException:
            if self.kept is not None:
                self.kept.forget()  # a page half written: nothing kept may be trusted
            raise
        if self.kept is not None:
            self.kept.keep_only({r.page for r in report.results})
        for lang in settings.languages:
            self._copy_assets(out / lang, wanted, result)
        for stale in sorted(p for p in out.rglob("*") if p.is_file() and p not in wanted):
            stale.unlink()
            result.removed.append(stale)
        result.kept = len(wanted) - len(result.written)
        for feature in self.features:
            feature.finish()
        if not result.reused:  # the conversions of the pages kept were not asked for, and will be again
            self.conversions.forget_unused()
        return result

    def _publish_page(self, result, out: Path, wanted: set[Path], published: Published, site: str | None) -> None:
        rel = Path(result.source.path).relative_to(self.settings.docs_dir)
        target = out / rel
        page = PageOut(result, lang=rel.parts[0], rel=Path(*rel.parts[1:]), target=target,
                       assets=target.parent if target.stem == "index" else target.parent / target.stem)
        files: dict[Path, bytes] = {}

        def write(path: Path, data: bytes) -> None:
            files[path] = data
            wanted.add(path)
            if write_if_changed(path, data):
                published.written.append(path)

        key = None
        if site is not None:
            # The page in every language: a translation's banner compares it with its original.
            texts = [self._read_text(self.settings.docs_dir / lang / page.rel) for lang in self.settings.languages]
            key = page_key(site, result, self._read_text(result.source.path), texts)
            kept = self.kept.get(result.page, key)
            if kept is not None:
                published.reused += 1
                for path, data in kept.items():
                    write(path, data)
                return

        def image(name: str, raw: bytes) -> str:
            write(page.assets / name, raw)
            return (page.assets / name).relative_to(target.parent).as_posix()  # from the page's source file

        fields = {key: value for feature in self.features for key, value in feature.context(page).items()}
        ctx = RenderContext(lang=page.lang, device=self.env.device, cuda=self.env.cuda, image_sink=image,
                            stem=page.stem, conversions=self.conversions, **fields)
        body = render_markdown(result.source, result.outputs, ctx)
        for feature in self.features:
            body = feature.page(page, body)
            for name, data in feature.files(page).items():
                write(page.assets / name, data)
        write(target, (front_matter(result.source) + body).encode())
        if self.kept is not None:
            self.kept.keep(result.page, key, files)

    def _read_text(self, path) -> str:
        """The text of a page as this run's reader parsed it ("" for a page it did not read): the key is made
        from what was rendered, even when the file is saved again meanwhile."""
        known = self.reader.pages.get(Path(path))
        return known[0] if known is not None else ""

    def _copy_assets(self, lang_out: Path, wanted: set[Path], published: Published) -> None:
        """Files under docs/ that are not pages: shared ones (docs/assets) go into every language's tree."""
        settings = self.settings
        roots = [(settings.docs_dir / lang_out.name, lang_out)]
        roots += [(p, lang_out / p.name) for p in sorted(settings.docs_dir.iterdir())
                  if p.is_dir() and p.name not in settings.languages]
        for src_root, dst_root in roots:
            for src in sorted(src_root.rglob("*")):
                if src.is_file() and src.suffix != ".md":
                    dst = dst_root / src.relative_to(src_root)
                    wanted.add(dst)
                    if copy_if_changed(src, dst):
                        published.written.append(dst)


def front_matter(page) -> str:
    meta = {k: page.meta[k] for k in PUBLISHED_META if k in page.meta}
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000) + "---\n\n"
