"""Turn a page and its executed outputs into Markdown that Material renders natively.

Code stays a python fence (highlighting, copy button); outputs become small HTML blocks right under it.
No In/Out prompts. Images become files the page references. Rich HTML is sanitised with nh3.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nh3
from nbconvert.filters import ansi2html, strip_ansi

from torchnotes.engine.execute import runnable
from torchnotes.gpu import Recorded, cell_html
from torchnotes.pages.read import Page, cell_number
from torchnotes.pages.tags import HIDE_INPUT, HIDE_OUTPUT, MARKED, NEEDS_CUDA, REMOVE_CELL, REMOVE_INPUT, REMOVE_OUTPUT
from torchnotes.pages.tokens import substitute
from torchnotes.publish.cells import cell_anchor, execution_numbers, renumbered
from torchnotes.publish.zh import join_cjk_lines
from torchnotes.strings import strings
from torchnotes.versions.drift import BOTH, GAP, NEW, OLD, release_label

# Tracebacks name files inside this machine's site-packages; readers need the package path, not ours.
_SITE = re.compile(r"(?:/[^\s:'\"]+)?/(?:lib/python\d\.\d+/)?site-packages/")
_PREFIXES = sorted({sys.prefix, sys.base_prefix, str(Path.home())}, key=len, reverse=True)

ImageSink = Callable[[str, bytes], str]
LONG_OUTPUT = 30  # lines; longer outputs get a fold the reader can close
LONG_TRACEBACK = 25  # lines; longer tracebacks show the cell's frames and the error, the rest behind a fold


class Conversions:
    """ANSI to HTML and the joining of Chinese lines, kept by their text for one build or one serve session: a
    rebuild meets the same outputs and paragraphs again. Both are functions of the text alone."""

    def __init__(self):
        self.kept: dict[tuple[str, str], str] = {}
        self.used: set[tuple[str, str]] = set()

    def ansi_html(self, text: str) -> str:
        return self._kept("ansi", text, lambda: ansi2html(clean_paths(text)))

    def joined(self, markdown: str) -> str:
        return self._kept("cjk", markdown, lambda: join_cjk_lines(markdown))

    def _kept(self, kind: str, text: str, make: Callable[[], str]) -> str:
        key = (kind, text)
        self.used.add(key)
        found = self.kept.get(key)
        if found is None:
            found = self.kept[key] = make()
        return found

    def forget_unused(self) -> None:
        """Drop what the last build did not use (a serve session runs for hours), and count afresh."""
        self.kept = {key: value for key, value in self.kept.items() if key in self.used}
        self.used = set()


@dataclass
class RenderContext:
    lang: str
    device: str
    cuda: bool
    image_sink: ImageSink
    stem: str = "page"
    # GPU recordings of this page's needs-cuda cells (recorded.Store.states), by code cell number.
    recorded: dict = field(default_factory=dict)
    # What other torch releases print where it differs (drift.CellDrift), by cell id; primary: the site's release.
    drift: dict = field(default_factory=dict)
    primary: str = ""
    # {{ torch_version }} and friends in prose (torchnotes.pages.tokens), from the build's environment.
    tokens: dict = field(default_factory=dict)
    conversions: Conversions = field(default_factory=Conversions)



def render_markdown(page: Page, outputs: dict[str, list[dict]], ctx: RenderContext) -> str:
    """The page's own cells (its prose and its code), each code cell followed by the outputs stored under its id."""
    labels = strings(ctx.lang)
    parts: list[str] = []
    counts = {False: execution_numbers(page, ctx.cuda), True: execution_numbers(page, True)}
    for cell in page.notebook.cells:
        if cell.cell_type != "code":
            # A line break between two Chinese characters would show as a space in the browser.
            part = ctx.conversions.joined(substitute(cell.source, ctx.tokens))
        else:
            part = _render_code_cell(cell, outputs.get(cell.id, []), ctx, labels, counts)
        parts.append(marked(cell, part))
    return "\n\n".join(p for p in parts if p) + "\n"


def marked(cell, part: str) -> str:
    """A cell whose tags a page feature lays out (an exercise and its solution) between two comments naming them,
    which that feature replaces (torchnotes/publish/features/exercises.py): the renderer knows no feature."""
    tags = [tag for tag in cell.metadata.get("tags", []) if tag in MARKED]
    if not tags or not part:
        return part
    return f"<!-- cell {' '.join(tags)} -->\n\n{part}\n\n<!-- /cell -->"


