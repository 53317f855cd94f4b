"""A page is a jupytext Markdown notebook: read it, validate its front matter and cell options."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat
import yaml

from torchnotes import kept
from torchnotes.errors import InvalidCell, InvalidFrontMatter, InvalidTags, UnreadablePage
from torchnotes.pages.fences import code_cell_lines
from torchnotes.pages.tags import RAISES, SKIP_EXECUTION, TAGS, VOLATILE

# Root-level YAML goes to notebook metadata instead of a raw cell, so the paired .ipynb opens clean in Colab.
MD_FORMAT = {"extension": ".md", "format_name": "markdown", "root_level_metadata_as_raw_cell": False}

CELL_OPTIONS = {"tags", "raises", "match", "reason"}
# Blank-line bookkeeping jupytext adds to round-trip a file; not options of ours.
JUPYTEXT_LAYOUT_KEYS = ("lines_to_next_cell", "lines_to_end_of_cell_marker")
# source: the published tutorial an imported page came from (scripts/import_tutorial.py); its links resolve to it.
FRONT_MATTER = {"title": str, "description": str, "timeout": int, "source": str, "search": dict}
REQUIRED_FRONT_MATTER = ("title", "description")
_EXCEPTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class Page:
    path: Path
    notebook: nbformat.NotebookNode
    meta: dict
    lines: list[int]  # 1-based line of each code cell's fence in the .md file
    fingerprints: dict[str, str] = field(default_factory=dict)  # code cell source -> code_fingerprint(source)
    # What the build computed from this page alone (its paired notebook's text): kept with it, as it is read-only.
    derived: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def code_cells(self) -> list[nbformat.NotebookNode]:
        return [c for c in self.notebook.cells if c.cell_type == "code"]

    @property
    def timeout(self) -> int | None:
        return self.meta.get("timeout")

    def fingerprint(self, cell) -> str:
        """The cell's code_fingerprint, computed when the page was parsed (cells changed since are computed now)."""
        found = self.fingerprints.get(cell.source)
        return found if found is not None else code_fingerprint(cell.source)


def cell_number(cell_id: str) -> int:
    """The code cell number an id carries (`code-<number>-<hash of its code>`, made in _parse)."""
    kind, number, _ = cell_id.split("-", 2)
    if kind != "code":
        raise ValueError(f"{cell_id!r} is not a code cell's id")
    return int(number)


def read_page(path: Path | str, text: str | None = None, reader: Reader | None = None) -> Page:
    """The page, validated. Without a reader it is parsed afresh; a build passes its own (Reader)."""
    return (reader or Reader()).page(path, text)


def parse_markdown(text: str, path: Path | str = "<page>", reader: Reader | None = None) -> nbformat.NotebookNode:
    """The page as a notebook, with stable cell ids so two conversions give the same bytes."""
    return nbformat.from_dict((reader or Reader()).parsed(text, path)["notebook"])


# jupytext builds and validates every cell of a page, and a build reads each page several times (checks,
# GPU recordings, the engine): most of a no-change rebuild. So a page's notebook is kept by the hash of its
# text, by the Reader of one build (or of one `mkdocs serve` session, across its rebuilds) and, when that
# reader names a folder, on disk across builds. A page that does not parse is never kept: its error is
# raised again on every read. Writing a notebook (nbformat validates it) is kept the same way (remembered).
PARSER_VERSION = hashlib.sha256(
    f"{jupytext.__version__}|{nbformat.__version__}|{sorted(MD_FORMAT.items())}|".encode() + Path(__file__).read_bytes()
).hexdigest()[:16]


