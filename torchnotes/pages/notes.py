"""A page that names one of the five original notes ("Note 004 says …", 笔记 004) links that mention to the Sources
page, which says what the notes are; otherwise the number means nothing to a reader, and in Chinese 笔记 reads as the
site's own name. The Sources page itself defines them and is not checked.

The whole page is searched, code and front matter included: a comment or a description cannot link, so a mention
there is always bare.
"""

from __future__ import annotations

import re
from pathlib import Path

from torchnotes.errors import BareNoteMention

SOURCES = "sources.md"
# "Note 004", "notes 001", "笔记 002", "原始笔记 003"; a paragraph may wrap between the word and the number.
MENTION = re.compile(r"(?:\b[Nn]otes?|笔记)[ \t]*\n?[ \t]*00[0-4](?!\d)")
# A link to the Sources page, [text](../sources.md#note-004): a mention inside its text is explained.
LINK = re.compile(r"\[([^\[\]]*)\]\((?:[^()\s]*/)?" + re.escape(SOURCES) + r"(?:#[^()\s]*)?\)")


def check_note_mentions(path: Path) -> list[BareNoteMention]:
    path = Path(path)
    if path.name == SOURCES:
        return []
    text = path.read_text(encoding="utf-8")
    linked = [match.span(1) for match in LINK.finditer(text)]
    return [BareNoteMention(path, f"'{' '.join(match.group(0).split())}' names an original note without saying "
                                  "what it is", line=text.count("\n", 0, match.start()) + 1)
            for match in MENTION.finditer(text)
            if not any(start <= match.start() and match.end() <= end for start, end in linked)]
