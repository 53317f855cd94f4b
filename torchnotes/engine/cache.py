"""Cache executed outputs by what changes execution, never by prose.

The key hashes the code cells (comments stripped) with their options, the kernel, the engine's own source
(kernel setup included) and the environment (allow-listed variables included). The entry also records the
project files the page read and the packages it imported (and the fonts, when it drew text with matplotlib),
and is served only while those are unchanged (torchnotes.engine.inputs). An entry is one JSON file written atomically
and carrying a checksum of its own body, so a truncated or edited entry is detected and executed again, never
served.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchnotes.engine.environment import Environment
from torchnotes.engine.inputs import changes, snapshot
from torchnotes.engine.sources import ENGINE_VERSION
from torchnotes.errors import NotebookError
from torchnotes.layout import CacheFolder
from torchnotes.pages.read import code_fingerprint
from torchnotes.storage import digest, load_checked, read_checked, write_checked


def full_source_hash(code_cells: list) -> str:
    """The code with its comments: outputs that quote source (tracebacks, warnings) differ between translations."""
    return _digest([cell.source for cell in code_cells])


def key_parts(code_cells: list, kernel: str, env: Environment,
              fingerprint: Callable[[Any], str] = lambda cell: code_fingerprint(cell.source)) -> dict[str, str]:
    """Each part of the key on its own, so a miss can say which one changed. fingerprint(cell) is the code as
    the key sees it (code_fingerprint; a Page hands over the ones it computed when it was parsed)."""
    env_key = env.key()
    variables = env_key.pop("variables", "{}")
    env_key.pop("fonts", None)  # an input of the pages that draw text, not of every page (torchnotes.engine.inputs)
    cells = [
        {
            "code": fingerprint(cell),
            "tags": sorted(cell.metadata.get("tags", [])),
            "raises": cell.metadata.get("raises"),
            "match": cell.metadata.get("match"),
        }
        for cell in code_cells
    ]
    return {
        "code": _digest(cells),
        "kernel": kernel,
        "engine": ENGINE_VERSION,
        "environment": _digest(env_key),
        "variables": variables,
    }


def key_from_parts(parts: dict[str, str]) -> str:
    return _digest(parts)


def cache_key(code_cells: list, kernel: str, env: Environment) -> str:
    return key_from_parts(key_parts(code_cells, kernel, env))


def variant_key(key: str, source_hash: str) -> str:
    """Where a page keeps its own outputs when they quote its source and its comments differ from the twin's."""
    return hashlib.sha256(f"{key}:{source_hash}".encode()).hexdigest()


class Cache:
    """A folder of `<key>.entry.json` files: {"sha256": ..., "body": {...}}.

    The suffix keeps entries apart from what else travels with the folder (the execution report).
    """

    SUFFIX = ".entry.json"

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)

    def path(self, key: str) -> Path:
        return self.folder / f"{key}{self.SUFFIX}"

    def get(self, key: str) -> dict | None:
        """The stored body, None on a miss; raises FileDamaged for an entry that does not check out."""
        return read_checked(self.path(key), "cache entry")

    def load(self, key: str) -> dict | None:
        """get, with a damaged entry named in a warning and read as a miss (the page executes and replaces it)."""
        return load_checked(self.path(key), "cache entry")

    def put(self, key: str, body: dict) -> None:
        write_checked(self.path(key), body)

    def discard(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)

    def keys(self) -> set[str]:
        found = self.folder.glob(f"*{self.SUFFIX}") if self.folder.exists() else []
        return {p.name[: -len(self.SUFFIX)] for p in found}

    def prune(self, keep: set[str]) -> list[str]:
        """Remove every entry not in keep (and lock files of removed entries); returns the removed keys."""
        removed = sorted(self.keys() - set(keep))
        for key in removed:
            self.discard(key)
            (CacheFolder(self.folder).locks / f"{key}.lock").unlink(missing_ok=True)
        return removed


_digest = digest


# ------------------------------------------------------------------------------------------------
# The rules: when an entry holds for a page. The engine asks and schedules; it decides nothing here.

@dataclass(frozen=True)
class Hit:
    key: str
    body: dict
    used: frozenset  # the entries this page reads (its key, and its own variant when outputs quote source)


@dataclass(frozen=True)
class Miss:
    key: str
    reason: str  # in words: what `execute --explain` prints


