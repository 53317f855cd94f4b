"""What a cell prints under another torch release, compared with what the site shows.

Outputs are compared as text after masking what legitimately varies between runs (addresses, timings, memory
figures, log prefixes with a time and a process id, paths and line numbers inside messages). A cell tagged
`volatile` (with its reason) is never compared. Nothing here executes: the compared release's outputs come
from the cache (versions.run_version filled it), so the publish step of any generator can show them.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

from nbconvert.filters import strip_ansi

from torchnotes.engine.execute import runnable
from torchnotes.pages.tags import RAISES as RAISES_TAG
from torchnotes.pages.tags import REMOVE_CELL, REMOVE_OUTPUT, SKIP_EXECUTION, VOLATILE

SKIPPED_TAGS = {VOLATILE, REMOVE_OUTPUT, REMOVE_CELL, SKIP_EXECUTION}
_MASKS = [
    # glog-style prefixes: W1124 11:04:12.255000 9019 torch/…/file.py:123] message
    (re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+[^\]\n]*\]\s?", re.MULTILINE), ""),
    (re.compile(r"0x[0-9a-fA-F]{4,}"), "0x…"),
    (re.compile(r"(?:/[^\s:'\"]+)?/(?:lib/python\d\.\d+/)?site-packages/"), ""),
    # Python and C++ sources alike: "(Triggered internally at /__w/pytorch/…/tensor_new.cpp:668.)" names the line
    # of the build's source, which moves between releases without any change of behaviour.
    (re.compile(r"(?:/[^\s:'\"]+)+/(?=[^/\s]+\.(?:py|cpp|cc|cu|h|hpp)\b)"), ""),
    (re.compile(r"(\.(?:py|cpp|cc|cu|h|hpp)[\"']?(?:, line |:))\d+"), r"\g<1>N"),
    (re.compile(r"\bline \d+"), "line N"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:ns|µs|us|ms|s|sec|seconds)\b"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|bytes)\b"), "<memory>"),
]
# Only for comparing: a warning's message on the changes page keeps its versions ("In PyTorch 1.1.0 and later").
_VERSION_MASKS = [
    # What a release says about itself is not a change of behaviour: its version ("PyTorch: 2.15.0+cu132",
    # "pip's version of the package: 2.15.0"), its build tag (+cu130, cu132) and the versions and build numbers
    # of the libraries it was built with ("built with CUDA: 13.2", "cudnn.version(): 92600"; 版本 in Chinese
    # outputs). Only a version-like number (two parts or more) after such a word on the same line is masked, so
    # "dtype=torch.float64" or a tensor's values are never touched; a bare build number (4 digits or more) only
    # after cudnn, nccl or version.
    (re.compile(r"(?i)((?:\b(?:version|pytorch|python|cudnn|nccl|built with)\b|版本)[^\n\d]{0,40}?)"
                r"\d+(?:\.\d+)+(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?"), r"\g<1><version>"),
    (re.compile(r"(?i)((?:\b(?:version|cudnn|nccl)\b|版本)[^\n\d]{0,40}?)\d{4,}\b"), r"\g<1><version>"),
    (re.compile(r"\+(?:cu|rocm|xpu)[\d.]+\b|\bcu\d{3}\b"), "<build>"),
    # The build's configuration (torch.__config__.show()) spells a switch 1 in one release and ON in another.
    (re.compile(r"\b(USE_\w+)=(?:1|ON)\b"), r"\g<1>=ON"),
    (re.compile(r"\b(USE_\w+)=(?:0|OFF)\b"), r"\g<1>=OFF"),
]
WARNING = re.compile(r"\b(\w*(?:Deprecation|Future|User)Warning): (.+)")
# What became of a cell under a compared release (compare_cells); CHANGED: its code, or an earlier cell's, changed
# since (torchnotes.versions.record).
SAME, DIFFERS, RAISES, SKIPPED, NOT_RUN, CHANGED = "same", "differs", "raises", "skipped", "not-run", "changed"
# A CellDrift's kind (never a recorded state) for a cell that raised because the page's own code failed there (its
# check of a docstring, a regex that found nothing), not because PyTorch raised: see own_failure.
FAILS = "fails"
OLD, NEW, BOTH, GAP = "old", "new", "both", "gap"  # the sides of a line of CellDrift.diff
COMPARED_STATES = (SAME, DIFFERS, RAISES)
PRINTED_WARNING = re.compile(r"^(\w*(?:Deprecation|Future|User)Warning): (.+)", re.MULTILINE)


def release_label(version: str) -> str:
    """How every reader-facing label names a release: its minor version ("2.14" for 2.14.1+cu130). The site
    compares one release per minor (versions.yml), so the minor is unambiguous; the changes page gives the exact
    release once, in each section's counts."""
    return ".".join(version.split("+")[0].split(".")[:2])


