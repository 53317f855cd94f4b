"""Each page's published files, kept by a preview session (mkdocs serve) under the key of all they were made from.

A rebuild of the preview meets the same pages again, and rendering one (cells, executed notebook, script) costs
tens of milliseconds; 80 of them were two thirds of the publish step of a rebuild. A page's files are a function of:

- the page itself: its source, and its execution result (cache key, date, times, outputs, and whether it has code;
  not whether this build ran it or found it in the cache);
- the same page in the other languages (a translation's banner compares it with its original);
- the site: the build's settings and environment, the list of pages, and the files the page features read
  beside the pages (the version record, the GPU recordings, the translation ledger, versions.yml, the
  requirements, jupytext.toml), each by path, size and modification time.

A page that carries a `<!-- torchnotes:` marker (the execution report, the changes page, an untranslated twin) is
made from other pages too: it is published on every run. So is every page after a run that stopped while it
was writing pages.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from torchnotes.engine.results import PageResult
from torchnotes.gpu.store import STORE_DIR
from torchnotes.pages.freshness import LEDGER
from torchnotes.storage import file_digest
from torchnotes.versions.record import RECORD_DIR
from torchnotes.versions.run import CONFIG as VERSIONS

MARKER = "<!-- torchnotes:"
# What the features read besides the pages and results, under the project's root (the requirements come from settings).
SITE_FILES = (RECORD_DIR, STORE_DIR, LEDGER.parts[0], VERSIONS, "jupytext.toml")
# A page executed by this build and one served by the cache show the same (the same entry's outputs and times).
EXECUTED = {"run": "executed", "cached": "executed"}


class KeptPages:
    """Published files by page, with the key they were made under. In memory: one preview session's."""

    def __init__(self):
        self.pages: dict[str, tuple[str, dict[Path, bytes]]] = {}

    def get(self, page: str, key: str | None) -> dict[Path, bytes] | None:
        kept = self.pages.get(page)
        return kept[1] if kept is not None and key is not None and kept[0] == key else None

    def keep(self, page: str, key: str | None, files: dict[Path, bytes]) -> None:
        if key is None:
            self.pages.pop(page, None)
        else:
            self.pages[page] = (key, files)

    def keep_only(self, pages: set[str]) -> None:
        for page in set(self.pages) - pages:
            del self.pages[page]

    def forget(self) -> None:
        """After a run that failed: what was kept may no longer be what is on disk."""
        self.pages.clear()


def site_key(settings, env, pages: list[Path], out: Path) -> str:
    """Everything every page's files depend on besides the page and its twins."""
    return _digest(repr(settings), repr(env), [str(p) for p in pages], str(out), stat_inputs(settings))


def stat_inputs(settings) -> list:
    """The files the features read beside the pages, each by path, size and modification time."""
    files = [Path(settings.root) / name for name in SITE_FILES] + [settings.path("requirements")]
    return [stat_tree(path) for path in files]


def page_key(site: str, result: PageResult, source: str, twins: list[str]) -> str | None:
    """The key of one page's files (source: the page's text, twins: the page in every language, each as this run
    read it, "" for none); None for a page published on every run, because it carries a marker."""
    if MARKER in source:
        return None
    # Every field of the result but this build's own time and why it missed the cache (shown nowhere), and the
    # outputs by their hash. Whether this build ran the page or found it in the cache is shown on the report pages
    # only (marked): keyed apart, every page the preview's first build ran was rendered again at the first edit.
    fields = {k: v for k, v in result.summary().items() if k not in ("seconds", "note")}
    fields["status"] = EXECUTED.get(result.status, result.status)
    outputs = json.dumps(result.outputs, sort_keys=True, default=str).encode()
    return _digest(site, _sha(source), [_sha(text) for text in twins], fields, _sha(outputs))


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def stat_tree(path: Path) -> list:
    """Each file at or under path, by path, size and modification time (nothing for a path that is not there)."""
    if path.is_file():
        stat = path.stat()
        return [str(path), stat.st_size, stat.st_mtime_ns]
    found: list = []
    for folder, dirs, names in os.walk(path):
        dirs.sort()
        for name in sorted(names):
            stat = os.stat(os.path.join(folder, name))
            found.append([os.path.join(folder, name), stat.st_size, stat.st_mtime_ns])
    return found


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()


def sources_stamp(sources: Path, digests: dict[Path, tuple]) -> tuple:
    """The sources by content: saving a file with the same bytes publishes nothing (its mtime changed only).
    digests: each file's (size, mtime) and the hash of its bytes, kept across rebuilds."""
    stamp = []
    for path in sorted(p for p in sources.rglob("*") if p.is_file()):
        stat = path.stat()
        known = digests.get(path)
        if known is None or known[0] != (stat.st_size, stat.st_mtime_ns):
            known = digests[path] = ((stat.st_size, stat.st_mtime_ns), file_digest(path))
        stamp.append((path, known[1]))
    return tuple(stamp)
