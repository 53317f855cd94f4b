"""Work kept on disk between builds: a JSON body under the hash of everything it was made from.

Each file is a checksummed file (torchnotes.storage): a damaged or hand-edited one is named in a warning and reads
as missing, so the work is done again instead of trusted.
"""

from __future__ import annotations

from pathlib import Path

from torchnotes.storage import load_checked, write_checked


def load(file: Path) -> dict | None:
    """The body kept in file, or None when there is none or it is damaged."""
    return load_checked(file, "kept file")


def store(file: Path, body: dict) -> None:
    write_checked(file, body)


def made_since(file: Path, moment: float) -> bool:
    """Whether file was written at or after moment (time.time()): during this build, not kept from an earlier one."""
    try:
        return file.stat().st_mtime >= moment
    except FileNotFoundError:  # pruned since it was read, by a build beside this one: it was kept from before
        return False


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
