"""Prose that names "the version this site is built with" takes the number from the build, never from the page.

A page writes `{{ torch_version }}` (2.15) or `{{ torch_release }}` (2.15.0); the publish step replaces them in
prose, outside code, for every generator (they see plain text). Historical facts stay literal ("since 2.6").
`check` refuses an unknown token and a literal that names the pinned release, or a newer one, in prose: such a
sentence is about the build and goes stale at the next upgrade.

The paired notebooks under notebooks/ keep the tokens: jupytext pairs a notebook back to its page, and a number
substituted there would come back into the page as a literal. The executed notebook offered for download has them
replaced, like the page.
"""

from __future__ import annotations

import re
from pathlib import Path

from torchnotes.errors import LiteralVersion, UnknownToken

TOKEN = re.compile(r"\{\{\s*([^{}\s]+)\s*\}\}")
# Code is not prose: fenced blocks and inline code keep what they say.
_CODE = re.compile(r"(^[ \t]*```.*?^[ \t]*```[^\n]*$|^[ \t]*~~~.*?^[ \t]*~~~[^\n]*$|`+[^`\n]*`+)", re.DOTALL | re.MULTILINE)
# "PyTorch 2.15" / "torch 2.15.0": how prose names the release it runs on. A bare release number ("CUDA 13.2
# for 2.15.0") is a fact about that release and stays true after an upgrade.
# One line break at most between the name and the number: a paragraph wraps there, a blank line ends it.
_LITERAL = re.compile(r"\b(?:PyTorch|torch)(?=\s)[ \t]*\n?[ \t]*v?(\d+)\.(\d+)(?:\.\d+)?(?![\d.])")


def values(torch: str) -> dict[str, str]:
    release = torch.split("+")[0]
    return {"torch_version": ".".join(release.split(".")[:2]), "torch_release": release}


def substitute(markdown: str, known: dict[str, str]) -> str:
    """The tokens of the prose replaced; code untouched. An unknown token is left as it is (check reports it)."""
    parts = _CODE.split(markdown)
    for index in range(0, len(parts), 2):
        parts[index] = TOKEN.sub(lambda m: known.get(m.group(1), m.group(0)), parts[index])
    return "".join(parts)


def check_tokens(path: Path, pinned: str | None, text: str | None = None) -> list:
    """Unknown tokens, and literals naming the pinned release (or a newer one), in the page's prose.

    The prose is searched whole, not line by line: a paragraph wrapped between "PyTorch" and "2.15" still reads
    "PyTorch 2.15" (and a token wrapped inside its braces is still replaced by substitute())."""
    text = _prose(path, text)
    known = values("0.0.0")
    names = ", ".join("{{ " + name + " }}" for name in known)
    current = _minor(pinned) if pinned else None
    found = []  # (position, problem): sorted into the order of the page
    for match in TOKEN.finditer(text):
        if match.group(1) not in known:
            found.append((match.start(), UnknownToken(path, f"unknown token {match.group(0)}; known: {names}",
                                                      line=_line(text, match))))
    for match in _LITERAL.finditer(text):
        if current is not None and (int(match.group(1)), int(match.group(2))) >= current:
            said = " ".join(match.group(0).split())
            found.append((match.start(), LiteralVersion(
                path, f"'{said}' names the release this site is built with ({pinned}) in prose: "
                      "it goes stale at the next upgrade", line=_line(text, match))))
    return [problem for _, problem in sorted(found, key=lambda item: item[0])]


def _prose(path: Path, text: str | None = None) -> str:
    """The page's text (as read from path, unless given) with its code and its front matter blanked out, line
    breaks kept (for line numbers)."""
    if text is None:
        text = Path(path).read_text(encoding="utf-8")
    text = _CODE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    if not text.startswith("---\n"):
        return text
    lines = text.split("\n")
    closing = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), len(lines) - 1)
    return "\n" * closing + "\n" + "\n".join(lines[closing + 1:])


def _line(text: str, match: re.Match) -> int:
    return text.count("\n", 0, match.start()) + 1


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int(minor)
