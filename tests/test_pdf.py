"""The PDF book (python -m torchnotes pdf: torchnotes/generators/pdf), built from the fixture site with a page that prints 10 MB, checked with pypdf."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from helpers import ROOT, fixture_copy, header_links
from pypdf import PdfReader
from pypdf.generic import ContentStream

from torchnotes.publish.paired import sync_pairs

LANGS = ("en", "zh")
BIG = "```python\nprint('x' * 10_000_000)\n```\n"
pytestmark = pytest.mark.browser


def run(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The fixture site with a 'big' page (10 MB printed by one cell) in both languages, built, then printed."""
    if not Path("/usr/bin/chromium").is_file():
        from browser_support import skip_or_fail
        skip_or_fail("no Chromium at /usr/bin/chromium (scripts/setup.sh --pdf installs it)")
    src = fixture_copy(tmp_path_factory.mktemp("pdf"), synced=False)
    # The fixture's pages have math: the book renders it with the site's KaTeX, as the real site ships it.
    shutil.copytree(ROOT / "docs" / "assets" / "katex", src / "docs" / "assets" / "katex")
    for lang, title in (("en", "Big output"), ("zh", "大量输出")):
        (src / "docs" / lang / "big.md").write_text(f"---\ntitle: {title}\ndescription: x\n---\n\n# {title}\n\n{BIG}")
    config = src / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - report.md\n", "  - More:\n      - big.md\n      - report.md\n"))
    sync_pairs(src / "docs", src / "notebooks", list(LANGS))
    built = run("-m", "mkdocs", "build", "--strict", "-d", str(src / "site"), cwd=src)
    assert built.returncode == 0, built.stderr[-3000:]
    printed = run("-m", "torchnotes", "pdf", "--site", "site", "--out", "pdf", cwd=src)
    assert printed.returncode == 0, printed.stderr[-3000:]
    return src


def nav_titles(src: Path, lang: str) -> tuple[list[str], list[str]]:
    """(sections, pages) of mkdocs.yml's nav as this language titles them: explicit titles translated by the
    i18n plugin's nav_translations, other pages by their front matter's title."""
    config = yaml.safe_load((src / "mkdocs.yml").read_text())
    i18n = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    names = next(lang_ for lang_ in i18n["languages"] if lang_["locale"] == lang).get("nav_translations") or {}
    sections, pages = [], []

    def walk(items):
        for item in items:
            title, target = next(iter(item.items())) if isinstance(item, dict) else (None, item)
            if isinstance(target, list):
                sections.append(names.get(title, title))
                walk(target)
                continue
            if title is None:
                text = (src / "docs" / lang / target).read_text(encoding="utf-8")
                title = yaml.safe_load(text.split("---\n")[1])["title"]
            pages.append(names.get(title, title))

    walk(config["nav"])
    return sections, pages


def outline(reader: PdfReader) -> tuple[list[str], list[tuple[str, int]]]:
    """(sections, [(page title, PDF page)]): entries with children are sections, the others pages."""
    sections, pages = [], []

    def walk(items):
        for index, item in enumerate(items):
            if isinstance(item, list):
                continue
            if index + 1 < len(items) and isinstance(items[index + 1], list):
                sections.append(item.title)
                walk(items[index + 1])
            else:
                pages.append((item.title, reader.get_destination_page_number(item)))

    walk(reader.outline)
    return sections, pages


@functools.cache
def pdf(src: Path, lang: str) -> PdfReader:
    """One reader per book: pypdf parses each object once, however many tests read it."""
    return PdfReader(src / "pdf" / f"pytorch-notes-{lang}.pdf")


def sheets_text(reader: PdfReader, title: str, last: int | None = None) -> str:
    """The text of the sheets of the nav page `title` (its `last` sheets only, if given): pypdf takes seconds for
    the big page's two dozen sheets, where the tests need a few."""
    pages = outline(reader)[1]
    starts = sorted(number for _, number in pages)
    first = next(number for name, number in pages if name == title)
    end = next((number for number in starts if number > first), len(reader.pages))
    sheets = range(first, end)[-last:] if last else range(first, end)
    return re.sub(r"\s+", " ", " ".join(reader.pages[n].extract_text() for n in sheets))


