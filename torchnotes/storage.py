"""What every file the build keeps needs: written whole or not at all, and a digest of what it holds."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path | str, data: bytes) -> None:
    """Write beside the target and rename: a reader sees the old file or the new one, never half of one, and two
    builds writing the same file both leave a whole one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def digest(body) -> str:
    """The SHA-256 of a JSON-able value, the same in every process (keys sorted)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def file_digest(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
