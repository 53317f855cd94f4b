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
    (re.compile(r"(?:/[^\s:'\"]+)+/(?=[^/\s]+\.py\b)"), ""),
    (re.compile(r"(\.py[\"']?(?:, line |:))\d+"), r"\g<1>N"),
    (re.compile(r"\bline \d+"), "line N"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:ns|µs|us|ms|s|sec|seconds)\b"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|bytes)\b"), "<memory>"),
]
WARNING = re.compile(r"\b(\w*(?:Deprecation|Future|User)Warning): (.+)")
# What became of a cell under a compared release (compare_cells); CHANGED: its code, or an earlier cell's, changed
# since (torchnotes.versions.record).
SAME, DIFFERS, RAISES, SKIPPED, NOT_RUN, CHANGED = "same", "differs", "raises", "skipped", "not-run", "changed"
COMPARED_STATES = (SAME, DIFFERS, RAISES)
PRINTED_WARNING = re.compile(r"^(\w*(?:Deprecation|Future|User)Warning): (.+)", re.MULTILINE)


def normalise(text: str) -> str:
    text = strip_ansi(text)
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text.rstrip()


def output_text(outputs: list[dict]) -> str:
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
    return normalise("\n".join(p.rstrip("\n") for p in parts))


@dataclass(frozen=True)
class CellDrift:
    cell_id: str
    number: int  # code cell number, from 1
    version: str
    kind: str  # "differs", or "raises" (the cell raised there and not here, or raised something else)
    shown: str  # what the site shows, normalised
    other: str  # what the release printed, normalised
    error: str = ""

    def diff(self) -> list[str]:
        """Unified lines, the site's output as the old side: '-' is what the site shows, '+' what the release printed."""
        lines = difflib.unified_diff(self.shown.splitlines(), self.other.splitlines(), lineterm="", n=2)
        return [line for line in lines if not line.startswith(("---", "+++"))]


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
        mine = output_text(shown.get(cell.id, []))
        theirs = output_text(other["outputs"].get(cell.id, []))
        if number == stopped:
            error = other.get("error", "")
            found.append({"cell": number, "state": RAISES, "shown": mine, "other": theirs or error, "error": error})
        elif mine != theirs:
            found.append({"cell": number, "state": DIFFERS, "shown": mine, "other": theirs})
        else:
            found.append({"cell": number, "state": SAME})
    return found


@dataclass(frozen=True)
class Warned:
    cell: int  # code cell number, from 1
    kind: str  # the warning's class
    message: str
    # Provoked on purpose: the page's own code caught it and printed it (warnings.catch_warnings, then print: it
    # is on stdout), or the cell is tagged raises-exception. Otherwise Python reported it (stderr): to look at.
    on_purpose: bool


def warnings_in(page, outputs: dict[str, list[dict]]) -> list[Warned]:
    """Each warning the page's cells print, once each (the first cell that prints it)."""
    seen, found = set(), []
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
                item = (match.group(1), normalise(match.group(2)))
                if item not in seen:
                    seen.add(item)
                    found.append(Warned(number, *item, on_purpose=printed or raises))
    return found


def _joined(text) -> str:
    return "".join(text) if isinstance(text, list) else str(text)
