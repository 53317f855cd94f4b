"""The publish step: pages and their execution results become one tree of plain Markdown per language.

    <out>/<lang>/<page>.md                  the page: prose, code, each code cell's outputs right under it
    <out>/<lang>/<page>/<page>.ipynb        the executed notebook (download link under the title)
    <out>/<lang>/<page>/<image>.png         images the cells drew
    <out>/<lang>/assets/...                 everything under docs/ that is not a page (CSS, JS, fonts)

Any generator that reads Markdown with Material's extensions builds this tree (MkDocs + Material, Zensical):
assets sit in a folder named after the page, which is the page's own URL under directory URLs, so a bare
file name links from the page in every generator. Nothing here imports a generator. A file whose bytes
did not change is not rewritten, so a generator's own incremental build sees only real changes.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from torchnotes import gpu as recorded
from torchnotes.engine.environment import Environment
from torchnotes.engine.results import PageResult, Report
from torchnotes.engine.scheduler import Engine
from torchnotes.engine.zygote import Zygotes
from torchnotes.errors import BuildFailed, NotebookError
from torchnotes.gpu import STORE_DIR, Store, provenance_text
from torchnotes.pages import tokens
from torchnotes.pages.checks import (
    as_paired,
    check_translations,
    notebook_text,
    page_paths,
    paired_notebook,
    paired_text,
)
from torchnotes.pages.freshness import Ledger, banner
from torchnotes.pages.read import Page, Reader
from torchnotes.publish.render import Conversions, RenderContext, render_markdown
from torchnotes.publish.report import REPORT_MARKER, report_markdown
from torchnotes.publish.script import Scripts, script_name
from torchnotes.publish.untranslated import untranslated
from torchnotes.settings import Settings
from torchnotes.storage import file_digest, write_atomically
from torchnotes.strings import strings
from torchnotes.versions.changes import CHANGES_MARKER, DRIFT_REPORT, changes_markdown, compare, drift_report

PUBLISHED_META = ("title", "description", "search")  # front matter the generators read; the rest is the engine's


@dataclass
class Session:
    """What one preview keeps across its rebuilds, so that a rebuild redoes only what changed: the pages read
    (Reader), the outputs and paragraphs converted (Conversions) and the zygotes (their torch imported)."""

    reader: Reader
    conversions: Conversions = field(default_factory=Conversions)
    zygotes: Zygotes = field(default_factory=Zygotes)

    @classmethod
    def for_settings(cls, settings: Settings) -> Session:
        return cls(Reader(settings.path("cache_dir") / "parsed"))

    def close(self) -> None:
        self.zygotes.close()


@dataclass
class Published:
    report: Report
    out: Path
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    notebooks: list[Path] = field(default_factory=list)  # paired notebooks under notebooks/ brought in sync
    kept: int = 0

    def summary_line(self) -> str:
        return (f"published {len(self.written)} changed file(s), kept {self.kept}, removed {len(self.removed)}; "
                f"{len(self.notebooks)} notebook(s) synced")


class Publisher:
    def __init__(self, settings: Settings, env: Environment, *, mode: str | None = None, jobs: int | None = None,
                 log: Callable[[str], None] = print, session: Session | None = None):
        """session: what a `mkdocs serve` keeps across its rebuilds; without one, this publisher's own."""
        self.settings = settings
        self.env = env
        self.log = log
        self.store = Store(settings.root / STORE_DIR, settings.docs_dir)
        self.engine = Engine.from_settings(settings, env, jobs=jobs or settings.jobs or None,
                                           mode=mode or settings.execute, log=log,
                                           reader=session.reader if session else None,
                                           zygotes=session.zygotes if session else None)
        self.reader = self.engine.reader
        self.conversions = session.conversions if session else Conversions()

    def pages(self) -> list[Path]:
        return [p for lang in self.settings.languages for p in page_paths(self.settings.docs_dir, lang)]

    def run(self, out: Path | None = None, *, sync: bool = True) -> Published:
        """Check, execute what the cache lacks, and write the tree; raises BuildFailed listing every broken page."""
        s = self.settings
        out = Path(out) if out is not None else s.path("publish_dir")
        errors: list[NotebookError] = check_translations(s.docs_dir, s.languages)
        errors += [e for path in self.pages() for e in tokens.check_tokens(path, None)]
        # A damaged GPU recording stops the build, naming the file; stale or missing ones are warnings.
        gpu_warnings, gpu_errors = recorded.check(self.store, self.pages(), reader=self.reader)
        errors += gpu_errors
        if errors:
            raise BuildFailed(errors)
        for warning in gpu_warnings:
            self.log(f"warning: {warning.message.splitlines()[0]}")
        report = self.engine.run(self.pages())
        self.log(report.summary_line())
        if report.failures:
            raise BuildFailed(report.failures)
        result = Published(report, out)
        self.scripts = Scripts(s.path("cache_dir") / "scripts")
        self.stale = {item.page.resolve(): item for item in Ledger(s.root, s.docs_dir, s.languages, self.reader).stale()}
        # What the compared torch releases print, from the cache (python -m torchnotes versions ran them).
        self.comparison = compare(s, report.results, self.log)
        # For the PR summary (python -m torchnotes summary), which reads the cache folder, not the pages.
        write_if_changed(s.path("cache_dir") / DRIFT_REPORT, drift_report(self.comparison).encode())
        if sync:
            result.notebooks = sync_notebooks(s, report.results, self.reader)
        wanted: set[Path] = set()
        for page_result in report.results:
            self._publish_page(page_result, report, out, wanted, result)
        for lang in s.languages:
            self._copy_assets(out / lang, wanted, result)
        for stale in sorted(p for p in out.rglob("*") if p.is_file() and p not in wanted):
            stale.unlink()
            result.removed.append(stale)
        result.kept = len(wanted) - len(result.written)
        self.scripts.prune()
        self.conversions.forget_unused()
        return result

    # ------------------------------------------------------------------------------------------------

    def _publish_page(self, result: PageResult, report: Report, out: Path, wanted: set[Path], published: Published):
        s = self.settings
        page = result.source
        source = Path(page.path)
        rel = source.relative_to(s.docs_dir)
        lang, rel_in_lang = rel.parts[0], Path(*rel.parts[1:])
        target = out / rel
        assets = target.parent if target.stem == "index" else target.parent / target.stem
        stem = target.stem

        def write(path: Path, data: bytes) -> None:
            wanted.add(path)
            if write_if_changed(path, data):
                published.written.append(path)

        def image(name: str, raw: bytes) -> str:
            write(assets / name, raw)
            return (assets / name).relative_to(target.parent).as_posix()  # from the page's source file

        ctx = RenderContext(lang=lang, device=self.env.device, cuda=self.env.cuda, image_sink=image, stem=stem,
                            recorded={} if self.env.cuda else self.store.states(page),
                            drift=self.comparison.by_cell(result.page), primary=self.comparison.primary,
                            tokens=tokens.values(self.env.torch), conversions=self.conversions)
        body = render_markdown(page, result.outputs, ctx)
        if CHANGES_MARKER in body:
            body = body.replace(CHANGES_MARKER, changes_markdown(self.comparison, report.results, lang, s.docs_dir, s.root))
        if REPORT_MARKER in body:
            gpu = recorded.report_markdown(recorded.report_rows(self.store, s.docs_dir, lang, reader=self.reader), lang)
            body = body.replace(REPORT_MARKER, report_markdown(report, lang, s.root, s.docs_dir) + "\n" + gpu)
        body = untranslated(body, lang, s.languages[0], rel_in_lang)
        stale = self.stale.get(source.resolve())
        if stale is not None:
            body = _after_title(body, banner(stale, lang, rel_in_lang))
        if result.status != "static":
            executed = executed_notebook(page, result.outputs, tokens.values(self.env.torch))
            write(assets / f"{stem}.ipynb", notebook_text(executed, self.reader).encode())
            write(assets / script_name(stem), self.scripts.script(page, result.outputs, self._script_header(page, lang)).encode())
            body = _after_title(body, self._provenance(result, page, lang, stem, rel_in_lang))
        write(target, (front_matter(page) + body).encode())

    def _provenance(self, result: PageResult, page: Page, lang: str, stem: str, rel_in_lang: Path) -> str:
        w = strings(lang)
        env = self.env
        line = w["provenance"].format(torch=env.torch, device=env.device, python=env.python, date=result.date,
                                      seconds=w["seconds"].format(result.run_seconds))
        # Markdown links, resolved against the page's source file by every generator (raw HTML links are not).
        notebook_link = f"{stem}.ipynb" if stem == "index" else f"{stem}/{stem}.ipynb"
        links = [f'[{w["download"]}]({notebook_link}){{ download }}',
                 f'[{w["download_py"]}]({notebook_link[:-len(stem + ".ipynb")]}{script_name(stem)}){{ download }}']
        s = self.settings
        if s.github_repo:
            notebook = Path(s.notebooks_dir) / lang / rel_in_lang.with_suffix(".ipynb")
            colab = f"https://colab.research.google.com/github/{s.github_repo}/blob/{s.branch}/{notebook.as_posix()}"
            links.append(f'[{w["colab"]}]({colab}){{ rel=noopener }}')
        compared = self.comparison.compared.get(result.page)
        if compared:
            line += " · " + w["compared"].format(versions=", ".join(compared))
        gpu = "" if self.env.cuda else provenance_text(self.store, page, lang)
        if gpu:
            line += " · " + html.escape(gpu)
        return f'{line} · {" · ".join(links)}\n{{ .nb-provenance data-search-exclude }}'

    def _script_header(self, page: Page, lang: str) -> str:
        w = strings(lang)
        return w["script_header"].format(title=page.meta.get("title", ""), torch=self.env.torch,
                                         device=self.env.device, source=Path(page.path).name,
                                         source_py=script_name(Path(page.path).stem))

    def _copy_assets(self, lang_out: Path, wanted: set[Path], published: Published) -> None:
        """Files under docs/ that are not pages: shared ones (docs/assets) go into every language's tree."""
        s = self.settings
        lang = lang_out.name
        roots = [(s.docs_dir / lang, lang_out)]
        roots += [(p, lang_out / p.name) for p in sorted(s.docs_dir.iterdir())
                  if p.is_dir() and p.name not in s.languages]
        for src_root, dst_root in roots:
            for src in sorted(src_root.rglob("*")):
                if src.is_file() and src.suffix != ".md":
                    dst = dst_root / src.relative_to(src_root)
                    wanted.add(dst)
                    if copy_if_changed(src, dst):
                        published.written.append(dst)


