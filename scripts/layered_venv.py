"""A virtual environment that sees every package of another one, for a clone of this repository (the tests' clones,
the workflows run locally by scripts/run_workflow.py):

    python3 scripts/layered_venv.py SHARED_VENV NEW_VENV

Installing torch and the pinned stack again would take minutes and ~6 GB a clone; linking the shared environment
instead would let the clone's `pip install -e .` (scripts/setup.sh) point the shared editable install of torchnotes
at the clone, for every checkout using it. So the new environment is a real venv with its own editable install, and
a .pth file puts the shared one's site-packages behind its own: pip sees the pinned packages as installed, and the
shared environment is never written. Its console scripts (mkdocs, ruff, ...) are copied with their first line
naming the new interpreter, so that they import this clone's torchnotes.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import venv
from pathlib import Path


def site_packages(prefix: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))


def layer(shared: Path, target: Path) -> Path:
    shared, target = shared.resolve(), target.absolute()
    if not (shared / "bin" / "python").exists():
        sys.exit(f"layered_venv.py: {shared} is not a virtual environment (no bin/python)")
    # pip comes from the shared site-packages; the new environment needs none of its own.
    venv.EnvBuilder(with_pip=False, symlinks=True, clear=True).create(target)
    # A shared environment that is itself layered lends what it sees too (a .pth file is read in a site folder, not
    # in a folder another .pth file names).
    seen = [site_packages(shared)]
    below = site_packages(shared) / "_shared_venv.pth"
    if below.exists():
        seen += [Path(line) for line in below.read_text(encoding="utf-8").split()]
    (site_packages(target) / "_shared_venv.pth").write_text("".join(f"{path}\n" for path in seen), encoding="utf-8")
    # The pins scripts/setup.sh installed there are the ones seen here: its stamp says so for this one too.
    stamp = shared / ".torchnotes-setup"
    if stamp.exists():
        (target / ".torchnotes-setup").write_bytes(stamp.read_bytes())
    python = target / "bin" / "python"
    for script in sorted((shared / "bin").iterdir()):
        mine = target / "bin" / script.name
        if mine.exists() or mine.is_symlink() or script.name.startswith(("python", "activate", "Activate")):
            continue
        head = script.read_bytes()[:256] if script.is_file() else b""
        if head.startswith(b"#!") and b"python" in head.split(b"\n", 1)[0]:
            body = script.read_text(encoding="utf-8").split("\n", 1)[1]
            mine.write_text(f"#!{python}\n{body}", encoding="utf-8")
            mine.chmod(0o755)
        else:
            os.symlink(script, mine)  # a binary (actionlint) or a shell script: as it is
    return target


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(f"layered_venv.py: {layer(Path(sys.argv[1]), Path(sys.argv[2]))} over {Path(sys.argv[1]).resolve()}")