def normalise(text: str, versions: bool = True) -> str:
    """The text as compared: ANSI colours gone, what varies between runs masked, and (versions) what a release
    says about itself."""
    text = strip_ansi(text)
    for pattern, replacement in _MASKS + (_VERSION_MASKS if versions else []):
        text = pattern.sub(replacement, text)
    return text.rstrip()


def output_text(outputs: list[dict], versions: bool = True) -> str:
    """A cell's outputs as one comparable text: streams, results, images (by a hash), and errors (type: message)."""
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_joined(out.get("text", "")))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data:
                parts.append(f"[image {hashlib.sha256(_joined(data['image/png']).encode()).hexdigest()[:8]}]")
            elif "text/plain" in data:
                parts.append(_joined(data["text/plain"]))
    return normalise("\n".join(p.rstrip("\n") for p in parts), versions)


@dataclass(frozen=True)
class CellDrift:
    cell_id: str
    number: int  # code cell number, from 1
    version: str
    # "differs"; "raises" (PyTorch raised there and not here, or raised something else); FAILS (the page's own code
    # failed there: own_failure)
    kind: str
    shown: str  # what the site shows, normalised
    other: str  # what the release printed, normalised
    error: str = ""

    def diff(self) -> list[tuple[str, str]]:
        """(side, line) from the older release to the site's, as a reader reads a change: OLD for a line only the
        release printed, NEW for one only the site shows, BOTH for a line they share (two around each change),
        GAP where unchanged lines are left out. No '+'/'-' signs and no hunk headers: the page labels each line
        with its release."""
        old, new = self.other.splitlines(), self.shown.splitlines()
        found: list[tuple[str, str]] = []
        for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(2):
            if found:
                found.append((GAP, "…"))
            for tag, i1, i2, j1, j2 in group:
                if tag == "equal":
                    found += [(BOTH, line) for line in old[i1:i2]]
                    continue
                found += [(OLD, line) for line in old[i1:i2]] + [(NEW, line) for line in new[j1:j2]]
        return found


def compare_page(page, shown: dict[str, list[dict]], version: str, other: dict) -> list[CellDrift]:
    """The cells whose output differs (or that raise) under the release; see compare_cells."""
    return [CellDrift(page.code_cells[c["cell"] - 1].id, c["cell"], version, c["state"], c["shown"], c["other"],
                      c.get("error", ""))
            for c in compare_cells(page, shown, other) if c["state"] in ("differs", "raises")]


def compare_cells(page, shown: dict[str, list[dict]], other: dict) -> list[dict]:
    """What became of each code cell under the release: {"cell": number, "state": ...}, state one of SAME,
    DIFFERS, RAISES (with "shown", "other" and, for RAISES, "error"), SKIPPED (tagged, or not run without CUDA:
    never compared) or NOT_RUN (after the cell that raised there).

    other: {"outputs": {cell id: outputs}} for a release that ran the page, with "cell" and "error" when it
    stopped at a cell (the cells after it did not run there and are not compared)."""
    found = []
    stopped = other.get("cell")
    for number, cell in enumerate(page.code_cells, 1):
        if SKIPPED_TAGS & set(cell.metadata.get("tags", [])) or not runnable(cell, cuda=False):
            found.append({"cell": number, "state": SKIPPED})
            continue
        if stopped is not None and number > stopped:
            found.append({"cell": number, "state": NOT_RUN})
            continue
        # Kept with their versions, for the diff a reader opens; compared without them.
        mine = output_text(shown.get(cell.id, []), versions=False)
        theirs = output_text(other["outputs"].get(cell.id, []), versions=False)
        if number == stopped:
            error = other.get("error", "")
            origin = "page" if own_failure(error, other["outputs"].get(cell.id)) else "library"
            found.append({"cell": number, "state": RAISES, "shown": mine, "other": theirs or error, "error": error,
                          "origin": origin})
        elif normalise(mine) != normalise(theirs):
            found.append({"cell": number, "state": DIFFERS, "shown": mine, "other": theirs})
        else:
            found.append({"cell": number, "state": SAME})
    return found