class PageCache:
    """Entries for one environment and kernel: `lookup(page)` and `store(page, execution)`.

    packages: the versions of the environment's installed packages, for an environment other than this
    interpreter's (a compared torch version); None looks them up in this interpreter, once per `begin()`.
    """

    def __init__(self, store: Cache, env: Environment, kernel: str, root: Path, *,
                 packages: dict[str, str] | None = None):
        self.store_ = store
        self.env = env
        self.kernel = kernel
        self.root = Path(root)
        self.packages = packages
        self.begin()

    @property
    def folder(self) -> Path:
        return self.store_.folder

    def begin(self) -> None:
        """A new build: package versions are looked up afresh (one installed between builds counts)."""
        self.versions: dict[str, str | None] = {}

    def key_parts(self, page) -> dict[str, str]:
        return key_parts(page.code_cells, self.kernel, self.env, page.fingerprint)

    def key(self, page) -> str:
        return key_from_parts(self.key_parts(page))

    def lookup(self, page, key: str | None = None) -> Hit | Miss:
        key = key or self.key(page)
        source = full_source_hash(page.code_cells)
        body, used = self._read(key), {key}
        if body is not None and body.get("quotes_source") and body.get("source") != source:
            # Its outputs quote the twin's source lines (comments in another language): this page keeps its own.
            used = {variant_key(key, source)}
            body = self._read(variant_key(key, source))
        if body is None:
            return Miss(key, "no entry")
        changed = changes(self.root, body.get("inputs"), self._known(), self.env.fonts)
        if changed:
            return Miss(key, "; ".join(changed))
        if body.get("source") != source:
            used.add(variant_key(key, source))
        return Hit(key, body, frozenset(used))

    def store(self, page, execution, key: str | None = None) -> tuple[dict, set[str]]:
        """Keep a successful execution; returns the body and the entries written. Failures never come here."""
        key = key or self.key(page)
        source = full_source_hash(page.code_cells)
        body = {
            "outputs": execution.outputs,
            "cell_seconds": execution.cell_seconds,
            "seconds": execution.seconds,
            "date": datetime.date.today().isoformat(),
            "env": self.env.key(),
            "key_parts": self.key_parts(page),
            "source": source,
            "quotes_source": quotes_source(execution.outputs),
            "inputs": snapshot(self.root, execution.record, self.env.fonts),
        }
        main, written = self._read(key), set()
        # The main entry is any page's whose outputs quote no source, else the first page's; twins with other
        # comments keep theirs under a variant key.
        if (main is None or main.get("source") == source or not body["quotes_source"]
                or changes(self.root, main.get("inputs"), self._known(), self.env.fonts)):
            self.store_.put(key, body)
            written.add(key)
        if body["quotes_source"]:
            self.store_.put(variant_key(key, source), body)
            written.add(variant_key(key, source))
        return body, written

    @staticmethod
    def serves(body: dict, page) -> bool:
        """Whether outputs stored for one page hold for its twin (same code, maybe other comments)."""
        return not body["quotes_source"] or full_source_hash(page.code_cells) == body["source"]

    def current_keys(self, pages) -> set[str]:
        """The entries the given pages use now (their key, and their own variant for outputs that quote source)."""
        keys = set()
        for page in pages:
            key = self.key(page)
            keys |= {key, variant_key(key, full_source_hash(page.code_cells))}
        return keys

    def read(self, key: str) -> dict | None:
        return self._read(key)

    def _known(self) -> dict:
        if self.packages is None:
            return self.versions
        return _Fixed(self.packages)

    def _read(self, key: str) -> dict | None:
        return self.store_.load(key)


class _Fixed(dict):
    """Package versions of another environment, recorded when it ran (names normalised as importlib.metadata
    does): a name it lacks is not installed there."""

    def __contains__(self, name) -> bool:
        return True

    def __getitem__(self, name):
        return self.get(re.sub(r"[-_.]+", "_", name).lower())

    def __setitem__(self, name, value) -> None:
        pass


def quotes_source(outputs: dict[str, list[dict]]) -> bool:
    """Outputs that can show source lines: tracebacks, and stderr (warnings print the offending line)."""
    return any(o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")
               for cell in outputs.values() for o in cell)


def current_keys(engine, paths: list[Path]) -> set[str]:
    """The entries the given pages use now (their key, and their own variant for outputs that quote source), for an
    engine.scheduler.Engine."""
    pages = []
    for path in paths:
        try:
            page = engine.reader.page(path)
        except NotebookError:
            continue
        if page.code_cells:
            pages.append(page)
    return engine.entries.current_keys(pages)
