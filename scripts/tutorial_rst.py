"""reStructuredText -> the site's Markdown, with pandoc's rST reader (pypandoc-binary bundles pandoc: no network).

pandoc parses the rST (headings, lists, tables, math, links, roles, directives) into its document tree; a
filter here then rewrites what the site writes its own way: notes and warnings become Material admonitions,
code blocks become fences the engine leaves alone, display math a `$$` block, links and :ref:/:doc: roles
the targets of `tutorial_links.Links`, figures a link to the published image, a video embedded with `.. raw::
html` (YouTube, Bilibili) a link line to the video, and bold or italic text holding ``literals`` (which rST
cannot nest) bold or italic text with code inside. pandoc writes the rest.
"""

from __future__ import annotations

import functools
import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

try:
    import pypandoc
except ImportError:  # not in requirements.txt: only importing needs it
    raise SystemExit("import_tutorial.py needs pandoc: .venv/bin/python -m pip install -r requirements-import.txt") from None
from pandocfilters import Code, Emph, Link, Para, RawBlock, Str, Strong, stringify
from tutorial_links import Links

ADMONITIONS = {"note": "note", "warning": "warning", "tip": "tip", "hint": "tip", "important": "info",
               "caution": "warning", "attention": "warning", "danger": "danger", "error": "danger",
               "seealso": "info", "admonition": "note"}
CONSOLE = {"bash", "sh", "shell", "console"}
SHOWN = {"cpp", "cmake", "yaml", "text"}
# Python-Markdown's dialect: four-space list items, a heading's id only where an rST label gave one, pipe
# tables (else HTML), no pandoc-only syntax, and only the escapes Python-Markdown reads.
FLAVOUR = ("markdown+four_space_rule-auto_identifiers-smart-all_symbols_escapable-simple_tables-multiline_tables"
           "-grid_tables-fenced_divs-native_divs-native_spans-bracketed_spans-link_attributes-inline_code_attributes"
           "-raw_attribute-fenced_code_attributes-strikeout-subscript-superscript")


class TutorialImportError(Exception):
    """A construct the importer cannot convert; the message names the file, the line and what to do."""


class _Embed(HTMLParser):
    """The tags, attributes and text of a raw HTML block, read by the standard library's HTML parser."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text = ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text += data


def video_url(html: str) -> tuple[str, str] | None:
    """(site, watch URL) of a raw HTML block that only embeds one YouTube or Bilibili video (an iframe, perhaps
    inside <div>s), else None: any other HTML still has no Markdown equivalent."""
    embed = _Embed(html)
    frames = [attrs for tag, attrs in embed.tags if tag == "iframe"]
    if len(frames) != 1 or embed.text.strip() or any(tag not in ("div", "iframe") for tag, _ in embed.tags):
        return None
    src = urlsplit(frames[0].get("src") or "", scheme="https")
    host, path = src.netloc.lower().removeprefix("www."), src.path
    if host in ("youtube.com", "youtube-nocookie.com") and path.startswith("/embed/") and path[7:]:
        return "YouTube", f"https://www.youtube.com/watch?v={path[7:].strip('/')}"
    bvid = parse_qs(src.query).get("bvid", [""])[0]
    if host == "player.bilibili.com" and bvid:
        return "Bilibili", f"https://www.bilibili.com/video/{bvid}/"
    return None


# A literal block (`::`) without a language that holds shell commands: shown as a console session.
_SHELL = re.compile(r"^\s*(?:\$ )?(?:pip3?|conda|python3? -m pip|apt(?:-get)?|git|wget|curl|export|cd|mkdir|bash) ")


def _fence(classes: list[str], text: str = "") -> str:
    lang = classes[0].lower() if classes else ""
    if lang in CONSOLE or (not lang and text and all(_SHELL.match(line) for line in text.splitlines() if line.strip())):
        return "```console"
    if lang in ("python", "py", "default"):
        return '```python tags=["skip-execution"]'
    return f"```{lang}" if lang in SHOWN else "```text"


def as_docutils_reads(rst: str) -> str:
    """Two things docutils accepts and pandoc reads otherwise, both in the official tutorials: a title whose
    underline is shorter than it ("Attributes of a Tensor" over 17 '~'; pandoc: a paragraph), and a note whose
    body starts on the line after `.. note::` with no blank line (pandoc: one paragraph, lists flattened)."""
    def grow(m: re.Match) -> str:
        return f"{m.group(1)}\n{m.group(3) * max(len(m.group(1).strip()), len(m.group(2)))}"
    rst = re.sub(r"^([^\s].*)\n(([=\-~^\"'`#*+])\3{3,})[ \t]*$", grow, rst, flags=re.M)
    names = "|".join(ADMONITIONS)
    return re.sub(rf"^([ \t]*\.\. (?:{names})::)[ \t]*\n(?=[ \t]+\S)", "\\1\n\n", rst, flags=re.M)


def walk(node, action):
    """Apply `action` to every element (a dict with "t") of a pandoc tree, outermost first. What the action
    returns (an element, a list spliced in place, or None for "unchanged, look inside") is final: the action
    walks the children it keeps itself, so nothing is rewritten twice (a resolved link stays resolved)."""
    if isinstance(node, list):
        out = []
        for item in node:
            result = action(item["t"], item.get("c")) if isinstance(item, dict) and "t" in item else None
            if result is None:
                out.append(walk(item, action))
            else:
                out.extend(result if isinstance(result, list) else [result])
        return out
    if isinstance(node, dict):
        return {key: walk(value, action) for key, value in node.items()}
    return node


def parse(rst: str) -> list:
    return json.loads(pypandoc.convert_text(as_docutils_reads(rst), "json", format="rst-auto_identifiers"))["blocks"]


@functools.cache
def _api_version() -> list:
    """The version of pandoc's tree format that the bundled pandoc reads back."""
    return json.loads(pypandoc.convert_text("", "json", format="markdown"))["pandoc-api-version"]


