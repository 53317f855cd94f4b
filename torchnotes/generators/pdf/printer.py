"""Chromium prints the book's HTML (Playwright's page.pdf); pypdf adds the outline and the metadata.

Chromium turns the book's #links into links inside the PDF and writes a named destination for every linked
id; the contents page links every page and section, so their destinations give the outline its targets
and the contents page its numbers (a second printing, same layout, with the numbers filled in).
"""

from __future__ import annotations

import html
import logging
import os
import subprocess
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject

from torchnotes.errors import PdfBrowserMissing, PdfFontMissing, PdfPrintFailed

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright's own build where there is none (scripts/setup.sh --pdf)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
# Languages whose text needs a CJK font, as fontconfig names them, with the font the site's CSS asks for.
CJK = {"zh": "zh-cn", "ja": "ja", "ko": "ko"}
FONT_PACKAGE = "fonts-noto-cjk"
PRINT_TIMEOUT_MS = 300_000
# Chromium's PDFs declare a trailer /Size a few objects short; pypdf reads them right and says so on every read.
logging.getLogger("pypdf").setLevel(logging.ERROR)

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


def print_book(book: Path, raw: Path, title: str) -> dict[str, int]:
    """Print book (an HTML file) to raw; returns the 1-based page of every destination (id) the PDF holds."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    options = dict(format="A4", print_background=True, display_header_footer=True, header_template="<span></span>",
                   footer_template=FOOTER.format(title=html.escape(title)), margin={"top": "14mm", "bottom": "16mm",
                                                                      "left": "12mm", "right": "12mm"})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(p.chromium.executable_path),
                                        args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_page()
                page.set_default_timeout(PRINT_TIMEOUT_MS)
                page.goto(book.as_uri(), wait_until="load")
                page.wait_for_function("document.body.dataset.bookReady === '1'")
                page.evaluate("document.fonts.ready.then(() => true)")
                page.pdf(path=str(raw), **options)
                numbers = destinations(raw)
                # Page numbers in the contents take no more room than the empty slots: the layout stays.
                page.evaluate("""(numbers) => document.querySelectorAll('#book-contents a').forEach(a => {
                    const n = numbers[a.getAttribute('href').slice(1)];
                    if (n) a.querySelector('.book-toc-number').textContent = n; })""", numbers)
                page.pdf(path=str(raw), **options)
            finally:
                browser.close()
    except PlaywrightError as error:
        raise PdfPrintFailed(book, f"Chromium could not print the book: {str(error).splitlines()[0]}") from error
    return destinations(raw)


def destinations(pdf: Path) -> dict[str, int]:
    reader = PdfReader(pdf)
    return {name.lstrip("/"): reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()}


def finish(raw: Path, out: Path, outline: list[tuple[int, str, str]], meta: dict[str, str]) -> None:
    """Write out (atomically) from raw with the outline [(depth, title, destination id)] and the metadata."""
    writer = PdfWriter(clone_from=PdfReader(raw))
    numbers = destinations(raw)
    parents: list = []
    for depth, title, anchor in outline:
        if anchor not in numbers:
            raise PdfPrintFailed(raw, f"the printed book has no destination #{anchor} for {title!r}",
                                 hint="Every page and section must be linked from the contents page; report this.")
        del parents[depth:]
        item = writer.add_outline_item(title, numbers[anchor] - 1, parent=parents[-1] if parents else None)
        parents.append(item)
    writer.page_mode = NameObject("/UseOutlines")
    writer.metadata = meta
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        with open(tmp, "wb") as handle:
            writer.write(handle)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def embedded_fonts(pdf: Path) -> dict[str, bool]:
    """Every font the PDF uses: its name and whether its glyphs are embedded in the file.

    Chromium (Skia) embeds TrueType fonts as font files, and CFF-based OpenType fonts such as Noto CJK as
    Type 3 fonts: the glyph outlines themselves (/CharProcs), named by their descriptor's /FontName."""
    reader = PdfReader(pdf)
    fonts: dict[str, bool] = {}
    for page in reader.pages:
        for font in (page.get("/Resources", {}).get("/Font") or {}).values():
            font = font.get_object()
            for leaf in [d.get_object() for d in font.get("/DescendantFonts", [])] or [font]:
                descriptor = leaf.get("/FontDescriptor")
                descriptor = descriptor.get_object() if descriptor else {}
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
