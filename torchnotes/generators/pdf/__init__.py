"""The PDF book: one per language, printed from the built site (the same executed pages, outputs capped as on
the site) by Chromium, with an outline, a clickable contents page and the build's provenance on its title page.

    python -m torchnotes pdf [--config mkdocs.yml] [--site site] [--out site/pdf] [--lang en --lang zh]

writes <out>/pytorch-notes-<lang>.pdf. Generator-neutral: it reads the site's HTML and mkdocs.yml's nav, and
nothing in the engine or the MkDocs adapter knows of it. A failure leaves no PDF half-written.
"""

from __future__ import annotations

import html
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from torchnotes.engine.environment import probe
from torchnotes.errors import PdfSiteMissing
from torchnotes.generators.pdf import keep, printer
from torchnotes.generators.pdf.book import (
    Entry,
    contents,
    head_styles,
    languages,
    latest_date,
    load_config,
    nav_entries,
    page_article,
    part_anchor,
    title_page,
)
from torchnotes.log import logger
from torchnotes.pages.read import read_page
from torchnotes.settings import load
from torchnotes.strings import strings

FILE_NAME = "pytorch-notes-{lang}.pdf"
FRONT = "front.html"
KATEX = "assets/katex/katex.min.js"

# Print-only rules on top of the site's own stylesheets: long lines and outputs wrap inside the page, folds
# are open, every tab shows, each page of the site starts a new sheet.
CSS = """
@page { size: A4; }
html { font-size: 100%; }
body { margin: 0; background: #fff; }
.md-typeset { font-size: 10pt; line-height: 1.5; }
.md-typeset pre, .md-typeset pre > code, .md-typeset code { white-space: pre-wrap !important;
  overflow-wrap: anywhere; word-break: break-word; max-height: none !important; overflow: visible !important; }
.md-typeset pre > code { font-size: 8pt; }
.md-typeset table:not([class]) { display: table; max-width: 100%; font-size: 8pt; }
.md-typeset td, .md-typeset th { overflow-wrap: anywhere; }
.md-typeset img { max-width: 100%; height: auto; break-inside: avoid; }
.md-typeset .tabbed-set > .tabbed-labels { display: none; }
.md-typeset .tabbed-content > .tabbed-block { display: block !important; }
.md-typeset .tabbed-content > .tabbed-block::before { content: attr(data-book-label); font-weight: 700; display: block; }
.md-typeset .highlight, .md-typeset .nb-output { break-inside: auto; }
.book-page, .book-part, .book-toc { break-before: page; }
.book-part + .book-page, .book-part + .book-part { break-before: avoid; }
.book-part { font-size: 20pt; margin: 0 0 1em; color: var(--md-primary-fg-color); }
.book-title { text-align: center; padding-top: 30vh; }
.book-title h1 { font-size: 30pt; margin-bottom: 0.5em; }
.book-subtitle { font-size: 13pt; }
.book-provenance, .book-url { font-size: 9pt; color: #555; }
.book-nowrap { white-space: nowrap; }
.book-toc a { display: flex; text-decoration: none; color: inherit; padding: 0.1em 0; }
.book-toc .book-toc-title { flex: 1; }
.book-toc .book-toc-number { min-width: 3em; text-align: right; }
.book-toc .book-toc-part { font-weight: 700; margin-top: 0.6em; }
.book-toc .depth-1 { padding-left: 1.5em; } .book-toc .depth-2 { padding-left: 3em; }
"""

# Renders the math the way the site's katex-init.js does, then tells the printer the book is ready.
SCRIPT = """
document.querySelectorAll(".tabbed-set").forEach((set) => {
  const labels = set.querySelectorAll(".tabbed-labels > label");
  set.querySelectorAll(".tabbed-content > .tabbed-block").forEach((block, i) => {
    if (labels[i]) block.dataset.bookLabel = labels[i].textContent.trim(); });
});
if (window.katex) document.querySelectorAll(".arithmatex").forEach((el) => {
  const text = el.textContent || "";
  const display = text.startsWith("\\\\[") || el.tagName === "DIV";
  const tex = text.replace(/^\\\\[\\[(]/, "").replace(/\\\\[\\])]$/, "");
  katex.render(tex, el, { displayMode: display, throwOnError: false });
});
document.body.dataset.bookReady = "1";
"""


