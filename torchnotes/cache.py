"""Cache executed outputs by what changes execution, never by prose.

The key hashes the code cells (comments stripped) with their options, the kernel, the kernel setup and
the environment. An entry is one JSON file written atomically and carrying a checksum of its own body,
so a truncated or edited entry is detected and executed again, never served.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .environment import Environment
from .errors import CacheCorrupted
from .pages import code_fingerprint

SETUP_SOURCE = (Path(__file__).parent / "kernel_setup.py").read_text(encoding="utf-8")
FORMAT = 3  # 2: outputs normalised (streams merged, kernel temp files named <cell>); 3: outputs by cell id


def cache_key(code_cells: list, kernel: str, env: Environment) -> str:
    payload = {
        "format": FORMAT,
        "kernel": kernel,
        "setup": SETUP_SOURCE,
        "env": env.key(),
        "cells": [
            {
                "id": cell.id,
                "code": code_fingerprint(cell.source),
                "tags": sorted(cell.metadata.get("tags", [])),
                "raises": cell.metadata.get("raises"),
                "match": cell.metadata.get("match"),
            }
            for cell in code_cells
        ],
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


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


def _digest(body: dict) -> str:
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
