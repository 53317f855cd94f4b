"""A compared release's environment (torchnotes/versions/envs.py) is made once and shared by every checkout with the
same requirements (a clone's layered venv, another test's), each through a view of its own; a second process waits
for the first one's install. pip is stood in for (a planted `torch` module): the real install is test_versions'."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


def make(tmp_path: Path, base: Path) -> subprocess.Popen:
    env = {**os.environ, "TORCHNOTES_ENVS": str(tmp_path / "envs"), "PYTHONPATH": str(ROOT)}
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
