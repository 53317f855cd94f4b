"""What every file the build keeps needs: written whole or not at all, and a digest of what it holds.

A checksummed file is {"sha256": <digest of body>, "body": {...}}: the page cache, the kept artefacts and the GPU
recordings are all written and read here, so a damaged file gets one treatment everywhere: `load_checked` names it
in a warning and reads it as absent, and whatever made it makes it again (the next write replaces it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from torchnotes.errors import FileDamaged
from torchnotes.log import logger


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


def write_if_changed(path: Path, data: bytes) -> bool:
    """Leave a file whose bytes are already these alone (a generator's incremental build sees only real changes)."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomically(path, data)
    return True


def copy_if_changed(src: Path, dst: Path) -> bool:
    if dst.exists() and dst.stat().st_size == src.stat().st_size and file_digest(dst) == file_digest(src):
        return False
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return True


def digest(body) -> str:
    """The SHA-256 of a JSON-able value, the same in every process (keys sorted)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def file_digest(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_checked(path: Path | str, body: dict, *, readable: bool = False) -> None:
    """readable: one line per list item, for files a pull request's diff shows (the GPU recordings)."""
    text = json.dumps({"sha256": digest(body), "body": body}, ensure_ascii=False, indent=1 if readable else None)
    write_atomically(path, (text + "\n" if readable else text).encode())


def read_checked(path: Path | str, what: str = "file") -> dict | None:
    """The body; None when there is no file. Raises FileDamaged (what: "cache entry", "GPU recording", ...) when it
    does not parse or its checksum does not match its body."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        stored = json.loads(raw)
        body, expected = stored["body"], stored["sha256"]
    except (ValueError, KeyError, TypeError) as error:
        raise FileDamaged(path, f"unreadable {what} ({error.__class__.__name__})") from error
    if not isinstance(body, dict) or digest(body) != expected:
        raise FileDamaged(path, f"{what} checksum does not match its content (damaged or edited by hand)")
    return body


def load_checked(path: Path | str, what: str = "file") -> dict | None:
    """read_checked, with a damaged file named in a warning and read as absent."""
    try:
        return read_checked(path, what)
    except FileDamaged as damaged:
        logger.warning(damaged.message)
        return None
