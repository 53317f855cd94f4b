"""Work kept on disk between builds: a JSON body under the hash of everything it was made from.

Each file carries a checksum of its own body, so a damaged or hand-edited file reads as missing and the work is
done again instead of trusted. Writes go through a temporary file, so a reader never sees half a file.
"""

from __future__ import annotations

import json
from pathlib import Path

from torchnotes.storage import digest, write_atomically


def load(file: Path) -> dict | None:
    """The body kept in file, or None when there is none or it is damaged."""
    try:
        stored = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None  # a missing or damaged file is only slower: the work is done again and the file rewritten
    body = stored.get("body") if isinstance(stored, dict) else None
    if not isinstance(body, dict) or stored.get("sha256") != _digest(body):
        return None
    return body


def store(file: Path, body: dict) -> None:
    write_atomically(file, json.dumps({"sha256": _digest(body), "body": body}, ensure_ascii=False).encode())


def prune(folder: Path, used: set[str], before: float | None = None) -> list[Path]:
    """Remove the kept files whose key is not in used; with before, only those last written before it (a
    build running beside this one may have just written the others)."""
    if not folder.is_dir():
        return []
    removed = [f for f in folder.glob("*.json")
               if f.stem not in used and (before is None or f.stat().st_mtime < before)]
    for f in removed:
        f.unlink(missing_ok=True)
    return removed


_digest = digest
