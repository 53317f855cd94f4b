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
_LITERAL = re.compile(r"\b(?:PyTorch|torch)\s+v?(\d+)\.(\d+)(?:\.\d+)?(?![\d.])")


def values(torch: str) -> dict[str, str]:
    release = torch.split("+")[0]
    return {"torch_version": ".".join(release.split(".")[:2]), "torch_release": release}


def substitute(markdown: str, known: dict[str, str]) -> str:
    """The tokens of the prose replaced; code untouched. An unknown token is left as it is (check reports it)."""
    parts = _CODE.split(markdown)
    for index in range(0, len(parts), 2):
        parts[index] = TOKEN.sub(lambda m: known.get(m.group(1), m.group(0)), parts[index])
    return "".join(parts)


def check_tokens(path: Path, pinned: str | None) -> list:
    """Unknown tokens, and literals naming the pinned release (or a newer one), in the page's prose."""
    problems = []
    names = ", ".join("{{ " + name + " }}" for name in values("0.0.0"))
    current = _minor(pinned) if pinned else None
    for line_number, text in _prose_lines(path):
        for match in TOKEN.finditer(text):
            if match.group(1) not in values("0.0.0"):
                problems.append(UnknownToken(path, f"unknown token {match.group(0)}; known: {names}", line=line_number))
        for match in _LITERAL.finditer(text):
            major, minor = match.group(1), match.group(2)
            if current is not None and (int(major), int(minor)) >= current:
                problems.append(LiteralVersion(
                    path, f"'{match.group(0)}' names the release this site is built with ({pinned}) in prose: "
                          "it goes stale at the next upgrade", line=line_number))
    return problems


def _prose_lines(path: Path):
    """(line number in the file, text) of every prose line, code blanked out."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    text = _CODE.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(lines))
    in_front = text.startswith("---\n")
    for number, line in enumerate(text.split("\n"), 1):
        if in_front:
            in_front = not (number > 1 and line.strip() == "---")
            continue
        yield number, line


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split("+")[0].split(".")[:2]
    return int(major), int(minor)
