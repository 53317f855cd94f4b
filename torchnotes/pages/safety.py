"""Prose safety: the HTML in a page's Markdown cells follows the policy of cell outputs (render.sanitize).

Prose comes from pull requests and is published under the project's name, and the site loads nothing from
other hosts. So a page's Markdown may not carry scripts, frames, embedded objects, event handlers,
javascript: URLs, tags the sanitiser would drop, or anything that loads from another host (an <img src> or a
Markdown image ![](https://...)). Plain links to other sites are fine: they load nothing.

Code (fenced blocks and inline `code`) is text on the page, not HTML, so it is blanked out before parsing.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import nh3

from torchnotes.errors import UnsafeProse
from torchnotes.pages.read import Page

# Tags the sanitiser of cell outputs keeps; anything else in prose is reported.
ALLOWED_TAGS = frozenset(nh3.ALLOWED_TAGS)
# Tags with their own message, because what they do is worse than being dropped.
ACTIVE_TAGS = {
    "script": "runs JavaScript on the site",
    "iframe": "embeds another page",
    "frame": "embeds another page",
    "object": "embeds a plugin or another document",
    "embed": "embeds a plugin or another document",
}
# Attributes whose URL the browser fetches when the page loads (not on click).
LOADING_ATTRIBUTES = {"src", "srcset", "poster", "data", "background"}
LOADING_LINK_TAGS = {"link"}  # <link href=...> loads; <a href=...> does not
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "cite"}
_SCRIPT_SCHEMES = ("javascript:", "vbscript:")

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
# Markdown (not HTML) syntax for images and link targets; the HTML itself goes through html.parser.
_MD_IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]+)")
_MD_LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]+)")
_MD_IMAGE_REF = re.compile(r"!\[((?:[^\]\\]|\\.)*)\](?:\[((?:[^\]\\]|\\.)*)\])?")
_MD_REF_DEF = re.compile(r"^ {0,3}\[((?:[^\]\\]|\\.)+)\]:\s*<?(\S+?)>?(?:\s|$)", re.M)


def check_prose(path: Path | str, page: Page) -> list[UnsafeProse]:
    """Every unsafe construct in the page's Markdown cells, each with the line of the .md file it is on."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    problems: list[UnsafeProse] = []
    position = 0
    for cell in page.notebook.cells:
        if cell.cell_type != "markdown" or not cell.source.strip():
            continue
        found = text.find(cell.source, position)
        if found < 0:  # jupytext changed the text; search the whole file so no cell goes unchecked
            found = max(text.find(cell.source), 0)
        position = found + len(cell.source)
        first_line = text.count("\n", 0, found) + 1
        prose = _blank_code(cell.source)
        problems += _check_html(path, prose, first_line)
        problems += _check_markdown(path, prose, first_line)
    return sorted(problems, key=lambda p: (p.line or 0, p.reason))


def _blank_code(source: str) -> str:
    """The cell with fenced blocks and inline code replaced by spaces, so line numbers stay put."""
    out, fence = [], None
    for line in source.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group("mark")
            out.append("")
        elif fence is not None:
            if match and match.group("mark")[0] == fence[0] and len(match.group("mark")) >= len(fence) \
                    and not line.strip()[len(match.group("mark")):].strip():
                fence = None
            out.append("")
        else:
            out.append(line)
    return _INLINE_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), "\n".join(out))


def _foreign(url: str) -> bool:
    """A URL on another host: absolute http(s) or protocol-relative."""
    url = url.strip().lower()
    return url.startswith(("http://", "https://", "//"))


def _script_url(url: str) -> bool:
    # Browsers ignore whitespace and control characters inside the scheme.
    return re.sub(r"[\x00-\x20]", "", url).lower().startswith(_SCRIPT_SCHEMES)


