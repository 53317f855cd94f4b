"""scripts/setup.sh in an environment layered over this one (scripts/layered_venv.py): what every clone of the
suite and every workflow job run locally starts with."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from run_workflow import snapshot  # noqa: E402


def imported_from(venv, cwd) -> str:
    """Where a console script of the environment (mkdocs, whose plugin is torchnotes) imports torchnotes from: not
    from the current folder, which `python -c` would put first. "" where it finds none."""
    code = "import sys; sys.path.remove(''); import torchnotes; print(torchnotes.__file__)"
    done = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0 or "No module named 'torchnotes'" in done.stderr, done.stderr
    return done.stdout.strip()


def test_setup_in_a_layered_clone_points_torchnotes_at_the_clone(tmp_path):
    clone = tmp_path / "clone"
    snapshot(ROOT, clone)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "layered_venv.py"), str(ROOT / ".venv"), str(clone / ".venv")],
                   check=True, capture_output=True)
    # Before: the layered environment sees every pinned package, but no editable install of the clone.
    assert imported_from(clone / ".venv", clone) != str(clone / "torchnotes" / "__init__.py")
    stamp = ROOT / ".venv" / ".torchnotes-setup"
    if stamp.exists():  # scripts/setup.sh has run here: the clone carries its stamp, and resolves no pin again
        assert (clone / ".venv" / ".torchnotes-setup").read_text() == stamp.read_text()
    done = subprocess.run(["bash", "scripts/setup.sh"], cwd=clone, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert imported_from(clone / ".venv", clone) == str(clone / "torchnotes" / "__init__.py")
    # This checkout's environment still imports this checkout's torchnotes.
    assert imported_from(ROOT / ".venv", ROOT) == str(ROOT / "torchnotes" / "__init__.py")
