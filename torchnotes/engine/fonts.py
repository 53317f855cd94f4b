"""Fonts: which ones matplotlib can draw text with (part of what a page with figures depends on), and a figure
drawn with characters none of them has (empty boxes), which fails the page."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

from torchnotes.errors import MissingGlyph

# The font files matplotlib's font list is built from on Linux (matplotlib.font_manager.findSystemFonts: what
# fc-list reports plus these folders), found without importing matplotlib (half a second) into the build.
FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".afm")


def font_directories(env: dict | None = None) -> list[Path]:
    env = os.environ if env is None else env
    home = Path.home()
    return [Path(p) for p in ("/usr/X11R6/lib/X11/fonts/TTF/", "/usr/X11/lib/X11/fonts", "/usr/share/fonts/",
                              "/usr/local/share/fonts/", "/usr/lib/openoffice/share/fonts/truetype/")] + [
        Path(env.get("XDG_DATA_HOME") or home / ".local/share") / "fonts", home / ".fonts"]


def font_files(env: dict | None = None) -> list[Path]:
    env = os.environ if env is None else env
    if env.get("MPL_IGNORE_SYSTEM_FONTS"):  # matplotlib then uses only the fonts it ships
        return []
    found = set(_fontconfig_files())
    for folder in font_directories(env):
        for parent, _, names in os.walk(folder):
            found.update(Path(parent, n) for n in names if Path(n).suffix.lower() in FONT_SUFFIXES)
    return sorted(p for p in found if p.is_file())


def _fontconfig_files() -> list[Path]:
    try:
        done = subprocess.run(["fc-list", "--format=%{file}\\n"], capture_output=True, text=True, check=False)
    except OSError:  # no fontconfig: matplotlib reads the folders only
        return []
    return [Path(line) for line in done.stdout.splitlines() if Path(line).suffix.lower() in FONT_SUFFIXES]


def font_fingerprint(env: dict | None = None) -> str:
    """'<count> font files <hash>': the hash of each font file's path and size (installing, removing or
    upgrading a font changes it; a copy of the same image on another machine gives the same)."""
    files = font_files(env)
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path}\0{path.stat().st_size}\0".encode())
    return f"{len(files)} font files {digest.hexdigest()[:12]}"


# matplotlib's warning for a character its fonts lack, drawn as an empty box: "Glyph 20013
# (\N{CJK UNIFIED IDEOGRAPH-4E2D}) missing from font(s) DejaVu Sans."
_MISSING_GLYPH = re.compile(r"Glyph (\d+) \(.*?\) missing from font\(s\) (.+?)\.\s*$", re.MULTILINE)


def missing_glyphs(shown, cells, outputs, lines) -> MissingGlyph | None:
    """A figure whose text shows boxes instead of characters fails the page: it is never published nor cached."""
    for index, cell in enumerate(cells):
        text = "".join(_stream_text(o) for o in outputs.get(cell.id, [])
                       if o.get("output_type") == "stream" and o.get("name") == "stderr")
        found = _MISSING_GLYPH.findall(text)
        if not found:
            continue
        chars = "".join(dict.fromkeys(chr(int(code)) for code, _ in found))
        shown_chars = chars if len(chars) <= 30 else chars[:30] + "…"
        fonts = ", ".join(dict.fromkeys(font for _, font in found))
        return MissingGlyph(
            shown, f"a figure draws {len(chars)} character(s) that none of matplotlib's fonts can show ({shown_chars}, "
                   f"missing from {fonts}): the published figure would show empty boxes",
            cell=index + 1, line=lines[index] if index < len(lines) else None)
    return None


def _stream_text(output: dict) -> str:
    text = output.get("text", "")
    return "".join(text) if isinstance(text, list) else text
