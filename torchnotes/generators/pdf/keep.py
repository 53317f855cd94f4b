"""Books kept between prints: Chromium prints the same PDF whenever it reads the same files, so a second print of
the same site (a rebuild with nothing changed; the deploy's build after the documented commands' in a test run)
is a copy, made before the book's HTML is even written (parsing every page of the site is a third of a print).

The key is the SHA-256 of what the book is made from: every file of the built site (but the PDFs and zips written
into it, the sitemap, which carries the build's date, and for the default language's book, built at the site's
root, the folders of the other languages: the book prints none of their pages), mkdocs.yml, the language, the
environment named on the title page, the system's fonts (fontconfig's files), this package's own source and the
Chromium binary. The deploy workflow's site differs from the documented build's only in Chinese pages (its older
release's shard adds comparisons to them): the English book is then printed once for both. The books
are kept under the build cache (books/), or in TORCHNOTES_BOOKS, a folder that checkouts share; a kept PDF whose
checksum no longer matches its record (torchnotes/kept.py) is printed again. A file lock per key makes a second
printer of the same book wait for the first one's PDF, then copy it.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from torchnotes import kept
from torchnotes.engine.fonts import font_fingerprint
from torchnotes.generators.pdf.printer import CHROMIUM
from torchnotes.layout import CacheFolder
from torchnotes.storage import digest, file_digest


def folder(cache_dir: Path) -> Path:
    return Path(os.environ.get("TORCHNOTES_BOOKS") or CacheFolder(cache_dir).books)


def book_key(site: Path, out: Path, config_file: Path, lang: str, environment: dict, elsewhere: tuple = ()) -> str:
    """elsewhere: the site's folders that this book reads nothing from (the other languages', for the root's)."""
    left_out = {site / "pdf", site / "offline", out} | {site / name for name in elsewhere}  # printing and zipping add the first three
    files = {path.relative_to(site).as_posix(): file_digest(path) for path in sorted(site.rglob("*"))
             if path.is_file() and not any(path.is_relative_to(folder) for folder in left_out)
             and not path.name.startswith("sitemap.xml")}
    source = {path.name: file_digest(path) for path in sorted(Path(__file__).parent.glob("*.py"))}
    chromium = Path(CHROMIUM)
    browser = [str(chromium), chromium.stat().st_size, chromium.stat().st_mtime] if chromium.is_file() else "playwright"
    return digest({"site": files, "config": Path(config_file).read_text(encoding="utf-8"), "lang": lang,
                   "environment": environment, "source": source, "browser": browser, "fonts": font_fingerprint()})


@contextmanager
def held(store: Path, key: str):
    store.mkdir(parents=True, exist_ok=True)
    with FileLock(str(store / f".{key}.lock")):
        yield


def copy(store: Path, key: str, target: Path) -> bool:
    """The kept book copied to target; False when there is none, or it is damaged."""
    record, pdf = kept.load(store / f"{key}.json"), store / f"{key}.pdf"
    if record is None or not pdf.is_file() or file_digest(pdf) != record.get("sha256"):
        return False
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(pdf, partial)
    partial.replace(target)
    return True


def keep(store: Path, key: str, printed: Path) -> None:
    shutil.copyfile(printed, store / f"{key}.pdf")
    kept.store(store / f"{key}.json", {"sha256": file_digest(printed), "size": printed.stat().st_size})
