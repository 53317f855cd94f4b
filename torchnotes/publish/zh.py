"""Chinese text: no stray spaces where the source wraps a line between two CJK characters.

A browser turns a line break inside a paragraph into a space; between two Chinese characters that space is
wrong. `join_cjk_lines` removes such breaks from page Markdown (prose only); `cjk_gaps` finds any that reach
the built HTML, for the check that keeps them from coming back.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Han (with extensions and compatibility ideographs), kana, CJK symbols and punctuation (、。「」《》…),
# full-width forms (，；：？！（）). Hangul is left out: Korean puts spaces between words.
CJK = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3190-\u319f\u31c0-\u31ff\u3200-\u32ff\u3300-\u33ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003134f"
)
_CJK = re.compile(f"[{CJK}]")
# Han characters (Unicode script Han) in the planes this site uses, for everything that looks for Chinese words
# (the search index and its query expansion, the search entries kept between builds); the worker uses \p{sc=Han}.
HAN = re.compile("[\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff"
                 "\uf900-\ufaff\U00020000-\U0003134f]+")
_GAP = re.compile(f"[{CJK}]\\s+[{CJK}]")

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HTML_RAW = re.compile(r"^\s*<(pre|script|style|textarea)\b", re.I)
_HTML = re.compile(r"^\s*</?[A-Za-z][\w-]*(\s|/?>|$)|^\s*<!--")
# Lines that begin a block of their own: never glued to the line before.
_BLOCK_START = re.compile(
    r"""^\s*(
        \#{1,6}(\s|$)             # ATX heading
      | [-*+](\s|$)               # bullet item
      | \d{1,9}[.)](\s|$)         # ordered item
      | \|                        # table row
      | >                         # block quote
      | (!!!|\?\?\?\+?|===)(\s|$) # admonition, collapsible, content tab
      | \$\$ | \\\[ | \\begin\{   # display math
      | \[\^[^\]]+\]:             # footnote definition
      | \*\[[^\]]+\]:             # abbreviation
      | \[[^\]]+\]:\s             # link reference definition
      | :\s                       # definition list
      | ([-*_=]\s*){3,}$          # rule or setext underline
    )""",
    re.X,
)
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
# Inline code (a run of backticks up to the same run) and inline math ($...$, \(...\)).
_INLINE = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)|(?<![\\$])\$(?![\s$]).*?(?<![\s\\])\$|\\\(.*?\\\)", re.S)


def join_cjk_lines(markdown: str) -> str:
    """Join the lines of each prose paragraph where the break falls between two CJK characters.

    The break and the spaces around it go; the earlier line keeps its indentation, so list items,
    admonition and tab bodies keep their structure. Front matter, fenced code, HTML blocks, display math,
    tables, headings, inline code and inline math are left exactly as they are.
    """
    lines = markdown.split("\n")
    joiner = _Joiner()
    start = 0
    if lines and lines[0].strip() == "---":
        # YAML front matter is data, not prose.
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is not None:
            joiner.out.extend(lines[: end + 1])
            start = end + 1
    for line in lines[start:]:
        if not joiner.inside_block(line) and not joiner.opens_block(line):
            joiner.prose(line)
    joiner.flush()
    return "\n".join(joiner.out)


class _Joiner:
    """The lines seen so far, the paragraph being gathered, and the verbatim block we are in, if any."""

    def __init__(self):
        self.out: list[str] = []
        self.paragraph: list[str] = []
        self.fence: str | None = None  # the opening run (``` or ~~~) while inside a fenced block
        self.raw_tag: str | None = None  # <pre> and friends: verbatim until their closing tag
        self.in_html = False
        self.math_end: str | None = None  # what closes the display math block we are in

    def flush(self) -> None:
        self.out.extend(_join_paragraph(self.paragraph))
        self.paragraph.clear()

    def inside_block(self, line: str) -> bool:
        """A line of a verbatim block already open: kept as it is, the block closed where it ends."""
        stripped = line.strip()
        if self.fence is not None:
            run = re.match(r"(`{3,}|~{3,})\s*$", stripped)
            if run and run.group(1)[0] == self.fence[0] and len(run.group(1)) >= len(self.fence):
                self.fence = None
        elif self.raw_tag is not None:
            if f"</{self.raw_tag}" in line.lower():
                self.raw_tag = None
        elif self.math_end is not None:
            if stripped.endswith(self.math_end):
                self.math_end = None
        elif self.in_html:
            self.in_html = bool(stripped)
        else:
            return False
        self.out.append(line)
        return True

    def opens_block(self, line: str) -> bool:
        """A line that opens a verbatim block or ends the paragraph: the paragraph is flushed, the line kept."""
        stripped = line.strip()
        opened, raw, math = _FENCE.match(line), _HTML_RAW.match(line), re.match(r"(\$\$|\\\[|\\begin\{([^}]*)\})", stripped)
        if opened:
            self.fence = opened.group(1)
        elif raw:
            if f"</{raw.group(1).lower()}" not in line.lower():
                self.raw_tag = raw.group(1).lower()
        elif _HTML.match(line):
            self.in_html = True
        elif math:
            end = {"$$": "$$", "\\[": "\\]"}.get(math.group(1)) or f"\\end{{{math.group(2)}}}"
            if not stripped[len(math.group(1)):].endswith(end):
                self.math_end = end
        elif stripped:
            return False
        self.flush()
        self.out.append(line)
        return True

    def prose(self, line: str) -> None:
        quoted = _QUOTE.match(line)
        continues_quote = quoted and self.paragraph and _quote_depth(self.paragraph[-1]) == _quote_depth(line)
        if _BLOCK_START.match(line) and not continues_quote:
            self.flush()
        self.paragraph.append(line)


def _join_paragraph(lines: list[str]) -> list[str]:
    """One paragraph's lines (the first may be a list item or other block start) with CJK breaks removed."""
    if len(lines) < 2:
        return list(lines)
    if any(_TABLE_DELIMITER.match(line) for line in lines[1:]):
        return list(lines)  # a table: each row must stay on its own line
    protected = _protected_breaks(lines)
    out = [lines[0]]
    for index, line in enumerate(lines[1:], start=1):
        before, after = out[-1].rstrip(" \t"), line.lstrip(" \t")
        if _quote_depth(line):
            after = _QUOTE.sub("", line).lstrip(" \t")
        # Two or more trailing blanks (or a backslash) are a hard line break the writer asked for.
        hard_break = len(out[-1]) - len(before) >= 2 or before.endswith("\\")
        if (
            index - 1 not in protected
            and not hard_break
            and (_quote_depth(line) or not _BLOCK_START.match(line))
            and _is_prose(out[-1])
            and before and after
            and _CJK.match(_last_visible(before))
            and _CJK.match(_first_visible(after))
        ):
            out[-1] = before + after
        else:
            out.append(line)
    return out


