"""Links to a section (of another page or the same one) use an explicit heading id, the same in both languages.

Generated slugs differ between generators (MkDocs' toc and Zensical treat `_` and CJK differently), so a
link such as `sampling-loading.md#collate_fn-turning-...` breaks when the generator changes. A heading
written `## collate_fn: ... {#collate-fn}` (attr_list) has the id `collate-fn` under any of them.
"""

import re
from pathlib import Path

import pytest
from helpers import ROOT

DOCS = ROOT / "docs"
LANGS = ("en", "zh")
# The page part is empty for a link within the same page: [map_location](#map-location).
LINK = re.compile(r"\]\(((?:[^()\s#]+?\.md)?)#([^()\s]+)\)")
HEADING_ID = re.compile(r"^#{1,6}\s.*\{[^}]*#([^\s}]+)[^}]*\}\s*$")
ASCII_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def prose_lines(path: Path) -> list[str]:
    """The page's lines outside fenced code, where links and headings are Markdown."""
    lines, fence = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        marker = re.match(r"^\s*(`{3,}|~{3,})", line)
        if marker:
            if fence is None:
                fence = marker.group(1)
            elif marker.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            lines.append(line)
    return lines


def explicit_ids(path: Path) -> set[str]:
    return {m.group(1) for line in prose_lines(path) if (m := HEADING_ID.match(line))}


def anchor_links(lang: str) -> list[tuple[str, str, str]]:
    """(source page, target page, anchor), pages relative to docs/<lang>/."""
    root = DOCS / lang
    links = []
    for page in sorted(root.rglob("*.md")):
        text = "\n".join(prose_lines(page))
        for target, anchor in LINK.findall(text):
            linked = page.parent / target if target else page
            resolved = linked.resolve().relative_to(root.resolve()).as_posix()
            links.append((page.relative_to(root).as_posix(), resolved, anchor))
    return links


def test_the_pattern_reads_links_and_explicit_ids(tmp_path):
    """Guards the regexes themselves: a generated-slug heading has no explicit id, fenced code is skipped."""
    page = tmp_path / "p.md"
    page.write_text(
        "## collate_fn: a batch {#collate-fn}\n## Plain heading\n```python\n## not {#a-heading}\n```\n"
        "See [x](other.md#collate-fn), [y](../a/b.md#plain-heading), [z](#collate-fn), [w](https://e.org/#top).\n",
        encoding="utf-8",
    )
    assert explicit_ids(page) == {"collate-fn"}
    assert LINK.findall("\n".join(prose_lines(page))) == [
        ("other.md", "collate-fn"),
        ("../a/b.md", "plain-heading"),
        ("", "collate-fn"),
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_every_section_link_targets_an_explicit_ascii_id_in_both_languages(lang):
    problems = []
    for source, target, anchor in anchor_links(lang):
        if not ASCII_ID.fullmatch(anchor):
            problems.append(f"docs/{lang}/{source}: #{anchor} is not a lowercase ASCII id like #collate-fn")
        for other in LANGS:
            page = DOCS / other / target
            if not page.exists():
                problems.append(f"docs/{lang}/{source}: links to docs/{other}/{target}, which does not exist")
            elif anchor not in explicit_ids(page):
                problems.append(
                    f"docs/{lang}/{source}: links to {target}#{anchor}, but no heading of docs/{other}/{target} "
                    f"has {{#{anchor}}}; add it to the heading (attr_list) in both languages"
                )
    assert not problems, "\n".join(problems)


def test_both_languages_link_to_the_same_sections():
    """A zh page that drops the #anchor its en twin has (or the reverse) sends readers to the page top."""
    en, zh = sorted(anchor_links("en")), sorted(anchor_links("zh"))
    assert en, "no section links found: the link pattern no longer matches the pages"
    assert en == zh, f"only in en: {sorted(set(en) - set(zh))}; only in zh: {sorted(set(zh) - set(en))}"
