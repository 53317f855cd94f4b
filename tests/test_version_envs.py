"""A compared release's environment (torchnotes/versions/envs.py) is made once and shared by every checkout with the
same requirements (a clone's layered venv, another test's), each through a view of its own; a second process waits
for the first one's install. pip is stood in for (a planted `torch` module): the real install is test_versions'."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import ROOT

# One process: make (or reuse) the environment of release 9.9.9 as if pip took a second, under a checkout whose
# site-packages is BASE; print the interpreter of its view.
MAKE = textwrap.dedent("""
    import logging, sys, time
    from pathlib import Path
    from torchnotes.versions import envs

    def fake_create(folder, version, requirements):
        import venv
        venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
        time.sleep(1)
        (envs._site_of(folder) / "torch.py").write_text(f"__version__ = {version!r}\\n")
        with open(sys.argv[3], "a") as made:
            made.write(version + "\\n")

    envs._create = fake_create
    envs._site_packages = lambda: sys.argv[2]
    logging.basicConfig(level=logging.INFO, format="LOG %(message)s", stream=sys.stdout)  # the torchnotes logger's
    print(envs.ensure_env("9.9.9", Path(sys.argv[1])).python)
""")


def make(tmp_path: Path, base: Path, **variables: str) -> subprocess.Popen:
    env = {**os.environ, "TORCHNOTES_ENVS": str(tmp_path / "envs"), "PYTHONPATH": str(ROOT), **variables}
    return subprocess.Popen([sys.executable, "-c", MAKE, str(tmp_path / "requirements.txt"), str(base),
                             str(tmp_path / "made.txt")], env=env, stdout=subprocess.PIPE, text=True)


def test_two_checkouts_at_once_share_one_environment_each_through_its_own_view(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.15.0\nnumpy==2.0.0\n")
    bases = []
    for name in ("one", "two"):  # each checkout's own packages
        base = tmp_path / name / "site-packages"
        base.mkdir(parents=True)
        (base / "checkout.py").write_text(f"NAME = {name!r}\n")
        (base / "torch.py").write_text("__version__ = 'the checkout'\n")  # the release's torch must win
        bases.append(base)
    running = [make(tmp_path, base) for base in bases]
    outputs = [process.communicate(timeout=120)[0] for process in running]
    assert [process.returncode for process in running] == [0, 0], outputs
    assert (tmp_path / "made.txt").read_text() == "9.9.9\n", "the environment was made more than once"
    pythons = [output.splitlines()[-1] for output in outputs]
    assert pythons[0] != pythons[1] and all(p.startswith(str(tmp_path / "envs")) for p in pythons), pythons
    for python, name in zip(pythons, ("one", "two")):
        seen = subprocess.run([python, "-c", "import torch, checkout; print(torch.__version__, checkout.NAME)"],
                              capture_output=True, text=True, check=True).stdout.split()
        assert seen == ["9.9.9", name]
    # Made once and kept: a third run, for a checkout that moved, makes a view and no environment.
    moved = tmp_path / "moved" / "site-packages"
    bases[0].parent.rename(moved.parent)
    again = make(tmp_path, moved)
    assert again.communicate(timeout=120)[0].count("LOG") == 0 and again.returncode == 0
    assert (tmp_path / "made.txt").read_text() == "9.9.9\n"


def test_a_build_of_pytorchs_own_is_an_environment_of_its_own_named_by_it(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.15.0\n")
    base = tmp_path / "checkout" / "site-packages"
    base.mkdir(parents=True)
    running = make(tmp_path, base, TORCHNOTES_TORCH_BUILD="cpu")
    output = running.communicate(timeout=120)[0]
    assert running.returncode == 0, output
    assert "LOG torch 9.9.9+cpu: creating its environment in" in output
    assert (tmp_path / "made.txt").read_text() == "9.9.9+cpu\n"
    made = [p.name for p in (tmp_path / "envs").iterdir() if not p.name.startswith(".")]
    assert len(made) == 1 and made[0].startswith("torch-9.9.9+cpu-py"), made
    python = output.splitlines()[-1]
    seen = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True, check=True)
    assert seen.stdout.strip() == "9.9.9+cpu"
    # The kernel keeps the release's name, as versions.yml lists it.
    assert (Path(python).parents[1] / "share" / "jupyter" / "kernels" / "torchnotes-torch-9.9.9" / "kernel.json").exists()


def test_the_build_variable_takes_only_a_local_version_label_and_a_listed_label_wins(monkeypatch):
    from torchnotes.errors import VersionsInvalid
    from torchnotes.versions.envs import wheel_version

    monkeypatch.delenv("TORCHNOTES_TORCH_BUILD", raising=False)
    assert wheel_version("2.13.0") == "2.13.0"
    for unset in ("", "  "):
        monkeypatch.setenv("TORCHNOTES_TORCH_BUILD", unset)
        assert wheel_version("2.13.0") == "2.13.0"
    monkeypatch.setenv("TORCHNOTES_TORCH_BUILD", "cu126")
    assert wheel_version("2.13.0") == "2.13.0+cu126"
    assert wheel_version("2.13.0+cpu") == "2.13.0+cpu"
    for bad in ("CPU", "cpu;rm -rf", "+cpu", "cpu..1", "cpu/whl"):
        monkeypatch.setenv("TORCHNOTES_TORCH_BUILD", bad)
        with pytest.raises(VersionsInvalid) as raised:
            wheel_version("2.13.0")
        message = str(raised.value)
        assert message.startswith("TORCHNOTES_TORCH_BUILD: ") and repr(bad) in message
        assert "set TORCHNOTES_TORCH_BUILD=cpu" in message


def test_a_build_pip_cannot_find_says_where_pip_looks_for_pytorchs_builds(tmp_path, monkeypatch):
    from torchnotes.errors import VersionInstallFailed
    from torchnotes.versions.envs import ensure_env

    (tmp_path / "requirements.txt").write_text("torch==2.15.0\n")
    (tmp_path / "wheels").mkdir()
    monkeypatch.setenv("TORCHNOTES_ENVS", str(tmp_path / "envs"))
    monkeypatch.setenv("TORCHNOTES_TORCH_BUILD", "cpu")
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # nothing read from an index: the find-links folder is empty
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    with pytest.raises(VersionInstallFailed) as raised:
        ensure_env("2.13.0", tmp_path / "requirements.txt")
    message = str(raised.value)
    assert message.startswith("versions.yml: pip cannot install torch 2.13.0+cpu")
    assert "https://download.pytorch.org/whl/cpu" in message and "unset TORCHNOTES_TORCH_BUILD" in message
    assert [p.name for p in (tmp_path / "envs").iterdir() if not p.name.startswith(".")] == []  # nothing half-made