class Reader:
    """Reads pages for one build or one serve session, keeping what it parsed (in memory, and under folder).

    A page read twice with the same text is the same Page object: the checks, the GPU store and the engine
    each read every page, and a serve session reads them again on every rebuild. So a Page is read-only;
    whoever changes a notebook changes a copy (checks.as_paired, publish.tree.executed_notebook).
    """

    def __init__(self, folder: Path | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.bodies: dict[str, dict] = {}  # by key: what this reader made or loaded
        self.pages: dict[Path, tuple[str, Page]] = {}  # the last text read of each path, and its page

    def page(self, path: Path | str, text: str | None = None) -> Page:
        path = Path(path)
        if text is None:
            text = path.read_text(encoding="utf-8")
        known = self.pages.get(path)
        if known is not None and known[0] == text:
            return known[1]
        page = self._validated(path, text)
        self.pages[path] = (text, page)
        return page

    def _validated(self, path: Path, text: str) -> Page:
        body = self.parsed(text, path)
        notebook = nbformat.from_dict(body["notebook"])  # its own copy: the kept body stays as parsed
        meta = notebook.metadata.get("jupytext", {}).get("root_level_metadata", {})
        _check_front_matter(path, text, meta)
        lines = code_cell_lines(text)
        language = notebook.metadata.get("jupytext", {}).get("main_language", "python")
        if language != "python":
            raise InvalidCell(path, f"the page's code fences are ```{language}, which jupytext would make the notebook's language")
        for number, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
            _check_cell(path, cell, number + 1, lines[number] if number < len(lines) else None)
        return Page(path, notebook, meta, lines, dict(body["fingerprints"]))

    def parsed(self, text: str, path: Path | str = "<page>") -> dict:
        """{"notebook": the page as notebook JSON, "fingerprints": source -> code_fingerprint}."""
        return self.remembered("page", text, lambda: _parse(text, path))

    def remembered(self, what: str, made_from: str, make: Callable[[], dict]) -> dict:
        """make(), a JSON body that is a function of made_from and the parser's versions only, computed once."""
        key = hashlib.sha256(f"{PARSER_VERSION}\0{what}\0{made_from}".encode()).hexdigest()
        body = self.bodies.get(key)
        if body is None and self.folder is not None:
            body = kept.load(self.folder / f"{key}.json")
        if body is None:
            body = make()
            if self.folder is not None:
                kept.store(self.folder / f"{key}.json", body)
        self.bodies[key] = body
        return body

    def prune(self) -> list[Path]:
        """Remove the kept pages this reader has not read (call after reading every current page)."""
        if self.folder is None:
            return []
        return kept.prune(self.folder, set(self.bodies))


def _parse(text: str, path: Path | str) -> dict:
    try:
        # jupytext reads fence options with ast; an invalid escape ("\(") only warns there and the value is
        # kept or dropped depending on the warning filters. Make it always an error, reported below.
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            warnings.simplefilter("error", SyntaxWarning)
            notebook = jupytext.reads(text, fmt=dict(MD_FORMAT))
    except yaml.YAMLError as error:  # the only YAML jupytext reads here is the front matter
        raise InvalidFrontMatter(path, f"the front matter is not valid YAML: {error}", line=1) from error
    except (SyntaxWarning, DeprecationWarning) as error:
        raise InvalidTags(path, f"cannot read the options on a code fence: {error} (option values are JSON "
                          "strings: write a backslash as \\\\)") from error
    except Exception as error:  # jupytext has no error type of its own: keep the real cause in the message
        raise UnreadablePage(path, f"jupytext cannot read the page: {error.__class__.__name__}: {error}") from error
    code = 0
    fingerprints: dict[str, str] = {}
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            # The one place outputs are tied to cells: a code cell's id carries its number and its code, so an
            # output stored under it can only ever be shown under the code that produced it.
            code += 1
            fingerprint = fingerprints.setdefault(cell.source, code_fingerprint(cell.source))
            digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:8]
            cell.id = f"code-{code}-{digest}"
        else:
            cell.id = f"text-{index}"
        for key in JUPYTEXT_LAYOUT_KEYS:
            cell.metadata.pop(key, None)
    jt = notebook.metadata.get("jupytext", {})
    if "cell_metadata_filter" in jt:  # jupytext joins a set: its order changed from one process to the next
        kept = jt["cell_metadata_filter"].split(",")
        jt["cell_metadata_filter"] = ",".join(sorted(k for k in kept if not k.startswith("-")) + [k for k in kept if k.startswith("-")])
    return {"notebook": json.loads(json.dumps(notebook)), "fingerprints": fingerprints}