def site_page(src: Path, lang: str, name: str) -> BeautifulSoup:
    folder = src / "site" / ("" if lang == "en" else lang) / name
    return BeautifulSoup((folder / "index.html").read_text(encoding="utf-8"), "html.parser")


@pytest.mark.parametrize("lang", LANGS)
def test_every_nav_page_is_in_the_outline_in_nav_order(book, lang):
    reader = pdf(book, lang)
    sections, titles = nav_titles(book, lang)
    found_sections, found = outline(reader)
    assert [title for title, _ in found] == titles
    assert found_sections == sections
    numbers = [number for _, number in found]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), f"pages out of order: {found}"
    # A title page, a contents page, then each page of the nav on sheets of its own.
    assert len(reader.pages) >= len(titles) + 2
    assert reader.page_mode == "/UseOutlines"


@pytest.mark.parametrize("lang", LANGS)
def test_the_contents_and_internal_links_lead_to_pages_of_the_book(book, lang):
    reader = pdf(book, lang)
    destinations = reader.named_destinations
    _, found = outline(reader)
    contents_links = [annot.get_object()["/Dest"] for annot in reader.pages[1].get("/Annots", [])
                      if annot.get_object().get("/Dest")]
    assert len(contents_links) >= len(found), "the contents page does not link every page"
    linked = {reader.get_destination_page_number(destinations[dest]) for dest in contents_links}
    assert {number for _, number in found} <= linked
    # The report page links the demo page: a link between pages of the site stays inside the PDF.
    demo = next(number for title, number in found if title == nav_titles(book, lang)[1][1])
    inner = [annot.get_object() for page in reader.pages[2:] for annot in page.get("/Annots", [])]
    assert any(a.get("/Dest") and reader.get_destination_page_number(destinations[a["/Dest"]]) == demo for a in inner)


@pytest.mark.parametrize("lang", LANGS)
def test_the_front_pages_give_the_books_page_numbers(book, lang):
    """The title and contents pages are printed a second time on their own, once the contents know their numbers
    (printer.print_book): their footers still count the whole book, and each entry of the contents gives the
    sheet its page starts on."""
    reader = pdf(book, lang)
    total = len(reader.pages)
    texts = [page.extract_text() for page in reader.pages]
    for number, text in enumerate(texts, 1):
        assert re.search(rf"\b{number} / {total}$", text), f"sheet {number} of {total}: {text[-120:]!r}"
    _, found = outline(reader)  # 0-based page indexes
    # The contents' text without the footers (pypdf reads some CJK glyphs as radicals: numbers are compared).
    front = re.sub(rf"\S+ \d+ / {total}$", "", " ".join(texts[1:min(index for _, index in found)]), flags=re.M)
    given = [int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d.])", front)]
    assert given == sorted(given) and {index + 1 for _, index in found} <= set(given), (given, found)


@pytest.mark.parametrize("lang", LANGS)
def test_outputs_prose_and_provenance_are_text(book, lang):
    reader = pdf(book, lang)
    words = sheets_text(reader, nav_titles(book, lang)[1][1])  # the demo page's sheets
    demo = site_page(book, lang, "demo")
    printed = demo.select_one(".nb-output pre").get_text()  # the first output of the built page
    assert re.sub(r"\s+", " ", printed).strip() in words
    prose = demo.select_one("article p:not(.nb-provenance)").get_text()
    assert prose.strip() in words
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]{2,}", prose), f"not a Chinese sentence: {prose!r}"
    title_page = re.sub(r"\s+", " ", reader.pages[0].extract_text())
    assert re.search(r"PyTorch \d+\.\d+\.\d+\S* .*\d{4}-\d{2}-\d{2}", title_page), title_page


@pytest.mark.parametrize("lang", LANGS)
def test_a_ten_megabyte_output_keeps_the_sites_cap_and_notice(book, lang):
    big = site_page(book, lang, "big")
    notice = big.select_one(".nb-output pre").get_text().strip().splitlines()[-1]
    assert notice.startswith("[torchnotes:") and "cut" in notice, notice
    words = sheets_text(pdf(book, lang), big.select_one("h1").get_text().strip("¶ "), last=2)  # the output ends there
    assert re.sub(r"\s+", " ", notice) in words
    assert (book / "pdf" / f"pytorch-notes-{lang}.pdf").stat().st_size < 3_000_000


