"""Cache executed outputs by what changes execution, never by prose.

The key hashes the code cells (comments stripped) with their options, the kernel, the engine's own source
(kernel setup included) and the environment (allow-listed variables included). The entry also records the
project files the page read and the packages it imported (and the fonts, when it drew text with matplotlib),
and is served only while those are unchanged (torchnotes.inputs). An entry is one JSON file written atomically
and carrying a checksum of its own body, so a truncated or edited entry is detected and executed again, never
served.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .environment import Environment
from .errors import CacheCorrupted
from .pages import code_fingerprint  # noqa: F401  (re-exported: the key's view of code)

# The modules whose code decides what a cached entry holds. The renderer and the MkDocs glue are not here:
# they run on every build, from the entry, so a change to them needs no re-execution.
ENGINE_SOURCES = ("cache.py", "engine.py", "environment.py", "execute.py", "fonts.py", "inputs.py",
                  "kernel_setup.py", "outputs.py", "pages.py", "zygote.py")


def engine_version(folder: Path = Path(__file__).parent) -> str:
    """A hash of the engine's own source: editing it re-executes pages without a manual version bump."""
    digest = hashlib.sha256()
    for name in ENGINE_SOURCES:
        digest.update(name.encode() + b"\0" + (Path(folder) / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


ENGINE_VERSION = engine_version()


def full_source_hash(code_cells: list) -> str:
    """The code with its comments: outputs that quote source (tracebacks, warnings) differ between translations."""
    return _digest([cell.source for cell in code_cells])


def key_parts(code_cells: list, kernel: str, env: Environment) -> dict[str, str]:
    """Each part of the key on its own, so a miss can say which one changed."""
    env_key = env.key()
    variables = env_key.pop("variables", "{}")
    env_key.pop("fonts", None)  # an input of the pages that draw text, not of every page (torchnotes.inputs)
    cells = [
        {
            "code": code_fingerprint(cell.source),
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
        """The stored body, None on a miss; raises CacheCorrupted for an entry that does not check out."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            entry = json.loads(raw)
            body = entry["body"]
            digest = entry["sha256"]
        except (ValueError, KeyError, TypeError) as error:
            raise CacheCorrupted(path, f"unreadable cache entry ({error.__class__.__name__})") from error
        if _digest(body) != digest:
            raise CacheCorrupted(path, "cache entry checksum does not match its content")
        return body

    def put(self, key: str, body: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"sha256": _digest(body), "body": body}, ensure_ascii=False).encode()
        # Write beside the target and rename: readers see the old entry or the new one, never half of one,
        # and two builds writing the same key both leave a whole file.
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{key[:12]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

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
            (self.folder / ".locks" / f"{key}.lock").unlink(missing_ok=True)
        return removed


def _digest(body) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def merge(sources: list[Path], target: Path) -> tuple[int, list[CacheCorrupted]]:
    """Copy every sound entry of the source caches into target (shards of one build, run on several machines).

    Entries are content-addressed, so the union is the merged cache; a damaged entry is reported and left out.
    """
    into = Cache(target)
    have = into.keys()
    copied, damaged = 0, []
    for source in sources:
        cache = Cache(source)
        for key in sorted(cache.keys() - have):
            try:
                body = cache.get(key)
            except CacheCorrupted as error:
                damaged.append(error)
                continue
            into.put(key, body)
            have.add(key)
            copied += 1
    return copied, damaged