def build(config_file: Path, site: Path, out: Path, langs: list[str] | None = None) -> list[Path]:
    """Print one book per language into out; the site, its math assets and every font are checked before anything
    is printed or any folder made."""
    # Chromium opens the book and its assets by file:// URL, which only an absolute path has.
    config_file, site, out = Path(config_file).resolve(), Path(site).resolve(), Path(out).resolve()
    settings = load(config_file)
    config = load_config(config_file)
    langs = langs or list(settings.languages)
    check_site(site, config)
    targets = {lang: out / FILE_NAME.format(lang=lang) for lang in langs}
    for lang, target in targets.items():
        printer.check_font(lang, target)
    env = probe(settings.root / settings.requirements)
    out.mkdir(parents=True, exist_ok=True)
    store = keep.folder(settings.path("cache_dir"))
    default = languages(config).default
    keys = {lang: keep.book_key(site, out, config_file, lang, env.key(),
                                tuple(other for other in settings.languages if other != default) if lang == default else ())
            for lang in targets}
    # A book printed before from the same files is a copy (checked again under its lock before printing).
    to_print = [lang for lang, target in targets.items() if not keep.copy(store, keys[lang], target)]
    jobs = [(config_file, site, lang, targets[lang], env, store, keys[lang]) for lang in to_print]
    if len(jobs) > 1:
        # One Chromium per book, side by side: a print is one browser laying out the whole book, most of it on
        # one core, after Python has parsed every page of the site for it. A fresh interpreter each (spawn):
        # nothing of this process, Playwright's state included, is shared.
        with ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            printed = dict(zip(to_print, [future.result() for future in [pool.submit(print_one, *job) for job in jobs]]))
    else:
        printed = {job[2]: print_one(*job) for job in jobs}
    for lang, target in targets.items():
        pages, copied = printed.get(lang) or (len(nav_entries(config, settings.docs_dir, lang)), True)
        logger.info(f"pdf: {target} ({pages} pages of the nav, {target.stat().st_size / 1e6:.1f} MB"
                    f"{'; the same book as printed before, copied from ' + str(store) if copied else ''})")
    return list(targets.values())


def print_one(config_file: Path, site: Path, lang: str, target: Path, env, store: Path, key: str) -> tuple[int, bool]:
    """One language's book into target, printed and kept, unless another printer of the same book kept it while
    this one waited for its lock; returns the number of the nav's pages it holds and whether it was a copy."""
    settings, config = load(config_file), load_config(config_file)
    entries = nav_entries(config, settings.docs_dir, lang)
    with keep.held(store, key), tempfile.TemporaryDirectory(prefix="torchnotes-pdf-") as tmp:
        copied = keep.copy(store, key, target)
        if not copied:
            book, meta = write_book(config, site, lang, entries, env, Path(tmp), settings.docs_dir)
            raw = Path(tmp) / "book.pdf"
            printer.print_book(book, book.with_name(FRONT), raw, meta["/Title"])
            printer.check_embedded_cjk(lang, raw, target)
            printer.finish(raw, target, outline(entries), meta)
            keep.keep(store, key, target)
    return len(entries), copied


def check_site(site: Path, config: dict) -> None:
    """A built site, with KaTeX where its pages have math: otherwise the book would print raw TeX."""
    if not (site / "index.html").is_file():
        state = "does not exist" if not site.exists() else "holds no index.html (not a built site)"
        raise PdfSiteMissing(site, f"the site folder {state}")
    if not (site / KATEX).is_file() and any(_has_math(page) for page in site.rglob("index.html")):
        raise PdfSiteMissing(site / KATEX, "the site has math but no KaTeX assets, so the book would show raw TeX",
                             hint="Build the site with this repository's mkdocs.yml, which ships KaTeX from docs/assets/katex "
                                  "(mkdocs build --strict), then print again.")


