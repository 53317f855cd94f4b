"""scripts/setup.sh in an environment layered over this one (scripts/layered_venv.py): what every clone of the
suite and every workflow job run locally starts with."""

from __future__ import annotations

import os
import re
import shutil
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


def tiny_wheel(folder, name: str) -> str:
    """A wheel of one empty module, made here: what is installed is this file, from no index."""
    import zipfile

    dist = f"{name}-1.0.dist-info"
    files = {f"{name}.py": "", f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{dist}/RECORD"] = "".join(f"{path},,\n" for path in files) + f"{dist}/RECORD,,\n"
    wheel = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return str(wheel)


def installer(venv, name: str) -> str:
    """Who installed a distribution into venv's own site-packages: dist-info's INSTALLER ("uv" or "pip")."""
    return next(venv.glob(f"lib/python*/site-packages/{name}-1.0.dist-info/INSTALLER")).read_text().strip()


def test_install_uses_uv_in_an_environment_of_its_own_and_pip_in_a_layered_one(tmp_path):
    """scripts/install.sh: uv links from its cache where pip unpacked every wheel again (the fresh clone's set-up);
    a layered environment keeps pip, which sees what the shared environment lends."""
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "install.sh", project / "scripts")
    subprocess.run(["python3", "-m", "venv", str(project / ".venv")], check=True)
    done = subprocess.run(["bash", "scripts/install.sh", tiny_wheel(tmp_path, "own_one")], cwd=project,
                          capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    pin = re.search(r'uv_pin="([^"]+)"', (ROOT / "scripts" / "install.sh").read_text()).group(1)
    uv = subprocess.run([str(project / ".venv" / "bin" / "uv"), "--version"], capture_output=True, text=True)
    assert uv.stdout.split()[:2] == ["uv", pin], uv.stdout + uv.stderr
    assert installer(project / ".venv", "own_one") == "uv"
    # Compiled as pip compiles: under PYTHONDONTWRITEBYTECODE (this machine, CI) no import would write it later.
    assert list(project.glob(".venv/lib/python*/site-packages/__pycache__/own_one.*.pyc")), "installed uncompiled"
    layered = tmp_path / "layered"
    (layered / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "install.sh", layered / "scripts")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "layered_venv.py"), str(project / ".venv"),
                    str(layered / ".venv")], check=True, capture_output=True)
    done = subprocess.run(["bash", "scripts/install.sh", tiny_wheel(tmp_path, "layered_one")], cwd=layered,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert installer(layered / ".venv", "layered_one") == "pip"
    assert not list(layered.glob(".venv/lib/python*/site-packages/own_one-1.0.dist-info")), "the shared one's copied"
