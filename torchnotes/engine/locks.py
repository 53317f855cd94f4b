"""Builds that share a cache (serve plus a build, two CI jobs on one runner) take a lock per entry: the second
waits for the first and then reuses its entry instead of executing the same page again.

Also: clearing what a killed build left in the temporary folder (its kernels' socket folders).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from filelock import FileLock, Timeout

TEMP_PREFIX = "torchnotes-"


@contextlib.asynccontextmanager
async def entry_lock(locks: Path, key: str, poll: float = 0.1):
    """Hold the lock of one cache entry (locks: CacheFolder.locks); waits without blocking the event loop (other
    pages keep running)."""
    locks = Path(locks)
    locks.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(locks / f"{key}.lock"))
    while True:
        try:
            lock.acquire(timeout=0)
            break
        except Timeout:
            await asyncio.sleep(poll)
    try:
        yield
    finally:
        lock.release()


def temp_folder(kind: str = "") -> str:
    """A private folder for one kernel (its sockets; with kind "page-", the folder it runs in), named after this
    build's PID so a later build can tell whether its owner is still alive."""
    return tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-{kind}")


def clean_leftovers(base: str | None = None) -> list[Path]:
    """Remove the socket and page folders of builds that no longer run (killed with kill -9): the links in a page
    folder go, never what they point to. Returns what was removed."""
    removed = []
    for path in Path(base or tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*-*"):
        owner = path.name[len(TEMP_PREFIX):].split("-", 1)[0]
        if not owner.isdigit() or not path.is_dir() or _alive(int(owner)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True
