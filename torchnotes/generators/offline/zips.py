"""Build the offline copy and zip it, one zip per language: python -m torchnotes offline [--out site/offline].

Each zip holds the whole site, both languages, so that the language menu works from disk, and opens in its own
language: pytorch-notes-zh.zip unpacks to pytorch-notes-zh/, whose index.html leads to the Chinese home page
(site/zh/index.html) and the English one's to site/index.html.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from html import escape
from pathlib import Path

from torchnotes.generators.offline import tree
from torchnotes.log import logger

NAME = "pytorch-notes"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # every entry's date: the same site gives the same zip


class BuildFailed(tree.OfflineError):
    """mkdocs build of mkdocs.offline.yml failed; its log names the page and the reason."""


def build_site(site: Path, config: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=config.parent, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith(("ERROR", "WARNING"))]
        raise BuildFailed(f"mkdocs build -f {config} failed ({done.returncode}):\n"
                          + "\n".join(errors or done.stderr.splitlines()[-20:]))


def entry_page(lang: str, langs: list[str]) -> str:
    return "site/index.html" if lang == langs[0] else f"site/{lang}/index.html"


def stub(lang: str, target: str, title: str) -> str:
    """The zip's index.html: straight on to this language's home page."""
    return (f'<!doctype html>\n<html lang="{lang}">\n<meta charset="utf-8">\n<title>{escape(title)}</title>\n'
            f'<meta http-equiv="refresh" content="0; url={target}">\n'
            f'<p><a href="{target}">{escape(title)}</a></p>\n</html>\n')


def home_title(site: Path, home: str) -> str:
    """The home page's <title> ("PyTorch 笔记"), for the stub."""
    text = (site / home.removeprefix("site/")).read_text(encoding="utf-8")
    start, end = text.find("<title>"), text.find("</title>")
    # Material writes "<page> - <site name>": the site name
    return text[start + len("<title>"):end].rsplit(" - ", 1)[-1] if 0 <= start < end else NAME


class IncompleteSite(tree.OfflineError):
    """The tree to zip lacks a language's home page: a build that stopped half-way, or the wrong folder."""


def check_complete(site: Path, langs: list[str]) -> None:
    missing = [entry_page(lang, langs).removeprefix("site/") for lang in langs
               if not (site / entry_page(lang, langs).removeprefix("site/")).is_file()]
    if missing:
        raise IncompleteSite(f"{site} is not a whole offline build (no {', '.join(missing)}): run "
                             "bash scripts/build_offline.sh without --no-build, which builds it again from scratch")


def write_zip(site: Path, lang: str, langs: list[str], out: Path) -> Path:
    """out/pytorch-notes-<lang>.zip: pytorch-notes-<lang>/index.html (the stub) and pytorch-notes-<lang>/site/.
    Written beside its place and renamed once whole: a failure never leaves half a zip."""
    home = entry_page(lang, langs)
    top = f"{NAME}-{lang}"
    target = out / f"{top}.zip"
    part = out / f"{top}.zip.part"
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr(zipfile.ZipInfo(f"{top}/index.html", FIXED_TIME),
                         stub(lang, home, home_title(site, home)), zipfile.ZIP_DEFLATED)
        for path in sorted(p for p in site.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(f"{top}/site/{path.relative_to(site).as_posix()}", FIXED_TIME)
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return part.replace(target)


def build_and_zip(config: Path, site: Path, out: Path, langs: list[str], *, build: bool = True) -> list[Path]:
    """site and out absolute; langs: the default language first. Raises OfflineError (no zip left half-written)."""
    started = time.perf_counter()
    try:
        if build:
            build_site(site, config)
        check_complete(site, langs)
        checked = tree.check(site)
        zips = [write_zip(site, lang, langs, out) for lang in langs]
    except tree.OfflineError:
        for part in out.glob(f"{NAME}-*.zip.part"):
            part.unlink()
        raise
    logger.info(f"offline: {checked} links and assets of {site} open from disk")
    for path in zips:
        logger.info(f"offline: wrote {path} ({path.stat().st_size / 2**20:.1f} MiB)")
    logger.info(f"offline: built and zipped in {time.perf_counter() - started:.1f} s")
    return zips