class _Scanner(HTMLParser):
    def __init__(self, path: Path, first_line: int):
        super().__init__(convert_charrefs=True)
        self.path, self.first_line = path, first_line
        self.problems: list[UnsafeProse] = []
        self._in_style: int | None = None

    def report(self, reason: str, hint: str, line: int | None = None) -> None:
        where = self.first_line + (line if line is not None else self.getpos()[0]) - 1
        self.problems.append(UnsafeProse(self.path, reason, line=where, hint=hint))

    def handle_starttag(self, tag, attrs):
        if ":" in tag or "@" in tag:
            return  # a Markdown autolink such as <https://pytorch.org>, not a tag
        if tag in ACTIVE_TAGS:
            self.report(f"<{tag}> in the prose {ACTIVE_TAGS[tag]}",
                        f"remove the <{tag}>; show code in a ```python cell, and link to other sites with [text](url)")
        elif tag == "style":
            self._in_style = self.getpos()[0]
        elif tag not in ALLOWED_TAGS:
            self.report(f"<{tag}> is not allowed in prose (cell outputs drop it too)",
                        "use Markdown or the tags listed in CONTRIBUTING.md (Safe prose); to show the text itself, "
                        "write &lt; or put it in `code`")
        for name, value in attrs:
            self._check_attribute(tag, name, value or "")

    handle_startendtag = handle_starttag

    def _check_attribute(self, tag: str, name: str, value: str) -> None:
        if name.startswith("on"):
            self.report(f"event-handler attribute {name}= on <{tag}> runs JavaScript",
                        f"remove {name}=; pages carry no scripts")
        elif name in URL_ATTRIBUTES and _script_url(value):
            self.report(f"javascript: URL in {name}= on <{tag}>", "link to a page instead; pages carry no scripts")
        elif (name in LOADING_ATTRIBUTES or (name == "href" and tag in LOADING_LINK_TAGS)) and \
                any(_foreign(part.split()[0]) for part in value.split(",") if part.strip()):
            self.report(f"<{tag} {name}=\"{value}\"> loads from another host; the site loads nothing from other hosts",
                        "put the file under docs/assets/ and point to it with a relative path, or link to it with [text](url)")
        elif name == "style" and _loads_in_css(value):
            self.report(f"style= on <{tag}> loads a URL ({value.strip()[:60]})",
                        "remove the url()/@import; styling belongs in overrides/, not in a page")

    def handle_data(self, data):
        if self._in_style is not None and _loads_in_css(data):
            self.report("<style> loads a URL (url() or @import)",
                        "remove the <style>; styling belongs in overrides/, not in a page", line=self._in_style)

    def handle_endtag(self, tag):
        if tag == "style" and self._in_style is not None:
            self._in_style = None


def _loads_in_css(css: str) -> bool:
    return bool(re.search(r"url\s*\(|@import", css, re.I))


def _check_html(path: Path, prose: str, first_line: int) -> list[UnsafeProse]:
    scanner = _Scanner(path, first_line)
    scanner.feed(prose)
    scanner.close()
    if scanner._in_style is not None:  # an unclosed <style>: its text never reached handle_endtag
        scanner.handle_data(prose.split("\n", scanner._in_style - 1)[-1])
    return scanner.problems


def _check_markdown(path: Path, prose: str, first_line: int) -> list[UnsafeProse]:
    def line_of(offset: int) -> int:
        return first_line + prose.count("\n", 0, offset)

    problems = []
    for match in _MD_IMAGE.finditer(prose):
        if _foreign(match.group(1)):
            problems.append(UnsafeProse(
                path, f"Markdown image ![...]({match.group(1)}) loads from another host; the site loads nothing from other hosts",
                line=line_of(match.start()),
                hint="save the image under docs/assets/ and use a relative path, or make it a link: [text](url)"))
    refs = {m.group(1).strip().lower(): m.group(2) for m in _MD_REF_DEF.finditer(prose)}
    for match in _MD_IMAGE_REF.finditer(prose):
        if prose[match.end():match.end() + 1] == "(":
            continue  # an inline image, checked above
        label = (match.group(2) or match.group(1)).strip().lower()
        if label in refs and _foreign(refs[label]):
            problems.append(UnsafeProse(
                path, f"Markdown image ![...][{label}] loads {refs[label]} from another host",
                line=line_of(match.start()),
                hint="save the image under docs/assets/ and use a relative path, or make it a link: [text](url)"))
    for match in list(_MD_LINK.finditer(prose)) + list(_MD_IMAGE.finditer(prose)):
        if _script_url(match.group(1)):
            problems.append(UnsafeProse(path, f"javascript: URL in a Markdown link ({match.group(1)[:60]})",
                                        line=line_of(match.start()), hint="link to a page instead; pages carry no scripts"))
    for match in _MD_REF_DEF.finditer(prose):
        if _script_url(match.group(2)):
            problems.append(UnsafeProse(path, f"javascript: URL in the link definition [{match.group(1)}]",
                                        line=line_of(match.start()), hint="link to a page instead; pages carry no scripts"))
    return problems