def _render_code_cell(cell, outs: list[dict], ctx: RenderContext, labels: dict,
                      counts: dict[bool, dict[int, int]]) -> str:
    tags = cell.metadata.get("tags", [])
    if REMOVE_CELL in tags:
        return ""
    blocks: list[str] = [cell_anchor(cell_number(cell.id), labels)]
    if REMOVE_INPUT not in tags:
        # The search index holds the prose: code and outputs are left out of it (issue 15's size budget), and
        # Material drops the attribute from the page once it has read it.
        fence = "```{ .python data-search-exclude }\n" + cell.source + "\n```"
        if HIDE_INPUT in tags:
            fence = f'??? abstract "{labels["code"]}"\n\n' + _indent(fence)
        blocks.append(fence)
    if NEEDS_CUDA in tags and not ctx.cuda:
        state = ctx.recorded.get(cell_number(cell.id))
        if state is None:
            blocks.append(f'<p class="nb-note nb-note--cuda" data-search-exclude>{html.escape(labels["needs_cuda"].format(device=ctx.device))}</p>')
        else:
            # Shown only when its code hash matches this page's code up to this cell; else a notice says stale.
            outs = state.outputs if isinstance(state, Recorded) else []
            inner = "\n".join(r for r in (_render_output(o, f"{ctx.stem}-{cell.id}-gpu{i}", ctx, labels, counts[True])
                                          for i, o in enumerate(outs)) if r)
            blocks.append(cell_html(state, ctx.lang, inner))
        return "\n\n".join(blocks)
    if not runnable(cell, ctx.cuda):
        blocks.append(f'<p class="nb-note" data-search-exclude>{html.escape(labels["not_run"])}</p>')
        return "\n\n".join(blocks)
    if REMOVE_OUTPUT in tags:
        return "\n\n".join(blocks)
    rendered = [r for r in (_render_output(o, f"{ctx.stem}-{cell.id}-{i}", ctx, labels, counts[False])
                            for i, o in enumerate(outs)) if r]
    if rendered:
        body = "\n".join(rendered)
        # Images are Markdown (see _render_data): the blocks around them are parsed as Markdown (md_in_html).
        md = " markdown" if any(r.startswith("\n![") for r in rendered) else ""
        lines = sum(_text(o.get("text", "")).count("\n") + len(o.get("traceback", [])) for o in outs)
        if HIDE_OUTPUT in tags:
            body = f'<details class="nb-details"{md}><summary>{html.escape(labels["output"])}</summary>\n{body}\n</details>'
        elif lines > LONG_OUTPUT:
            # Long outputs stay open but can be folded away by the reader.
            summary = html.escape(labels["long_output"].format(lines=lines))
            body = f'<details class="nb-details" open{md}><summary>{summary}</summary>\n{body}\n</details>'
        # Outputs are what the code printed: left out of the search index, like the code itself.
        blocks.append(f'<div class="nb-output" data-search-exclude{md}>\n{body}\n</div>')
    if ctx.drift.get(cell.id):
        blocks.append(drift_html(cell.id, ctx.drift[cell.id], ctx.primary, labels))
    return "\n\n".join(blocks)


def drift_html(cell_id: str, drifts: list, primary: str, labels: dict) -> str:
    """One marker per release whose output differs; each opens on the change from that release's output to the
    page's, every changed line labelled with the release that prints it (old above new, as a reader reads it)."""
    items = []
    for item in drifts:
        if item.kind == "changed":  # no diff: what the release prints now is not known (versions.record)
            items.append(f'<span class="nb-drift-note" title="{html.escape(item.version)}">'
                         f'{html.escape(labels["drift_changed"])}</span>')
            continue
        old, new = release_label(item.version), release_label(primary)
        label = labels["drift_" + item.kind].format(version=old)
        intro = labels["drift_intro_" + item.kind].format(version=old, primary=new, error=item.error)
        side_label = {OLD: old, NEW: new, BOTH: "", GAP: ""}
        # Block spans, one a line (extra.css): no newline between them, which pre-wrap would show as a blank line.
        lines = [f'<span class="nb-drift-line nb-drift-{side}"><span class="nb-drift-release">'
                 f'{side_label[side]}</span>{html.escape(text)}</span>' for side, text in item.diff()]
        items.append(f'<details class="nb-drift nb-drift--{item.kind}"><summary>{html.escape(label)}</summary>'
                     f'<p>{html.escape(intro)}</p><pre class="nb-drift-diff" tabindex="0">' + "".join(lines)
                     + "</pre></details>")
    return f'<div class="nb-drifts" id="drift-{cell_id}" data-search-exclude>' + "".join(items) + "</div>"


def _render_output(out: dict, name: str, ctx: RenderContext, labels: dict, numbers: dict[int, int]) -> str:
    kind = out.get("output_type")
    if kind == "stream":
        css = "nb-stderr" if out.get("name") == "stderr" else "nb-stdout"
        return _pre(_text(out.get("text", "")), css, ctx)
    if kind == "error":
        out = {**out, "traceback": [renumbered(frame, numbers) for frame in out.get("traceback", [])]}
        return _render_error(out, labels, ctx.conversions)
    if kind in ("execute_result", "display_data"):
        return _render_data(out.get("data", {}), name, ctx)
    return ""