def sync_notebooks(s: Settings, results: list[PageResult], reader: Reader | None = None) -> list[Path]:
    """Keep notebooks/ paired with the pages as they are now: a contributor never runs `sync` by hand."""
    notebooks = s.path("notebooks_dir")
    changed = []
    for result in results:
        paired = paired_notebook(result.source.path, s.docs_dir, notebooks)
        if result.status == "static":
            if paired.exists():
                paired.unlink()
                changed.append(paired)
            continue
        if write_if_changed(paired, paired_text(result.source, reader).encode()):
            changed.append(paired)
    # A deleted page takes its notebook with it: otherwise a contributor commits an orphan.
    for lang in s.languages:
        for orphan in sorted((notebooks / lang).rglob("*.ipynb")):
            page = s.docs_dir / lang / orphan.relative_to(notebooks / lang).with_suffix(".md")
            if ".ipynb_checkpoints" not in orphan.parts and not page.exists():
                orphan.unlink()
                changed.append(orphan)
    return changed


def executed_notebook(page: Page, outputs: dict[str, list[dict]], values: dict | None = None) -> nbformat.NotebookNode:
    """The page as a notebook with its outputs, each under the cell whose id it was stored by, and the prose's
    tokens replaced (values: torchnotes.pages.tokens.values of the build's torch)."""
    notebook = as_paired(page.notebook)
    count = 0
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and values:
            cell.source = tokens.substitute(cell.source, values)
        if cell.cell_type != "code" or not outputs.get(cell.id):
            continue
        count += 1
        cell.execution_count = count
        cell.outputs = [nbformat.from_dict(o) for o in outputs[cell.id]]
        for out in cell.outputs:
            if "execution_count" in out:
                out.execution_count = count
    return notebook


def front_matter(page: Page) -> str:
    meta = {k: page.meta[k] for k in PUBLISHED_META if k in page.meta}
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000) + "---\n\n"


def write_if_changed(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomically(path, data)
    return True


def copy_if_changed(src: Path, dst: Path) -> bool:
    if dst.exists() and dst.stat().st_size == src.stat().st_size and file_digest(dst) == file_digest(src):
        return False
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return True


def _after_title(markdown: str, line: str) -> str:
    lines = markdown.split("\n")
    for index, text in enumerate(lines):
        if text.startswith("# "):
            return "\n".join(lines[: index + 1] + ["", line, ""] + lines[index + 1:])
    return line + "\n\n" + markdown
