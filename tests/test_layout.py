"""Names spelt once: each cell tag in torchnotes/pages/tags.py, each path under the cache folder in
torchnotes/layout.py. A second spelling is how two modules drift apart (one renames, the other still reads the old
name), so any other module must import the name."""

from __future__ import annotations

import re

from helpers import ROOT

from torchnotes.layout import CacheFolder
from torchnotes.pages import tags

PACKAGE = ROOT / "torchnotes"


def spelt(literal: str) -> list[str]:
    """The modules of the package that hold literal as a quoted string."""
    pattern = re.compile(r"""["']""" + re.escape(literal) + r"""["']""")
    return sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py") if pattern.search(p.read_text("utf-8")))


def test_each_tag_is_spelt_in_one_module():
    names = [value for name, value in vars(tags).items() if name.isupper() and isinstance(value, str)]
    assert len(names) >= 10
    assert {name: spelt(name) for name in names} == {name: ["torchnotes/pages/tags.py"] for name in names}


def test_each_cache_path_is_spelt_in_one_module(tmp_path):
    folder = CacheFolder(tmp_path)
    paths = [folder.locks, folder.report, folder.shard_report(1, 2), folder.parsed, folder.extensions("2", "3"),
             folder.scripts, folder.drift, folder.states, folder.failed, folder.kept_html("m"), folder.kept_search("m"),
             folder.jinja, folder.books]
    parts = {p.relative_to(tmp_path).parts[0] for p in paths}
    assert parts == {".locks", "report.json", "shards", "parsed", "extensions", "scripts", "drift.md", "versions",
                     "failed", "mkdocs", "search", "jinja", "books"}
    # "versions", "mkdocs", "search", "failed" and "shards" name other things too (commands, a generator, the
    # site's search folder, a page status);
    # as a path under the cache folder they are joined to it, which only layout.py does.
    joined = {part: re.compile(r"(cache_dir\"?\)|\.root|folder|cache)\s*/\s*[\"']" + re.escape(part) + "[\"']")
              for part in parts}
    found = {part: sorted(p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")
                          if pattern.search(p.read_text("utf-8"))) for part, pattern in joined.items()}
    assert found == {part: ["torchnotes/layout.py"] for part in parts}
    distinctive = [part for part in parts if part not in ("versions", "mkdocs", "search", "failed", "shards")]
    assert {part: spelt(part) for part in distinctive} == {part: ["torchnotes/layout.py"] for part in distinctive}
