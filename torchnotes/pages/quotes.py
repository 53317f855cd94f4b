"""Quotation marks in Chinese prose: the site quotes with “” (issue 47: 「」, “” and ASCII "" were mixed). The
glossary's check (glossary.find_calques) reports any other, line by line."""

from __future__ import annotations

import re

# Quotation marks in Chinese prose are “” (issue 47: 「」, “” and ASCII "" were mixed): 「」 anywhere in prose, or ASCII
# double quotes around text that holds a Chinese character. Admonition titles (!!! note "标题") are Markdown syntax.
CORNER_QUOTES = re.compile(r"[「」『』]")
ASCII_QUOTED = re.compile(r'"(?=[^"\s])[^"\n]*[\u4e00-\u9fff][^"\n]*(?<=[^"\s])"')
ADMONITION = re.compile(r'^\s*(?:!!!|\?\?\?\+?|===)\s*(?:[\w-]+\s*)?"[^"]*"')


def other_quotes(line: str) -> str | None:
    """The first quotation of the line that is not “”, or None."""
    line = ADMONITION.sub("", line)
    line = re.sub(r"<[^>]*>", lambda m: " " * len(m.group()), line)  # attribute values of raw HTML
    found = CORNER_QUOTES.search(line) or ASCII_QUOTED.search(line)
    return found.group() if found else None
