"""The environment of each compared release (versions.yml): a virtual environment outside the repository
(TORCHNOTES_ENVS, default ~/.cache/torchnotes/envs) that holds only its own torch (and what that torch needs).

It is keyed by what it holds (the release, the requirements, the Python), never by the checkout that made it, so
every checkout and clone with the same requirements uses one, made once (a file lock makes a second process wait
for the first one's install). Each checkout sees it through a view of its own (a tiny venv under the environment's
views/, named by the checkout's site-packages) whose interpreter puts the release's packages before the checkout's.

A release is PyPI's wheel of it, exactly: on Linux the CUDA build, about 4 GB with its NVIDIA libraries.
TORCHNOTES_TORCH_BUILD=cpu installs PyTorch's CPU build of it instead (torch===2.13.0+cpu, about 0.7 GB), which
pip finds on PyTorch's own index or in a find-links folder: for machines without a GPU, short of disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from torchnotes.errors import VersionInstallFailed, VersionsInvalid
from torchnotes.log import logger

CONFIG = "versions.yml"
BUILD = "TORCHNOTES_TORCH_BUILD"
# A PEP 440 local version label: what follows the + of 2.13.0+cpu (cpu, cu126, rocm6.4).
LABEL = re.compile(r"[a-z0-9]+(\.[a-z0-9]+)*")


def envs_dir() -> Path:
    return Path(os.environ.get("TORCHNOTES_ENVS") or Path.home() / ".cache" / "torchnotes" / "envs")


@dataclass(frozen=True)
class VersionEnv:
    version: str
    path: Path  # the release's environment, shared by every checkout
    view: Path  # this checkout's view of it: the interpreter and the kernel that run the pages

    @property
    def python(self) -> Path:
        return self.view / "bin" / "python"

    @property
    def kernel(self) -> str:
        return f"torchnotes-torch-{self.version}"

    @property
    def kernels_dir(self) -> Path:
        return self.view / "share" / "jupyter"


def wheel_version(version: str) -> str:
    """The torch pip installs for a release of versions.yml: the release itself (PyPI's wheel), or with
    TORCHNOTES_TORCH_BUILD its build of PyTorch's own (2.13.0+cpu). A release listed with a label keeps it."""
    build = os.environ.get(BUILD, "").strip()
    if not build or "+" in version:
        return version
    if not LABEL.fullmatch(build):
        raise VersionsInvalid(BUILD, f"{build!r} is not a build of PyTorch's (a local version label such as cpu or cu126)",
                              hint=f"set {BUILD}=cpu for PyTorch's CPU builds, or unset it for PyPI's wheels")
    return f"{version}+{build}"


def env_name(version: str, requirements: Path) -> str:
    """The folder of a release's environment under envs_dir(). The constraints are in the name: two projects (or a
    test site) with other requirements keep their own."""
    constraints = _constraints_hash(requirements)
    return f"torch-{wheel_version(version)}-py{sys.version_info.major}.{sys.version_info.minor}-{constraints[:8]}"


def ensure_env(version: str, requirements: Path, *, known_path: str | None = None) -> VersionEnv:
    """The environment of one release, created (or created again) when missing, incomplete or out of date, and this
    checkout's view of it.

    It is built beside its final place and moved there only once pip succeeded: a failed install leaves nothing.
    A file lock makes a second process (another clone, a test) wait for the first one's install, then use it.
    """
    wheel = wheel_version(version)
    constraints = _constraints_hash(requirements)
    name = env_name(version, requirements)
    path = envs_dir() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path.parent / f".{name}.lock")):
        _ensure_shared(path, wheel, requirements, constraints, known_path)
        return VersionEnv(version, path, _view(path, version))


def _ensure_shared(path: Path, version: str, requirements: Path, constraints: str, known_path: str | None) -> None:
    marker = path / "torchnotes-env.json"
    want = {"version": version, "constraints": constraints, "python": _python()}
    if marker.exists() and json.loads(marker.read_text(encoding="utf-8")) == want:
        return
    if path.exists():
        logger.info(f"torch {version}: the environment {path} is incomplete or its requirements changed; creating it again")
    elif known_path:
        logger.info(f"torch {version}: the environment {known_path} was deleted since the last build; creating it again")
    else:
        logger.info(f"torch {version}: creating its environment in {path}")
    partial = path.with_name(path.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        _create(partial, version, requirements)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    (partial / "torchnotes-env.json").write_text(json.dumps(want, indent=1), encoding="utf-8")
    shutil.rmtree(path, ignore_errors=True)
    partial.rename(path)


def _create(folder: Path, version: str, requirements: Path) -> None:
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    site = _site_of(folder)
    # While pip runs, this build's packages behind the environment's own: pip installs only what they lack (torch
    # and torch's own needs). Removed afterwards: a view names the packages of the checkout that uses it.
    base = site / "_torchnotes_base.pth"
    base.write_text(f"import site; site.addsitedir({_site_packages()!r})\n", encoding="utf-8")
    constraints = folder / "constraints.txt"
    constraints.write_text(_constraints(requirements), encoding="utf-8")
    # === matches the release exactly: PyPI's wheel, never a local build such as +cpu that a find-links folder offers.
    # --no-compile: compiling all of torch's modules to bytecode took half the install; the first probe
    # (describe) writes the bytecode of the ones importing torch compiles.
    command = [sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python"), "install",
               "--disable-pip-version-check", "--quiet", "--no-compile", f"torch==={version}", "-c", str(constraints)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(line for line in done.stderr.splitlines() if "is ignored" not in line)[-1500:]
        hint = None
        if "+" in version:  # a build of PyTorch's own, which PyPI does not have
            hint = (f"pip finds PyTorch's builds on its own index (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/"
                    f"{version.split('+')[1]}) or in a find-links folder; or unset {BUILD} for PyPI's wheel")
        raise VersionInstallFailed(CONFIG, f"pip cannot install torch {version}", hint=hint, details=tail)
    base.unlink()


def _view(shared: Path, version: str) -> Path:
    """This checkout's view of a release's environment: the release's packages first, then the checkout's
    (its site-packages, read with its .pth files: a layered venv lends what it sees), and the kernel of that
    interpreter. Made again when missing; cheap (no packages of its own)."""
    base = _site_packages()
    view = shared / "views" / hashlib.sha256(base.encode()).hexdigest()[:12]
    paths = f"{_site_of(shared)}\nimport site; site.addsitedir({base!r})\n"
    pth = _site_of(view) / "_torchnotes_view.pth"
    if pth.exists() and pth.read_text(encoding="utf-8") == paths:
        return view
    shutil.rmtree(view, ignore_errors=True)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(view)
    spec = {"argv": [str(view / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": f"Python 3 (torch {version})", "language": "python"}
    kernel = view / "share" / "jupyter" / "kernels" / f"torchnotes-torch-{version}"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    pth.write_text(paths, encoding="utf-8")  # last: a view without it is made again
    return view


def _site_of(prefix: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))


def _site_packages() -> str:
    return sysconfig.get_path("purelib")


def _python() -> str:
    return f"{platform.python_implementation()} {sys.version_info.major}.{sys.version_info.minor}"


def _constraints(requirements: Path) -> str:
    lines = Path(requirements).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith(("#", "-e", "torch=")))


def _constraints_hash(requirements: Path) -> str:
    return hashlib.sha256(_constraints(requirements).encode()).hexdigest()[:16]