# Exceptions Python raises for a program's own mistakes; a page's check of PyTorch (an assert, a regex over a
# docstring) that fails under an older release raises one of these from the cell's own line.
_OWN_ERRORS = {"AssertionError", "AttributeError", "IndexError", "KeyError", "NameError", "StopIteration",
               "TypeError", "ValueError", "ZeroDivisionError", "UnboundLocalError"}
_NAMES_TORCH = re.compile(r"\btorch\b|Tensor|tensor|\bnn\.|module 'torch")
_FRAME = re.compile(r"^\s*(Cell In ?\[\d+\]|File )", re.MULTILINE)


def own_failure(error: str, outputs: list[dict] | None = None) -> bool:
    """Whether the page's own code failed ("'NoneType' object has no attribute 'group'" from its regex), rather
    than PyTorch raising. The error must be one of Python's own, about no torch object, and (where the record
    kept the traceback) raised in the cell itself, not inside a library: a missing torch API
    (`module 'torch' has no attribute 'foreach'`) or a message from torch's code stays PyTorch's."""
    kind, _, message = error.partition(": ")
    if kind.rsplit(".", 1)[-1] not in _OWN_ERRORS or _NAMES_TORCH.search(message):
        return False
    for out in outputs or []:
        if out.get("output_type") == "error":
            frames = _FRAME.findall(strip_ansi("\n".join(out.get("traceback", []))))
            return not frames or frames[-1].startswith("Cell")
    return True


@dataclass(frozen=True)
class Warned:
    cell: int  # code cell number, from 1
    kind: str  # the warning's class
    message: str
    # Provoked on purpose and explained by the page (explained_cells): the page's own code caught it and printed
    # it (warnings.catch_warnings, then print: it is on stdout), the cell is tagged raises-exception, or the page
    # says so beside the cell. Otherwise a warning the page does not explain.
    on_purpose: bool


# "warn", "warning", "警告" in prose or in a code comment; an admonition's type (`!!! warning "Correction"`) is not a
# mention of a warning.
_MENTIONS_WARNING = re.compile(r"(?i)warn|警告")
_ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s*\w+", re.MULTILINE)
_COMMENT = re.compile(r"#[^\n]*")


def explained_cells(page, reach: int = 1) -> dict[int, str]:
    """For each code cell (number from 1), what the page says beside it: its code's comments and the prose between
    the code cell `reach` before it and the one `reach` after it. A page that provokes a warning to show it says
    so there ("works, but warns", "the warning above", "The `FutureWarning` under the first of these two cells")."""
    cells = page.notebook.cells
    code = [i for i, cell in enumerate(cells) if cell.cell_type == "code"]
    found = {}
    for number, index in enumerate(code, 1):
        start = code[number - 1 - reach] + 1 if number > reach else 0
        end = code[number - 1 + reach] if number - 1 + reach < len(code) else len(cells)
        prose = [_ADMONITION.sub("", cells[i].source) for i in range(start, end) if cells[i].cell_type == "markdown"]
        comments = _COMMENT.findall(cells[index].source)
        found[number] = "\n".join(prose + comments)
    return found


def warnings_in(page, outputs: dict[str, list[dict]]) -> list[Warned]:
    """Each warning the page's cells print, once each (the first cell that prints it)."""
    seen, found = set(), []
    # Any mention of warning next to the cell; the warning's class by name a little further away ("the
    # `FutureWarning` under the first of these two cells", written under the second). Read only for a page that
    # warns: most print none, and the changes page asks this of every page on every build.
    beside: dict[int, str] = {}
    near: dict[int, str] = {}
    for number, cell in enumerate(page.code_cells, 1):
        raises = RAISES_TAG in cell.metadata.get("tags", [])
        for out in outputs.get(cell.id, []):
            if out.get("output_type") != "stream":
                continue
            # On stderr as Python reports them; on stdout as a cell that caught them prints them (a line that
            # starts with the warning's class).
            printed = out.get("name") != "stderr"
            pattern = PRINTED_WARNING if printed else WARNING
            for match in pattern.finditer(strip_ansi(_joined(out.get("text", "")))):
                item = (match.group(1), normalise(match.group(2), versions=False))
                if item not in seen:
                    seen.add(item)
                    if not beside:
                        beside, near = explained_cells(page), explained_cells(page, reach=2)
                    explained = bool(_MENTIONS_WARNING.search(beside[number])) or item[0] in near[number]
                    found.append(Warned(number, *item, on_purpose=printed or raises or explained))
    return found


def _joined(text) -> str:
    return "".join(text) if isinstance(text, list) else str(text)
