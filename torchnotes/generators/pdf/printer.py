"""Chromium prints the book's HTML (Playwright's page.pdf); pikepdf (qpdf) adds the outline and the metadata.

Chromium turns the book's #links into links inside the PDF and writes a named destination for every linked
id; the contents page links every page and section, so their destinations give the outline its targets
and the contents page its numbers. The numbers are filled in and only the front matter (title and contents
pages, same layout) is printed again, then put in place of the first printing's: printing the whole book a
second time took a third of a book's time, and pypdf's copy of a 20 MB book another sixth.
"""

from __future__ import annotations

import html
import os
import subprocess
from pathlib import Path

import pikepdf

from torchnotes.errors import PdfBrowserMissing, PdfFontMissing, PdfPrintFailed

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright's own build where there is none (scripts/setup.sh --pdf)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
# Languages whose text needs a CJK font, as fontconfig names them, with the font the site's CSS asks for.
CJK = {"zh": "zh-cn", "ja": "ja", "ko": "ko"}
FONT_PACKAGE = "fonts-noto-cjk"
PRINT_TIMEOUT_MS = 300_000

FOOTER = ('<div style="width:100%;font-size:7pt;color:#666;padding:0 12mm;display:flex;justify-content:space-between;'
          'font-family:sans-serif,&quot;Noto Sans CJK SC&quot;"><span>{title}</span><span><span class="pageNumber"></span> / '
          '<span class="totalPages"></span></span></div>')


def check_font(lang: str, out: Path) -> None:
    """Stop before printing when no installed font has this language's glyphs: Chromium would print boxes."""
    if lang not in CJK:
        return
    try:
        found = subprocess.run(["fc-list", f":lang={CJK[lang]}", "family"], capture_output=True, text=True,
                               timeout=60, env=os.environ).stdout.strip()
    except FileNotFoundError:
        found = ""
    if not found:
        raise PdfFontMissing(out, f"no installed font has {lang} glyphs (fontconfig's fc-list :lang={CJK[lang]} "
                                  f"lists none): the PDF would show boxes instead of text",
                             hint=f"Install Debian's {FONT_PACKAGE} (sudo apt-get install -y {FONT_PACKAGE}; "
                                  "bash scripts/setup.sh --pdf does it), then build again.")


def chromium_path(playwright_default: str | None) -> str:
    for candidate in (CHROMIUM, playwright_default):
        if candidate and Path(candidate).is_file():
            return candidate
    raise PdfBrowserMissing(CHROMIUM, "no Chromium to print the book with (neither Debian's nor Playwright's)")