@pytest.mark.parametrize("lang", LANGS)
def test_a_figure_is_an_image_of_the_pdf(book, lang):
    reader = pdf(book, lang)
    images = [x for page in reader.pages for x in (page.get("/Resources", {}).get("/XObject") or {}).values()
              if x.get_object().get("/Subtype") == "/Image"]
    assert images, "no image in the PDF: the demo page's matplotlib figure is missing"


def fonts(reader: PdfReader) -> dict[str, bool]:
    """Font name -> glyphs embedded (a font file, or Type 3 glyph procedures: how Chromium embeds CFF fonts)."""
    found = {}
    for page in reader.pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            font = font.get_object()
            for leaf in [d.get_object() for d in font.get("/DescendantFonts", [])] or [font]:
                descriptor = leaf["/FontDescriptor"].get_object()
                name = str(leaf.get("/BaseFont") or descriptor["/FontName"])
                found[name] = "/CharProcs" in leaf or any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    return found


def notdef_glyphs(reader: PdfReader) -> int:
    """Glyphs drawn as .notdef (a box): glyph 0 of a Type 0 font, or a Type 3 code mapped to /g0."""
    count = 0
    for page in reader.pages:
        table = {name: f.get_object() for name, f in (page["/Resources"].get("/Font") or {}).items()}
        font = None
        for operands, operator in ContentStream(page.get_contents(), reader).operations:
            if operator == b"Tf":
                font = table.get(operands[0])
            elif operator in (b"Tj", b"TJ", b"'", b'"') and font is not None:
                shown = operands[-1] if operator != b"TJ" else [s for s in operands[0] if isinstance(s, (str, bytes))]
                for raw in shown if isinstance(shown, list) else [shown]:
                    data = raw.original_bytes if hasattr(raw, "original_bytes") else bytes(raw)
                    count += _notdefs(font, data)
    return count


def _notdefs(font, data: bytes) -> int:
    if font["/Subtype"] == "/Type0":
        return sum(1 for i in range(0, len(data) - 1, 2) if data[i:i + 2] == b"\0\0")
    if font["/Subtype"] == "/Type3":
        names, code = {}, 0
        for item in font["/Encoding"]["/Differences"]:
            if isinstance(item, int):
                code = item
            else:
                names[code], code = str(item), code + 1
        return sum(1 for byte in data if names.get(byte) == "/g0")
    return 0


@pytest.mark.parametrize("lang", LANGS)
def test_fonts_are_embedded_and_every_glyph_is_found(book, lang):
    reader = pdf(book, lang)
    found = fonts(reader)
    assert found and all(found.values()), f"fonts not embedded: {[n for n, e in found.items() if not e]}"
    if lang == "zh":
        assert any("CJK" in name for name in found), f"no CJK font in {sorted(found)}"
    assert notdef_glyphs(reader) == 0


def test_the_glyph_check_sees_a_box(tmp_path, browser):
    """notdef_glyphs counts a character no installed font has (a private-use code point). The run's one Chromium
    (conftest's browser): a second Playwright in a worker that already holds one cannot start."""
    (tmp_path / "box.html").write_text("<p>abc \ue000\ue001 def</p>", encoding="utf-8")
    page = browser.new_page()
    try:
        page.goto((tmp_path / "box.html").as_uri())
        page.pdf(path=str(tmp_path / "box.pdf"))
    finally:
        page.close()
    assert notdef_glyphs(PdfReader(tmp_path / "box.pdf")) == 2


def test_a_missing_cjk_font_stops_the_build_naming_the_package(book, tmp_path):
    """fontconfig pointed at an empty font folder: no font has Chinese glyphs; nothing is written."""
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts.conf").write_text(f'<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                                         f"<fontconfig><dir>{tmp_path / 'fonts'}</dir>"
                                         f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>")
    done = run("-m", "torchnotes", "pdf", "--site", "site", "--out", str(tmp_path / "out"), cwd=book,
               env={"FONTCONFIG_FILE": str(tmp_path / "fonts.conf")})
    assert done.returncode == 1
    assert "pytorch-notes-zh.pdf: no installed font has zh glyphs" in done.stderr
    assert "apt-get install -y fonts-noto-cjk" in done.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_site_that_lacks_a_page_of_the_nav_is_named(book, tmp_path):
    """A folder with a home page but not the other pages of the nav (a build of another site, or one stopped)."""
    (tmp_path / "partial").mkdir()
    shutil.copy(book / "site" / "index.html", tmp_path / "partial" / "index.html")
    done = run("-m", "torchnotes", "pdf", "--site", str(tmp_path / "partial"), "--out", str(tmp_path / "out"),
               "--lang", "en", cwd=book)
    assert done.returncode == 1
    assert "the built site has no page for" in done.stderr and "mkdocs build --strict" in done.stderr, done.stderr
    assert not list((tmp_path / "out").glob("*.pdf"))


