"""A page that names one of the five original notes ("Note 004 says …", 笔记 004) links that mention to the Sources
page, which says what the notes are; otherwise the number means nothing to a reader, and in Chinese 笔记 reads as the
site's own name (PyTorch 笔记). The Sources page itself defines them and is not checked.

Three rules, each with its own error:
- a numbered mention (note 004, 笔记 004) is the text of a link to the Sources page (BareNoteMention);
- 笔记 is never bare: it is part of 原笔记 / 原始笔记 (an original note), PyTorch 笔记 (the site) or 笔记本电脑
  (a laptop); a sentence about this site says 本站 (AmbiguousNoteWord);
- on a page that mentions an original note (原笔记, 原始笔记, "original note", "note 004"), the first mention in
  the prose is a link to the Sources page (UnlinkedNoteMention). Front matter, code, headings and admonition
  titles cannot carry a link, so a mention there is not the first one.

The whole page is searched for the first two rules, code and front matter included: a comment, a printed label or
a description is read like prose, and it cannot link, so a numbered mention there is always bare.
"""

from __future__ import annotations

import re
from pathlib import Path

from torchnotes.errors import AmbiguousNoteWord, BareNoteMention, UnlinkedNoteMention

SOURCES = "sources.md"
# "Note 004", "notes 001", "笔记 002", "原始笔记 003"; a paragraph may wrap between the word and the number.
MENTION = re.compile(r"(?:\b[Nn]otes?|笔记)[ \t]*\n?[ \t]*00[0-4](?!\d)")
# A link to the Sources page, [text](../sources.md#note-004): a mention inside its text is explained.
LINK = re.compile(r"\[([^\[\]]*)\]\((?:[^()\s]*/)?" + re.escape(SOURCES) + r"(?:#[^()\s]*)?\)")
# 笔记 as a word of its own: an original note (原笔记, 原始笔记), the site (PyTorch 笔记) or a laptop (笔记本电脑).
NOTE_WORD = re.compile(r"笔记")
NAMED = re.compile(r"原始?笔记|PyTorch[ \t]*\n?[ \t]*笔记|笔记本电脑")
# Any mention of an original note, in either language.
# A numbered one first, with its 原始, so that it is one match.
ORIGINAL = re.compile(r"(?:原始?)?(?:" + MENTION.pattern + r")|原始?笔记|\b[Oo]riginal[ \t]*\n?[ \t]*notes?\b")
FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
NOT_PROSE = re.compile(r"[ \t]*(?:#{1,6}[ \t]|(?:!!!|\?\?\?)\+?[ \t])")  # a heading or an admonition's title line


def check_note_mentions(path: Path) -> list[BareNoteMention | AmbiguousNoteWord | UnlinkedNoteMention]:
    path = Path(path)
    if path.name == SOURCES:
        return []
    text = path.read_text(encoding="utf-8")
    linked = [match.span(1) for match in LINK.finditer(text)]

    def inside(spans, start, end):
        return any(a <= start and end <= b for a, b in spans)

    def line(at):
        return text.count("\n", 0, at) + 1

    errors: list = [
        BareNoteMention(path, f"'{' '.join(match.group(0).split())}' names an original note without saying "
                              "what it is", line=line(match.start()))
        for match in MENTION.finditer(text) if not inside(linked, match.start(), match.end())]
    # A numbered mention is named (and, if bare, reported above): one error for one mistake.
    named = [match.span() for pattern in (NAMED, MENTION) for match in pattern.finditer(text)]
    errors += [AmbiguousNoteWord(path, f"'{_around(text, match.start())}': 笔记 could mean this site (PyTorch 笔记) "
                                       "or one of the original notes", line=line(match.start()))
               for match in NOTE_WORD.finditer(text) if not inside(named, match.start(), match.end())]
    prose = _prose(text)
    first = next((match for match in ORIGINAL.finditer(text) if inside(prose, match.start(), match.start() + 1)),
                 None)
    numbered = first is not None and MENTION.search(first.group(0))  # a bare one is reported above
    if first is not None and not numbered and not inside(linked, first.start(), first.end()):
        errors.append(UnlinkedNoteMention(path, f"the page's first mention of an original note, "
                                                f"'{' '.join(first.group(0).split())}', is not a link to the "
                                                "Sources page", line=line(first.start())))
    return sorted(errors, key=lambda error: error.line)


def _around(text: str, at: int) -> str:
    """The words around a match, on its line, to find it by."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    return text[max(start, at - 12):min(end, at + 14)].strip()


def _prose(text: str) -> list[tuple[int, int]]:
    """The spans of the lines that can carry a link: not front matter, code, a heading or an admonition title."""
    spans, fence, offset = [], None, 0
    lines = text.split("\n")
    in_front = bool(lines) and lines[0].strip() == "---"
    for number, content in enumerate(lines):
        start, offset = offset, offset + len(content) + 1
        if in_front:
            in_front = number == 0 or content.strip() != "---"
            continue
        opening = FENCE.match(content)
        if fence:
            if opening and opening.group(1).startswith(fence) and not content.strip().strip(fence[0]):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        if not NOT_PROSE.match(content):
            spans.append((start, start + len(content)))
    return spans