# The rule of dashes and "Name   Traceback (most recent call last)" that open IPython's tracebacks.
_HEADING = re.compile(r"-{3,}\s*$|\S+\s+Traceback \(most recent call last\)")


def _render_error(out: dict, labels: dict, conversions: Conversions) -> str:
    """The error's `Name: message` first, whole and wrapped, then the traceback with the frames inside libraries
    folded away: the reader needs the message and the cell's line, and the rest stays one click away.

    IPython's traceback is a list: a rule, the exception heading, one entry per frame, then the error line.
    The rule and the heading (a row of dashes, "Traceback (most recent call last)" pushed to the right) are
    left to the full traceback: in the box the reader sees first they only widened it past the message.
    """
    frames = out.get("traceback", [])
    ename = out.get("ename", "")
    evalue = out.get("evalue", "")
    if frames and strip_ansi(frames[-1]).startswith(f"{ename}:" if ename else ""):
        start = 0
        while start < min(2, len(frames) - 1) and _HEADING.match(strip_ansi(frames[start])):
            start += 1
        body, tail = frames[start:-1], frames[-1]
    else:
        # Not IPython's usual shape (a SyntaxError's is one frame ending in its message): the message is made of
        # the error's name and value, coloured as IPython colours it.
        body, tail = frames, f"\x1b[31m{ename}\x1b[39m: {evalue}"
    caption = f'<span class="nb-error-label">{html.escape(labels["expected_error"])}</span>'
    # No <div> of its own: Material's search parser ends an excluded block at the first </div> inside it, and the
    # traceback would enter the index (nb-output carries the exclusion).
    message = f'<pre class="nb-error nb-error-message">{caption}{conversions.ansi_html(tail.strip(chr(10)))}</pre>'
    full = conversions.ansi_html("\n".join(frames))
    lines = full.count("\n") + 1
    shown, hidden = body, 0
    if lines > LONG_TRACEBACK and len(body) >= 3:
        cell_frames = [f for f in body if strip_ansi(f).startswith("Cell In")] or body[:1]
        kept = cell_frames + [body[-1]] if body[-1] not in cell_frames else cell_frames
        hidden = len(body) - len(kept)
        note = "\x1b[2m" + labels["frames_hidden"].format(count=hidden) + "\x1b[0m"
        shown = cell_frames + ([note] if hidden else []) + [f for f in kept if f not in cell_frames]
    parts = [message]
    if shown:
        parts.append(f'<pre class="nb-error" tabindex="0">{conversions.ansi_html(chr(10).join(shown))}</pre>')
    if hidden:
        summary = html.escape(labels["full_traceback"].format(lines=lines))
        parts.append(f'<details class="nb-details nb-traceback"><summary>{summary}</summary>\n'
                     f'<pre class="nb-error" tabindex="0">{full}</pre>\n</details>')
    return "\n".join(parts)


def _render_data(data: dict, name: str, ctx: RenderContext) -> str:
    for mime, ext in (("image/png", "png"), ("image/jpeg", "jpg")):
        if mime in data:
            raw = base64.b64decode(_text(data[mime]))
            digest = hashlib.sha256(raw).hexdigest()[:8]
            url = ctx.image_sink(f"{name}-{digest}.{ext}", raw)
            alt = html.escape(_ALT_UNSAFE.sub(" ", _text(data.get("text/plain", "")).strip("<>")).strip())
            # Markdown, not <img>: every generator resolves a Markdown link against the page's source file,
            # while raw HTML links are left alone by MkDocs and rewritten by Zensical. The enclosing blocks
            # carry md_in_html's `markdown` attribute (see _render_code_cell).
            return f"\n![{alt}]({url}){{ .nb-image loading=lazy }}\n"
    if "text/html" in data:
        return f'<div class="nb-html">{sanitize(_text(data["text/html"]))}</div>'
    if "text/plain" in data:
        return _pre(_text(data["text/plain"]), "nb-result", ctx)
    return ""


_ALT_UNSAFE = re.compile(r"[\[\]\\\n]+")


def sanitize(markup: str) -> str:
    """Keep tables and simple formatting of rich reprs; drop scripts, handlers and javascript: URLs."""
    return nh3.clean(markup, url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer")


def clean_paths(text: str) -> str:
    text = _SITE.sub("site-packages/", text)
    for prefix in _PREFIXES:
        text = text.replace(prefix, "…")
    return text


def _pre(text: str, css: str, ctx: RenderContext) -> str:
    # ansi2html escapes <, > and & and turns colour codes into classes; plain text gets the same treatment.
    # tabindex: a scrolling block must be reachable by keyboard.
    return f'<pre class="{css}" tabindex="0">{ctx.conversions.ansi_html(text.rstrip(chr(10)))}</pre>'


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line if line else line for line in text.splitlines())
