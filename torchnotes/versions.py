""""The version this site is built with" comes from the build, not from the prose.

A page's prose (Markdown cells, outside fenced blocks and inline code) may say `{{ torch_version }}` (major.minor
of the build's torch, `2.15`) or `{{ torch_release }}` (the release without its local build suffix, `2.15.0`).
The publish step replaces them, so every generator sees plain text, and the executed notebook offered for
download gets the same text. Any other `{{ ... }}` in prose is an error (UnknownToken), in `check` and in the
build. The paired notebooks under notebooks/ keep the token: they are the page in another format (jupytext
pairs them both ways), and a number written there would come back into the page.

`check` also flags a literal version in prose that is the one pinned in requirements.txt (`torch==`) or a newer
one (LiteralVersion): a statement about the current version goes stale at the next upgrade. Older versions, and
the current one after a historical marker ("since 2.15", "从 2.15 开始"), are facts that stay true.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import LiteralVersion, UnknownToken
from .pages import Page
from .safety import blank_code, markdown_cells

TOKENS = ("torch_version", "torch_release")
_TOKEN = re.compile(r"\{\{\s*([^{}\n]*?)\s*\}\}")
_VERSION = re.compile(r"(\d+)\.(\d+)")
_PIN = re.compile(r"^\s*torch\s*==\s*([0-9][\w.+!-]*)", re.M)

# "PyTorch 2.15", "torch 2.15.0", "torch==2.15.0", "PyTorch v2.15"; or a bare three-part "2.15.0" (its major
# must be the pinned one: "Python 3.15.0" or "CUDA 13.0.1" are not PyTorch's). Not inside a URL or a path.
_NAMED = re.compile(r"(?<![\w/.-])(?:py)?torch(?:\s+v?|==|-)(\d+)\.(\d+)(?:\.\d+)?(?:\+\w+)?(?![\w/]|\.\d)", re.I)
_BARE = re.compile(r"(?<![\w/.+-])(\d+)\.(\d+)\.\d+(?:\+\w+)?(?![\w/]|\.\d)")
# Words that make a version a point in history, before it ("since PyTorch 2.15", "自 2.15") or after it
# ("2.15 and later", "2.15 起", "2.15 中引入").
_HISTORY_BEFORE = re.compile(
    r"(?:\b(?:since|until|till|before|after|starting (?:with|in|from)|(?:introduced|added|deprecated|removed|"
    r"changed|new|fixed) in)|(?<![取来出源])自|从|直到|截至)\s*$", re.I)
_HISTORY_AFTER = re.compile(r"^(?:\+|\s+(?:and|or) (?:later|newer|above)|\s+onwards?|\s*(?:版本)?\s*(?:起|开始|以来|"
                            r"之前|以前|之后|以后|及以上|及更高|(?:中|里)?(?:被)?(?:引入|新增|加入|弃用|废弃|移除|删除)))",
                            re.I)


def token_values(torch: str) -> dict[str, str]:
    """The tokens' values for a torch version such as '2.15.0+cu132': {'torch_version': '2.15', ...}."""
    release = torch.split("+", 1)[0]
    match = _VERSION.match(release)
    if match is None:
        raise ValueError(f"not a torch version: {torch!r}")
    return {"torch_version": f"{match.group(1)}.{match.group(2)}", "torch_release": release}


def pinned_torch(requirements: Path) -> str | None:
    """The version in the `torch==` line of a requirements file, or None without one."""
    try:
        found = _PIN.search(Path(requirements).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return found.group(1) if found else None


def substitute(text: str, values: dict[str, str], where: Path | str = "", first_line: int = 1) -> str:
    """The Markdown text with every token outside code replaced by its value; an unknown token raises."""
    prose = blank_code(text)  # same length as text: code is spaces, so offsets match
    parts, end = [], 0
    for match in _TOKEN.finditer(prose):
        name = match.group(1)
        if name not in TOKENS:
            raise _unknown(where, first_line + prose.count("\n", 0, match.start()), match.group(0))
        parts += [text[end:match.start()], values[name]]
        end = match.end()
    return "".join(parts) + text[end:] if parts else text


def substitute_cells(page: Page, values: dict[str, str]) -> list[str]:
    """Each cell's source, the Markdown ones with their tokens replaced (code cells are left alone)."""
    lines = None
    sources = []
    for cell in page.notebook.cells:
        if cell.cell_type != "markdown" or "{{" not in cell.source:
            sources.append(cell.source)
            continue
        if lines is None:  # the file is read again only for a page that has tokens: for their lines
            lines = {id(c): line for line, c in markdown_cells(page.path, page)}
        sources.append(substitute(cell.source, values, page.path, lines.get(id(cell), 1)))
    return sources


def check_tokens(path: Path | str, page: Page) -> list[UnknownToken]:
    """Every unknown or misspelt token in the page's prose, each with its line."""
    problems = []
    for first_line, cell in markdown_cells(path, page):
        prose = blank_code(cell.source)
        for match in _TOKEN.finditer(prose):
            if match.group(1) not in TOKENS:
                problems.append(_unknown(path, first_line + prose.count("\n", 0, match.start()), match.group(0)))
    return problems


def _unknown(where: Path | str, line: int, token: str) -> UnknownToken:
    known = ", ".join("{{ " + name + " }}" for name in TOKENS)
    return UnknownToken(where, f"unknown token {token} in the prose; the known tokens are {known}", line=line)


def check_literal_versions(path: Path | str, page: Page, pinned: str) -> list[LiteralVersion]:
    """Every literal PyTorch version in the prose that is the pinned one or newer, and not a historical fact."""
    current = _major_minor(pinned)
    mm = "{}.{}".format(*current)
    problems = []
    for first_line, cell in markdown_cells(path, page):
        prose = blank_code(cell.source)
        named = list(_NAMED.finditer(prose))
        # A bare "2.15.0" inside "torch 2.15.0" is the same finding.
        bare = [m for m in _BARE.finditer(prose) if not any(n.start() <= m.start() < n.end() for n in named)]
        for match in sorted(named + bare, key=lambda m: m.start()):
            version = (int(match.group(1)), int(match.group(2)))
            if version < current or (match.re is _BARE and version[0] != current[0]) or _historical(prose, match):
                continue
            line = first_line + prose.count("\n", 0, match.start())
            token = "{{ torch_release }}" if match.group(0).count(".") >= 2 else "{{ torch_version }}"
            problems.append(LiteralVersion(
                path, f"'{match.group(0)}' in the prose states the version this site is built with (the pin says "
                      f"torch=={pinned}); it goes stale at the next upgrade", line=line,
                hint=f"write {token} (the build puts in its version), or make it a historical fact ('since "
                     f"{mm}', '从 {mm} 开始'); a version that is not PyTorch's goes in `code`"))
    return problems


def _major_minor(version: str) -> tuple[int, int]:
    match = _VERSION.match(version)
    if match is None:
        raise ValueError(f"not a torch version: {version!r}")
    return int(match.group(1)), int(match.group(2))


def _historical(prose: str, match: re.Match) -> bool:
    line_start = prose.rfind("\n", 0, match.start()) + 1
    before = prose[max(line_start, match.start() - 40):match.start()]
    return bool(_HISTORY_BEFORE.search(before) or _HISTORY_AFTER.match(prose[match.end():match.end() + 20]))