def code_fingerprint(source: str) -> str:
    """The code without comments or blank lines: a translated comment must not re-execute a page. The same on every
    Python the engine runs under (a GPU machine's may be newer than the build's): see stable_tokens."""
    try:
        tokens = [(tokenize.tok_name[tok.type], tok.string, tok.start, tok.end)
                  for tok in tokenize.generate_tokens(io.StringIO(source).readline)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Broken code keeps its text: it will fail at execution with the kernel's own message.
        return source
    return json.dumps(stable_tokens(tokens, source), ensure_ascii=False)


# Python 3.11's token numbers, which the cache keys, the GPU recordings and the version records were made with.
# Python 3.12 renumbered OP (54 -> 55) and splits an f-string into FSTRING_* tokens: without this, every cell hashed
# differently on a GPU machine's Python 3.12, and each of its recordings read as out of date on the 3.11 build.
_PY311_NUMBERS = {"ENDMARKER": 0, "NAME": 1, "NUMBER": 2, "STRING": 3, "NEWLINE": 4, "INDENT": 5, "DEDENT": 6,
                  "OP": 54, "ERRORTOKEN": 60}


def stable_tokens(tokens: list[tuple[str, str, tuple[int, int], tuple[int, int]]], source: str) -> list[tuple[int, str]]:
    """(token name, text, start, end) as tokenize gives them, to 3.11's (number, text) without comments and blank
    lines: an f-string's FSTRING_START ... FSTRING_END becomes the one STRING token 3.11 reads."""
    lines = source.splitlines(keepends=True)
    kept: list[tuple[int, str]] = []
    depth, begin = 0, (0, 0)
    for name, text, start, end in tokens:
        if name == "FSTRING_START":
            depth, begin = depth + 1, (begin if depth else start)
        elif depth:
            if name == "FSTRING_END":
                depth -= 1
                if not depth:
                    kept.append((_PY311_NUMBERS["STRING"], _span(lines, begin, end)))
        elif name not in ("COMMENT", "NL"):
            kept.append((_PY311_NUMBERS.get(name, -1), text))
    return kept


def _span(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (row, col), (last, stop) = start, end
    if row == last:
        return lines[row - 1][col:stop]
    return lines[row - 1][col:] + "".join(lines[row:last - 1]) + lines[last - 1][:stop]


def _check_front_matter(path: Path, text: str, meta: dict) -> None:
    if not text.startswith("---"):
        raise InvalidFrontMatter(path, "no front matter: the page must start with a '---' YAML block", line=1)
    if not isinstance(meta, dict):
        raise InvalidFrontMatter(path, "front matter is not a mapping", line=1)
    for key in REQUIRED_FRONT_MATTER:
        if not meta.get(key):
            raise InvalidFrontMatter(path, f"front matter lacks '{key}'", line=1)
    for key, value in meta.items():
        if key not in FRONT_MATTER:
            raise InvalidFrontMatter(path, f"unknown front matter key '{key}' (allowed: {', '.join(FRONT_MATTER)})", line=1)
        expected = FRONT_MATTER[key]
        if not isinstance(value, expected) or isinstance(value, bool):
            raise InvalidFrontMatter(path, f"'{key}' must be {expected.__name__}, got {value!r}", line=1)
    # Material's documented page exclusion, for the site's own pages (report, benchmarks): nothing else of it.
    if "search" in meta and (set(meta["search"]) != {"exclude"} or not isinstance(meta["search"]["exclude"], bool)):
        raise InvalidFrontMatter(path, f"'search' may only be 'search: {{exclude: true}}', got {meta['search']!r}", line=1)
    if "timeout" in meta and meta["timeout"] <= 0:
        raise InvalidFrontMatter(path, f"'timeout' must be a positive number of seconds, got {meta['timeout']}", line=1)


def _check_cell(path: Path, cell, number: int, line: int | None) -> None:
    where = {"cell": number, "line": line}
    if cell.source.lstrip().startswith("%%"):
        raise InvalidCell(path, f"fence becomes the cell magic {cell.source.split()[0]!r} and would run as a script", **where)
    if "incorrectly_encoded_metadata" in cell.metadata:
        raise InvalidTags(path, f"cannot read the options on this fence: {cell.metadata['incorrectly_encoded_metadata']!r}"
                          " (option values are JSON strings: write a backslash as \\\\, e.g. match=\"Error\\\\(s\\\\)\")", **where)
    unknown = set(cell.metadata) - CELL_OPTIONS
    if unknown:
        raise InvalidTags(path, f"unknown cell option(s) {sorted(unknown)}", **where)
    tags = cell.metadata.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InvalidTags(path, f"tags must be a list of strings, got {tags!r}", **where)
    for tag in tags:
        if tag not in TAGS:
            raise InvalidTags(path, f"unknown tag '{tag}' (known: {', '.join(TAGS)})", **where)
    raises = cell.metadata.get("raises")
    if RAISES in tags:
        if not isinstance(raises, str) or not _EXCEPTION_NAME.match(raises):
            raise InvalidTags(path, f"tag '{RAISES}' needs raises=\"<ExceptionType>\" (a class name such as RuntimeError)", **where)
    elif raises is not None or "match" in cell.metadata:
        raise InvalidTags(path, f"raises=/match= need the tag '{RAISES}'", **where)
    if "match" in cell.metadata:
        try:
            re.compile(cell.metadata["match"])
        except (re.error, TypeError) as error:
            raise InvalidTags(path, f"match= is not a valid regular expression: {error}", **where) from error
    reason = cell.metadata.get("reason")
    if VOLATILE in tags and (not isinstance(reason, str) or not reason.strip()):
        raise InvalidTags(path, f'tag \'{VOLATILE}\' needs reason="<why the output varies>" (for example reason="prints '
                                'a timing"): the changes page and `check` list every use with its reason', **where)
    if VOLATILE not in tags and reason is not None:
        raise InvalidTags(path, f"reason= belongs to the tag '{VOLATILE}'", **where)
    if SKIP_EXECUTION in tags and RAISES in tags:
        raise InvalidTags(path, "a cell cannot be both skip-execution and raises-exception", **where)