def test_a_failure_while_both_books_print_side_by_side_is_named_as_in_one(book, tmp_path):
    """Two languages print in two processes: the error one of them raises reaches the command as its own type,
    with its message, and no book is left half-written."""
    (tmp_path / "partial" / "zh").mkdir(parents=True)
    shutil.copy(book / "site" / "index.html", tmp_path / "partial" / "index.html")
    shutil.copy(book / "site" / "zh" / "index.html", tmp_path / "partial" / "zh" / "index.html")
    done = run("-m", "torchnotes", "pdf", "--site", str(tmp_path / "partial"), "--out", str(tmp_path / "out"),
               cwd=book)
    assert done.returncode == 1, done.stderr
    assert "the built site has no page for" in done.stderr and "mkdocs build --strict" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert not list((tmp_path / "out").glob("*.pdf")) and not list((tmp_path / "out").glob(".*tmp"))


def test_the_deploy_workflow_publishes_the_books_with_the_site():
    steps = yaml.safe_load((ROOT / ".github/workflows/deploy.yml").read_text())["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    site = next(i for i, run_ in enumerate(runs) if "mkdocs build" in run_)
    books = next(i for i, run_ in enumerate(runs) if "scripts/build_pdf.sh" in run_)
    upload = next(i for i, step in enumerate(steps) if "upload-pages-artifact" in step.get("uses", ""))
    assert site < books < upload
    assert steps[books].get("env", {}).get("SKIP_SITE") == "1", "the books print the site just built"
    assert steps[upload]["with"]["path"] == "site/"


def test_every_page_of_the_site_links_its_languages_book(built_site):
    """The header of every page links the book of the page's language; both home pages link both books."""
    site = built_site
    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["site_url"]
    pages = [p for p in site.rglob("index.html") if not {"assets", "search"} & set(p.relative_to(site).parts)]
    assert len(pages) > 70
    for page in pages:
        lang = "zh" if page.relative_to(site).parts[0] == "zh" else "en"
        links = header_links(page, "a.nb-pdf-link")
        # Relative, so a local preview stays on the machine: it leads to the book at the site's root.
        assert len(links) == 1 and not urlsplit(next(iter(links))).scheme, f"{page}: {links}"
        target = (page.parent / next(iter(links))).resolve()
        assert target == (site / "pdf" / f"pytorch-notes-{lang}.pdf").resolve(), f"{page}: {links}"
    for home in (site / "index.html", site / "zh" / "index.html"):
        hrefs = {a["href"] for a in BeautifulSoup(home.read_text(encoding="utf-8"), "html.parser").select("article a")}
        assert {f"{site_url}pdf/pytorch-notes-{lang}.pdf" for lang in LANGS} <= hrefs, home


def test_bad_sites_are_refused_with_one_message_and_nothing_written(book, tmp_path):
    """A missing folder, a folder that is no built site, a site with math but no KaTeX: each is named with what to
    do, and no PDF folder is made. --site is relative here, as the README's command gives it."""
    missing = run("-m", "torchnotes", "pdf", "--site", "nosuch", cwd=book)
    assert missing.returncode == 1 and "nosuch: the site folder does not exist" in missing.stderr
    assert "Traceback" not in missing.stderr and not (book / "nosuch").exists()
    (tmp_path / "empty").mkdir()
    empty = run("-m", "torchnotes", "-f", str(book / "mkdocs.yml"), "pdf", "--site", "empty", cwd=tmp_path)
    assert empty.returncode == 1 and "holds no index.html (not a built site)" in empty.stderr
    assert list((tmp_path / "empty").iterdir()) == []
    bare = tmp_path / "bare"
    shutil.copytree(book / "site", bare, ignore=shutil.ignore_patterns("pdf", "katex"))
    home = bare / "index.html"
    home.write_text(home.read_text().replace("</article>", '<span class="arithmatex">\\(x^2\\)</span></article>', 1))
    no_katex = run("-m", "torchnotes", "-f", str(book / "mkdocs.yml"), "pdf", "--site", "bare", cwd=tmp_path)
    assert no_katex.returncode == 1 and "has math but no KaTeX assets" in no_katex.stderr, no_katex.stderr
    assert not (bare / "pdf").exists()


def test_build_pdf_with_skip_site_and_no_built_site_says_so(tmp_path):
    done = subprocess.run(["bash", "scripts/build_pdf.sh"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SKIP_SITE": "1", "SITE_DIR": str(tmp_path / "none")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SKIP_SITE=1 prints a site already built" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "none").exists()


def test_the_same_site_printed_again_is_a_copy_and_a_damaged_copy_is_printed_again(book):
    again = run("-m", "torchnotes", "pdf", "--site", "site", "--out", "pdf-again", cwd=book)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.count("the same book as printed before") == len(LANGS), again.stdout
    for lang in LANGS:
        assert (book / "pdf-again" / f"pytorch-notes-{lang}.pdf").read_bytes() == (book / "pdf" / f"pytorch-notes-{lang}.pdf").read_bytes()
    kept_books = sorted((book / ".cache" / "torchnotes" / "books").glob("*.pdf"))
    assert len(kept_books) == len(LANGS), kept_books
    for kept_book in kept_books:  # damaged: its checksum no longer matches its record
        kept_book.write_bytes(kept_book.read_bytes()[:-100])
    printed = run("-m", "torchnotes", "pdf", "--site", "site", "--out", "pdf-printed", "--lang", "en", cwd=book)
    assert printed.returncode == 0 and "the same book as printed before" not in printed.stdout, printed.stdout
    assert (book / "pdf-printed" / "pytorch-notes-en.pdf").read_bytes() == (book / "pdf" / "pytorch-notes-en.pdf").read_bytes()


def test_the_default_languages_book_is_kept_by_its_own_pages_not_the_other_languages(book, tmp_path):
    """The deploy workflow's site differs from the documented build's only in Chinese pages: the English book,
    printed at the site's root, is the same copy for both; a change to a Chinese page still prints the Chinese
    book again, and a change to an English page or a shared asset the English one."""
    from torchnotes.generators.pdf.keep import book_key

    site = tmp_path / "site"
    shutil.copytree(book / "site", site, ignore=shutil.ignore_patterns("pdf"))

    def keys() -> dict[str, str]:
        return {"en": book_key(site, site / "pdf", book / "mkdocs.yml", "en", {"torch": "x"}, ("zh",)),
                "zh": book_key(site, site / "pdf", book / "mkdocs.yml", "zh", {"torch": "x"})}

    def edit(rel: str) -> None:
        path = site / rel
        path.write_bytes(path.read_bytes() + b"\n<!-- edited -->\n")

    first = keys()
    edit("zh/index.html")
    after_zh = keys()
    assert after_zh["en"] == first["en"] and after_zh["zh"] != first["zh"]
    edit("index.html")
    after_en = keys()
    assert after_en["en"] != after_zh["en"] and after_en["zh"] != after_zh["zh"]
    shared = next(p for p in sorted((site / "assets").rglob("*.css")))
    edit(shared.relative_to(site).as_posix())
    assert keys()["en"] != after_en["en"]
    # Printed through the command: the edited Chinese page leaves the English book a copy of the one printed before.
    shutil.copytree(book / "site", tmp_path / "zh-edited", ignore=shutil.ignore_patterns("pdf"))
    (tmp_path / "zh-edited" / "zh" / "index.html").write_text(
        (book / "site" / "zh" / "index.html").read_text(encoding="utf-8") + "\n<!-- edited -->\n", encoding="utf-8")
    again = run("-m", "torchnotes", "-f", str(book / "mkdocs.yml"), "pdf", "--site", str(tmp_path / "zh-edited"),
                "--lang", "en", cwd=book)
    assert again.returncode == 0 and "the same book as printed before" in again.stdout, again.stdout + again.stderr[-2000:]