def _has_math(page: Path) -> bool:
    return 'class="arithmatex"' in page.read_text(encoding="utf-8", errors="replace")


def write_book(config: dict, site: Path, lang: str, entries: list[Entry], env, folder: Path,
               settings_docs: Path) -> tuple[Path, dict]:
    """The book as one HTML file in folder, and the PDF's metadata."""
    w = strings(lang)
    langs = languages(config)
    lang_root = langs.root(site, lang)
    anchors = {(lang_root / e.html_path).resolve().relative_to(site.resolve()).as_posix(): e.anchor for e in entries}
    site_url = config.get("site_url", "")
    articles = [page_article(site, lang_root, e, anchors, site_url) for e in entries]
    date = latest_date(articles)
    provenance = w["pdf_provenance"].format(torch=env.torch, build=env.torch_build, git=env.torch_git,
                                            device=env.device, python=env.python, date=date)
    online = site_url.rstrip("/") + ("/" if lang == langs.default else f"/{lang}/") if site_url else ""
    title = langs.site_names.get(lang, config.get("site_name", ""))
    styles, body_attrs, direction = head_styles(lang_root / entries[0].html_path)
    katex = site / KATEX if (site / KATEX).is_file() else None
    # The home page's description is in the book's language; mkdocs.yml's site_description is not.
    home = settings_docs / lang / entries[0].rel
    description = read_page(home).meta.get("description") if home.is_file() else config.get("site_description", "")
    front = [title_page(lang, title, description, provenance, online), contents(lang, entries)]
    parts = list(front)
    previous: tuple[str, ...] = ()
    for index, (entry, article) in enumerate(zip(entries, articles)):
        for depth, section in enumerate(entry.sections):
            if previous[: depth + 1] != entry.sections[: depth + 1]:
                parts.append(f'<h1 class="book-part md-typeset" id="{part_anchor(index, depth)}">'
                             f"{html.escape(section)}</h1>")
        previous = entry.sections
        parts.append(article)
    script = (f'<script src="{katex.as_uri()}"></script>' if katex else "") + f"<script>{SCRIPT}</script>"

    def document(body: list[str]) -> str:
        return (f'<!doctype html><html lang="{lang}" dir="{direction}"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                f"{styles}<style>{CSS}</style></head><body {body_attrs}>{''.join(body)}{script}</body></html>")

    book = folder / "book.html"
    book.write_text(document(parts), encoding="utf-8")
    # The title and contents pages alone, laid out as in the book (each page of the book starts a new sheet): the
    # printer prints them again with the page numbers, without laying out the whole book a second time.
    book.with_name(FRONT).write_text(document(front), encoding="utf-8")
    stamp = "D:" + date.replace("-", "") + "000000Z" if date else None
    meta = {"/Title": title, "/Subject": provenance, "/Creator": "torchnotes.generators.pdf (Chromium, pikepdf)"}
    if stamp:
        meta.update({"/CreationDate": stamp, "/ModDate": stamp})
    return book, meta


def outline(entries: list[Entry]) -> list[tuple[int, str, str]]:
    """(depth, title, destination id): every section over its pages, every page once, in nav order."""
    items: list[tuple[int, str, str]] = []
    previous: tuple[str, ...] = ()
    for index, entry in enumerate(entries):
        for depth, section in enumerate(entry.sections):
            if previous[: depth + 1] != entry.sections[: depth + 1]:
                items.append((depth, section, part_anchor(index, depth)))
        previous = entry.sections
        items.append((len(entry.sections), entry.title, entry.anchor))
    return items