_QUOTE = re.compile(r"^\s*(>\s?)+")


def _quote_depth(line: str) -> int:
    quoted = _QUOTE.match(line)
    return quoted.group().count(">") if quoted else 0


def _last_visible(text: str) -> str:
    """The last character a reader sees: emphasis marks and a trailing link's target do not show."""
    text = _LINK_TAIL.sub("", text).rstrip("*_~")
    return text[-1:] or " "


def _first_visible(text: str) -> str:
    return text.lstrip("*_~[")[:1] or " "


_LINK_TAIL = re.compile(r"\]\([^()\s]*\)[*_~]*$|\]\[[^\]]*\][*_~]*$")


def _is_prose(line: str) -> bool:
    """A line whose end may be continued: not a heading, table row, definition or rule."""
    return not re.match(r"^\s*(\#{1,6}(\s|$)|\||\[[^\]]+\]:|\*\[|([-*_=]\s*){3,}$)", line)


def _protected_breaks(lines: list[str]) -> set[int]:
    """Indexes i whose break (between lines[i] and lines[i+1]) falls inside inline code or math."""
    text = "\n".join(lines)
    breaks, offset = [], 0
    for line in lines[:-1]:
        offset += len(line)
        breaks.append(offset)
        offset += 1
    spans = [match.span() for match in _INLINE.finditer(text)]
    return {i for i, where in enumerate(breaks) if any(a < where < b for a, b in spans)}


class _Paragraphs(HTMLParser):
    """Collects the rendered text of each paragraph-like element, with code replaced by a marker."""

    BLOCKS = {"p", "li", "td", "th", "dt", "dd"}
    VERBATIM = {"pre", "code", "script", "style", "kbd", "samp"}
    VOID = {"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col", "area", "base", "embed", "track"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.texts: list[list[str]] = []  # one buffer per open block element
        self.done: list[str] = []
        self.verbatim = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        if tag in self.VERBATIM:
            if self.verbatim == 0 and self.texts:
                self.texts[-1].append("\ufffc")  # code is not CJK prose: it separates what surrounds it
            self.verbatim += 1
        self.stack.append(tag)
        if tag in self.BLOCKS:
            self.texts.append([])

    def handle_endtag(self, tag):
        if tag not in self.stack:
            return
        while self.stack:
            open_tag = self.stack.pop()
            if open_tag in self.VERBATIM:
                self.verbatim -= 1
            if open_tag in self.BLOCKS:
                self.done.append("".join(self.texts.pop()))
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.texts and not self.verbatim:
            self.texts[-1].append(data)


def cjk_gaps(html: str, context: int = 8) -> list[str]:
    """Snippets of rendered paragraphs (p, li, td...; not pre or code) with whitespace between two CJK characters."""
    parser = _Paragraphs()
    parser.feed(html)
    parser.close()
    texts = parser.done + ["".join(buffer) for buffer in parser.texts]
    found = []
    for text in texts:
        for match in _GAP.finditer(text):
            a, b = max(0, match.start() - context), match.end() + context
            found.append(text[a:b].replace("\ufffc", "`…`"))
    return found