def as_is(text: str) -> dict:
    """A block pandoc writes as it is; the trailing blank line keeps it apart from the next raw block."""
    return RawBlock("markdown", text + "\n")


def write(blocks: list) -> str:
    tree = {"pandoc-api-version": _api_version(), "meta": {}, "blocks": blocks}
    return pypandoc.convert_text(json.dumps(tree), FLAVOUR, format="json", extra_args=["--wrap=preserve"]).strip("\n")


class Filter:
    """The rewrite of each pandoc element the site writes its own way (a method per element type); `links`
    resolves and records every target; `source` (the .py text) gives the line an error names."""

    def __init__(self, links: Links, where: str, source: str):
        self.links, self.where, self.source = links, where, source

    def __call__(self, key, value):
        method = getattr(self, key.lower(), None)
        return method(value) if method else None

    def fail(self, construct: str, what: str) -> TutorialImportError:
        found = self.source.find(construct)
        line = f":{self.source.count(chr(10), 0, found) + 1}" if found >= 0 else ""
        return TutorialImportError(f"{self.where}{line}: {what} has no Markdown equivalent here; rewrite it by hand "
                                   "in the .py file (or remove it) and import again")

    def rawblock(self, value):
        video = video_url(value[1]) if value[0] == "html" else None
        if video is None:
            raise self.fail(".. raw::", f"raw {value[0]} ('.. raw::')")
        # The site loads nothing from other hosts (no iframe): the reader follows a link to the video.
        site, url = video
        self.links.rewritten.append(f".. raw:: html (a {site} iframe) -> a link line: {url}")
        self.links.videos.append(url)
        return Para([Str("Video"), {"t": "Space"}, Str("on"), {"t": "Space"}, Str(f"{site}:"), {"t": "Space"}, Link(["", [], []], [Str(url)], [url, ""])])

    def strong(self, value):
        return self._nested(value, Strong)

    def emph(self, value):
        return self._nested(value, Emph)

    def _nested(self, value, kind):
        """rST does not nest inline markup: in **the ``clone()`` method** the back-quotes are text. Their text
        (plain, since nothing else nests either) read again as rST gives its code; the result is bold or italic."""
        text = stringify(value)
        if "``" not in text:
            return None
        blocks = parse(text)
        if len(blocks) != 1 or blocks[0]["t"] != "Para":
            return None
        return kind(walk(blocks[0]["c"], self))

    def codeblock(self, value):
        (_, classes, _), text = value
        return as_is(f"{_fence(classes, text)}\n{text}\n```")

    def span(self, value):
        (_, classes, _), inlines = value
        if "title-ref" in classes:  # rST's default role (`sin()` in single back-quotes): the tutorials mean code
            return Code(["", [], []], stringify(inlines))
        return None

    def para(self, value):
        if len(value) == 1 and value[0]["t"] == "Math" and value[0]["c"][0]["t"] == "DisplayMath":
            return as_is(f"$$\n{value[0]['c'][1].strip()}\n$$")
        return None

    def definitionlist(self, value):
        # rST reads any line followed by an indented block as a definition list; in the tutorials that is always
        # a sentence and its indented list ("There are reasons ...:"), which Markdown writes as they are.
        return walk([block for term, definitions in value for block in [Para(term)] + sum(definitions, [])], self)

    def div(self, value):
        (_, classes, _), blocks = value
        kind = next((ADMONITIONS[c] for c in classes if c in ADMONITIONS), None)
        if kind is None and (not classes or classes[0] in ("container", "topic")):
            return walk(blocks, self)  # a target's div, or a box the site has no style for: the content stays
        if kind is None:  # a directive pandoc does not know (.. youtube::, .. customcarditem::, ...)
            raise self.fail(f".. {classes[0]}::", f"the '.. {classes[0]}::' directive")
        title = ""
        if blocks and blocks[0]["t"] == "Div" and "title" in blocks[0]["c"][0][1]:  # pandoc's "Note" title
            blocks = blocks[1:]
        if "admonition" in classes and blocks:  # `.. admonition:: Title`: the title is the first paragraph
            title, blocks = f' "{stringify(blocks[0])}"', blocks[1:]
        elif "seealso" in classes:
            title = ' "See also"'
        inner = write(walk(blocks, self))
        body = "\n".join(("    " + line) if line.strip() else "" for line in inner.split("\n"))
        return as_is(f"!!! {kind}{title}\n{body}")

    def code(self, value):
        (_, _, attributes), text = value
        role = dict(attributes).get("role")
        if role not in ("ref", "doc"):
            return Code(["", [], []], text)  # :func:, :class:, ... and ``literals``: inline code
        named = re.fullmatch(r"(.+?)\s*<([^<>]+)>", text, flags=re.S)
        label, target = (named.group(1), named.group(2)) if named else (None, text)
        url = self.links.ref(target) if role == "ref" else self.links.doc(target)
        shown = label or self.links.labels.get(target.strip().lower()) or target.rsplit("/", 1)[-1]
        return Str(shown) if url is None else Link(["", [], []], [Str(shown)], [url, ""])

    def link(self, value):
        attributes, inlines, (url, title) = value
        return Link(attributes, walk(inlines, self), [self.links.target(url), title])

    def image(self, value):
        _, alt, (url, _) = value
        text = stringify(alt) if stringify(alt) not in ("", "image") else url.rsplit("/", 1)[-1]
        link = Link(["", [], []], [Str(text)], [self.links.target(url), ""])
        self.links.rewritten[-1] += (" (an image, shown as a link: the site loads nothing from elsewhere; to show it, "
                                     "save it next to the page and write ![...](file.png))")
        return [Str("Figure:"), {"t": "Space"}, link]

    def figure(self, value):
        _, (_, caption), blocks = value
        caption = [Para(b["c"]) if b["t"] == "Plain" else b for b in caption]
        return walk(blocks, self) + walk(caption, self)  # the image's link, then its caption as a paragraph


def convert_text(rst: str, links: Links, where: str, source: str) -> str:
    """A whole tutorial's text (code cells as placeholder paragraphs) -> Markdown, the title first."""
    blocks = parse(rst)
    titles = [i for i, b in enumerate(blocks) if b["t"] == "Header" and b["c"][0] == 1]
    if not titles:
        raise TutorialImportError(f"{where}: no title (an underlined heading) in the first text cell")
    if len(titles) > 1:
        title = stringify(blocks[titles[1]])
        raise TutorialImportError(f"{where}: a second top-level title '{title}'; a page has one title: "
                                  "give it the adornment of the sections in the .py file and import again")
    # The title opens the page; a series' breadcrumb line above it moves below it.
    blocks.insert(0, blocks.pop(titles[0]))
    walk(blocks, lambda k, v: links.labels.update({v[1][0]: stringify(v[2])}) if k == "Header" and v[1][0] else None)
    text = write(walk(blocks, Filter(links, where, source)))
    # pandoc escapes '|' for its pipe tables; Python-Markdown reads '\|' as an escape only with its tables extension.
    return "\n".join(x if x.startswith("|") else x.replace("\\|", "|") for x in text.split("\n"))