def print_book(book: Path, front_book: Path, raw: Path, title: str) -> None:
    """Print book (an HTML file) to raw. front_book: the book's title and contents pages alone, printed again once the contents know their numbers."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    options = dict(format="A4", print_background=True, display_header_footer=True, header_template="<span></span>",
                   footer_template=FOOTER.format(title=html.escape(title)), margin={"top": "14mm", "bottom": "16mm",
                                                                      "left": "12mm", "right": "12mm"})
    front = raw.with_name(raw.stem + "-front.pdf")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(p.chromium.executable_path),
                                        args=CHROMIUM_ARGS, headless=True)
            try:
                page = _opened(browser, book)
                page.pdf(path=str(raw), **options)
                with pikepdf.open(raw) as printed:
                    numbers, total = _destinations(printed), len(printed.pages)
                page.close()
                # Printing the whole book again for its first pages took a third of a print: the front pages
                # alone, their footers counting the book's pages.
                page = _opened(browser, front_book)
                linked = page.evaluate(FILL_NUMBERS, numbers)
                pages = front_pages(numbers, linked, raw)
                footer = options["footer_template"].replace('<span class="totalPages"></span>', str(total))
                page.pdf(path=str(front), **dict(options, footer_template=footer))
            finally:
                browser.close()
    except PlaywrightError as error:
        raise PdfPrintFailed(book, f"Chromium could not print the book: {str(error).splitlines()[0]}") from error
    try:
        put_front(raw, front, pages)
    finally:
        front.unlink(missing_ok=True)


# Page numbers in the contents take no more room than the empty slots: the layout stays.
FILL_NUMBERS = """(numbers) => Array.from(document.querySelectorAll('#book-contents a'), a => {
    const id = a.getAttribute('href').slice(1), n = numbers[id];
    if (n) a.querySelector('.book-toc-number').textContent = n;
    return id; })"""


def _opened(browser, document: Path):
    """A tab with document loaded, its scripts done (math rendered) and its fonts ready."""
    page = browser.new_page()
    page.set_default_timeout(PRINT_TIMEOUT_MS)
    page.goto(document.as_uri(), wait_until="load")
    page.wait_for_function("document.body.dataset.bookReady === '1'")
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def front_pages(numbers: dict[str, int], linked: list[str], raw: Path) -> int:
    """The title and contents pages: those before the first page the contents link to."""
    targets = [numbers[anchor] for anchor in linked if anchor in numbers]
    if not targets or min(targets) < 2:
        raise PdfPrintFailed(raw, "the printed book's contents link to no page after the contents",
                             hint="The contents page must link every page of the book; report this.")
    return min(targets) - 1


def put_front(raw: Path, front: Path, count: int) -> None:
    """The first count pages of raw take the drawing of front's (the same pages with the numbers filled in). Each
    page object stays, and with it its links and every destination that points at it; only what it draws and the
    fonts and images that drawing uses are replaced."""
    with pikepdf.open(raw, allow_overwriting_input=True) as book, pikepdf.open(front) as numbered:
        if len(numbered.pages) != count:
            raise PdfPrintFailed(raw, f"the contents took {len(numbered.pages)} pages when printed with their numbers, "
                                      f"{count} without", hint="The page numbers must fit the slots left for them; report this.")
        for old, new in zip(book.pages[:count], numbered.pages):
            for key in ("/Contents", "/Resources"):
                old.obj[key] = _local(book, new.obj[key])
        book.save(raw, deterministic_id=True)


def _local(document: pikepdf.Pdf, value):
    """value, from another PDF, made document's: qpdf copies indirect objects (with all they reference), the direct
    dictionaries and arrays around them are rebuilt."""
    if value.is_indirect:
        return document.copy_foreign(value)
    if isinstance(value, pikepdf.Dictionary):
        return pikepdf.Dictionary({key: _local(document, item) for key, item in value.items()})
    if isinstance(value, pikepdf.Array):
        return pikepdf.Array([_local(document, item) for item in value])
    return value


def destinations(pdf: Path) -> dict[str, int]:
    """Every named destination and its 1-based page (Chromium writes them in the catalogue's /Dests)."""
    with pikepdf.open(pdf) as document:
        return _destinations(document)


def _destinations(document: pikepdf.Pdf) -> dict[str, int]:
    pages = {page.obj.objgen: number for number, page in enumerate(document.pages, 1)}
    dests = document.Root.get("/Dests")
    found = {}
    for name in (dests.keys() if dests is not None else ()):
        target = dests[name]
        target = target if isinstance(target, pikepdf.Array) else target.get("/D")
        found[str(name)[1:]] = pages[target[0].objgen]
    return found


def finish(raw: Path, out: Path, outline: list[tuple[int, str, str]], meta: dict[str, str]) -> None:
    """Write out (atomically) from raw with the outline [(depth, title, destination id)] and the metadata."""
    numbers = destinations(raw)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with pikepdf.open(raw) as document:
            with document.open_outline() as tree:
                parents: list[pikepdf.OutlineItem] = []
                for depth, title, anchor in outline:
                    if anchor not in numbers:
                        raise PdfPrintFailed(raw, f"the printed book has no destination #{anchor} for {title!r}",
                                             hint="Every page and section must be linked from the contents page; report this.")
                    del parents[depth:]
                    item = pikepdf.OutlineItem(title, numbers[anchor] - 1)
                    (parents[-1].children if parents else tree.root).append(item)
                    parents.append(item)
            document.Root.PageMode = pikepdf.Name.UseOutlines
            # Only ours: Chromium's own entries carry the time of the printing.
            document.docinfo = document.make_indirect(pikepdf.Dictionary(meta))
            # The same book, byte for byte, from the same pages: an /ID made from the content alone (qpdf would keep
            # the first half of the one the raw file has, which came from Chromium's clock).
            if "/ID" in document.trailer:
                del document.trailer["/ID"]
            document.save(tmp, deterministic_id=True)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def embedded_fonts(pdf: Path) -> dict[str, bool]:
    """Every font the PDF uses: its name and whether its glyphs are embedded in the file.

    Chromium (Skia) embeds TrueType fonts as font files, and CFF-based OpenType fonts such as Noto CJK as
    Type 3 fonts: the glyph outlines themselves (/CharProcs), named by their descriptor's /FontName."""
    fonts: dict[str, bool] = {}
    with pikepdf.open(pdf) as document:
        for page in document.pages:
            resources = page.obj.get("/Resources")
            for font in (resources.get("/Font") or {}).values() if resources is not None else ():
                for leaf in list(font.get("/DescendantFonts") or []) or [font]:
                    descriptor = leaf.get("/FontDescriptor") or {}
                    name = leaf.get("/BaseFont") or descriptor.get("/FontName") or font.get("/BaseFont")
                    embedded = "/CharProcs" in leaf or any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
                    fonts[str(name)] = fonts.get(str(name), True) and embedded
    return fonts


def check_embedded_cjk(lang: str, raw: Path, out: Path) -> None:
    """After printing: a CJK language's book must carry an embedded CJK font (else its text is boxes)."""
    if lang in CJK and not any("CJK" in name and embedded for name, embedded in embedded_fonts(raw).items()):
        raise PdfFontMissing(out, f"the printed {lang} book embeds no CJK font: Chromium found none to set the text in",
                             hint=f"Install Debian's {FONT_PACKAGE} (sudo apt-get install -y {FONT_PACKAGE}), "
                                  "then build again.")
