"""Post-process a page's outputs: byte-identical across builds, bounded in size, in one linear pass each.

Limits (documented in CONTRIBUTING.md): a cell's text output is cut past CELL_TEXT_LIMIT characters with a
visible note saying how much was cut; a page whose outputs (text and images) pass PAGE_LIMIT bytes fails
with OutputTooLarge naming the page and the cell where the total went over.
"""

from __future__ import annotations

import json
import re

CELL_TEXT_LIMIT = 100_000  # characters of text per cell (streams, text/plain, tracebacks)
PAGE_LIMIT = 5_000_000  # bytes of outputs per page, images (base64) included

# Warnings name the cell by a file the kernel wrote under its own PID: /tmp/ipykernel_4242/1234567.py:2.
# The look-behind anchors the match at the start of a token and the lazy run stops at the first
# 'ipykernel_': each character is scanned a bounded number of times, so text without whitespace stays linear.
_KERNEL_FILE = re.compile(r"(?<![^\s'\"])[^\s'\"]*?ipykernel_\d+[/\\]\d+\.py")


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def normalise(outputs: list[dict]) -> list[dict]:
    """One stream output per run of prints (how the kernel chunks them depends on timing), and no
    PID-named temporary files in warnings and tracebacks."""
    merged: list[dict] = []
    pieces: list[list[str]] = []  # stream chunks joined once at the end: repeated '+' would be quadratic
    for out in outputs:
        if out.get("output_type") == "stream":
            if merged and merged[-1].get("output_type") == "stream" and merged[-1]["name"] == out["name"]:
                pieces[-1].append(_text(out["text"]))
                continue
            merged.append(dict(out))
            pieces.append([_text(out["text"])])
            continue
        if out.get("output_type") == "error":
            out = dict(out, traceback=[_KERNEL_FILE.sub("<cell>", line) for line in out["traceback"]])
        merged.append(out)
        pieces.append([])
    for out, chunks in zip(merged, pieces):
        if out.get("output_type") == "stream":
            out["text"] = _KERNEL_FILE.sub("<cell>", "".join(chunks))
    return merged


def cap_cell(outputs: list[dict], limit: int = CELL_TEXT_LIMIT) -> list[dict]:
    """Cut text past the cell's budget, with a note saying how many characters were cut."""
    left = limit
    capped = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            text, left = _cut(out["text"], left)
            out = dict(out, text=text)
        elif kind in ("execute_result", "display_data") and "text/plain" in out.get("data", {}):
            text, left = _cut(_text(out["data"]["text/plain"]), left)
            out = dict(out, data=dict(out["data"], **{"text/plain": text}))
        elif kind == "error":
            joined = "\n".join(out["traceback"])
            if len(joined) > left:
                text, left = _cut(joined, left)
                out = dict(out, traceback=text.split("\n"))
            else:
                left -= len(joined)
        capped.append(out)
    return capped


def _cut(text: str, left: int) -> tuple[str, int]:
    if len(text) <= left:
        return text, left - len(text)
    keep = max(left, 0)
    cut = len(text) - keep
    note = (f"\n[torchnotes: {cut:,} more characters cut; a cell shows at most {CELL_TEXT_LIMIT:,} characters of "
            "text output]\n")
    return text[:keep] + note, 0


def size(outputs: list[dict]) -> int:
    """Bytes an output list adds to the page: text and every data representation (images as stored, base64)."""
    total = 0
    for out in outputs:
        for name in ("text", "traceback", "evalue"):
            if name in out:
                total += len(_text(out[name]).encode("utf-8", "surrogatepass"))
        for value in out.get("data", {}).values():
            text = _text(value) if isinstance(value, (str, list)) else json.dumps(value)
            total += len(text.encode("utf-8", "surrogatepass"))
    return total


def over_page_limit(cells: list[list[dict]], limit: int = PAGE_LIMIT) -> tuple[int, int] | None:
    """(0-based cell index, running total) of the cell where the page's outputs pass the limit, else None."""
    total = 0
    for index, outputs in enumerate(cells):
        total += size(outputs)
        if total > limit:
            return index, total
    return None
