"""The page format's closing sections (CONTRIBUTING.md, "Page shape") on an imported tutorial.

A tutorial's own closing sections become them: its "Learn More" (or "Further Reading", "Additional Resources", ...)
list is the page's "Further reading", its "Conclusion" or "Summary" the page's "Key points". A section the tutorial
does not have is written as a stub marked FILL_IN, for the contributor to write; the import says so.
"""

from __future__ import annotations

import re

KEY_POINTS, FURTHER_READING = "Key points", "Further reading"
# The headings of the official tutorials' closing sections, and the section of the page format each one is.
CLOSING = {
    KEY_POINTS: re.compile(r"(?:in )?(?:conclusions?|summary|recap|wrap(?:ping)?[- ]?up|(?:key )?takeaways)", re.I),
    FURTHER_READING: re.compile(r"learn more|further reading|(?:additional|related|more) resources|resources|"
                                r"see also|references|next steps|what'?s next", re.I),
}
# How a stub starts: an HTML comment, which a reader of the published page never sees; the bullet under it is the
# template's (scripts/new_page.py).
FILL_IN = "<!-- torchnotes: fill in"
STUB = {KEY_POINTS: "the tutorial has no conclusion or summary: a few short bullets on what the page showed",
        FURTHER_READING: "the tutorial has no list to read on: links to the documentation of what the page uses"}

_HEADING = re.compile(r"^(?P<level>#{2,3}) (?P<text>.+?)(?P<id> \{#[^}]*\})?$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line index, level, text) of each ## and ### heading outside code fences (a code comment `## ...` is none)."""
    found, fence = [], None
    for index, line in enumerate(lines):
        mark = _FENCE.match(line)
        if mark:
            fence = None if fence and mark.group(1).startswith(fence) else fence or mark.group(1)
            continue
        heading = None if fence else _HEADING.match(line)
        if heading:
            found.append((index, len(heading.group("level")), heading.group("text")))
    return found


def _plain(text: str) -> str:
    return re.sub(r"[*_`]", "", text).strip().rstrip(":.").strip()


def closing_sections(body: str) -> tuple[str, list[str], list[str]]:
    """(the body with its closing sections named as the page format names them, what was renamed, the sections
    written as stubs to fill in). A ### heading counts only as the page's last section, which it can lead as ##."""
    lines = body.rstrip("\n").split("\n")
    headings = _headings(lines)
    renamed, stubs = [], []
    place = {}
    for section, pattern in CLOSING.items():
        last = [(i, level, text) for n, (i, level, text) in enumerate(headings)
                if pattern.fullmatch(_plain(text)) and (level == 2 or n == len(headings) - 1)]
        if last:
            index, _, text = last[-1]
            ident = _HEADING.match(lines[index]).group("id") or ""
            lines[index] = f"## {section}{ident}"
            renamed.append(f"'{_plain(text)}' -> '{section}'")
            place[section] = index
    # Key points come before Further reading, both at the end, as on a page written here.
    if FURTHER_READING not in place:
        lines += ["", f"## {FURTHER_READING}", "", _stub(FURTHER_READING), "", "- ..."]
        stubs.append(FURTHER_READING)
        place[FURTHER_READING] = len(lines) - 5
    if KEY_POINTS not in place:
        at = place[FURTHER_READING]
        lines[at:at] = [f"## {KEY_POINTS}", "", _stub(KEY_POINTS), "", "- ...", ""]
        stubs.insert(0, KEY_POINTS)
    return "\n".join(lines) + "\n", renamed, stubs


def _stub(section: str) -> str:
    return f"{FILL_IN}: {STUB[section]} -->"
