"""The torch releases the site is compared against: one list, one environment per release, one engine run each.

versions.yml lists them, newest first; the first is the release the site is built with (the torch pin of
requirements.txt). Each other release gets an environment of its own (torchnotes/versions/envs.py): the same
requirements, another torch. Every page runs there through the same engine and cache; the torch version is part of
the cache key, so the results stay apart and nothing changed runs nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from torchnotes import kept
from torchnotes.engine.cache import Cache, current_keys
from torchnotes.engine.environment import Environment, keyed_variables, probe_child, requirements_hash
from torchnotes.engine.fonts import font_fingerprint
from torchnotes.engine.results import Report
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import (
    CellFailed,
    ExpectedErrorMismatch,
    ExpectedErrorMissing,
    VersionsInvalid,
)
from torchnotes.layout import CacheFolder
from torchnotes.settings import Settings
from torchnotes.versions.envs import VersionEnv, ensure_env

CONFIG = "versions.yml"
# Failures that come from the code and the release, so the same inputs fail the same way again.
DETERMINISTIC = (CellFailed, ExpectedErrorMissing, ExpectedErrorMismatch)
PIN = re.compile(r"^torch\s*==\s*([^\s;#]+)", re.MULTILINE)


@dataclass(frozen=True)
class Versions:
    primary: str
    compared: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return (self.primary, *self.compared)


def load_versions(root: Path, requirements: Path) -> Versions:
    path = Path(root) / CONFIG
    if not path.exists():
        raise VersionsInvalid(path, "missing: it lists the torch releases the site is built with and compared against")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    listed = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(listed, list) or not listed or not all(isinstance(v, str) and v.strip() for v in listed):
        raise VersionsInvalid(path, "'versions' must be a list of release strings, newest first (e.g. - \"2.15.0\")")
    seen: dict[str, int] = {}
    for number, version in enumerate(listed, 1):
        if version in seen:
            raise VersionsInvalid(path, f"torch {version} is listed twice (entries {seen[version]} and {number})")
        seen[version] = number
    pin = pinned_torch(requirements)
    if pin is not None and pin != listed[0]:
        raise VersionsInvalid(path, f"the first version, {listed[0]}, is not the torch pin of {requirements} ({pin}); "
                                    "the first version is the one the site is built with")
    return Versions(listed[0], tuple(listed[1:]))


def pinned_torch(requirements: Path) -> str | None:
    found = PIN.search(Path(requirements).read_text(encoding="utf-8")) if Path(requirements).exists() else None
    return found.group(1) if found else None


# The first distribution of a name on sys.path is the one imported: the environment's own before the build's.
_PACKAGES = ("import importlib.metadata as m, json, re\n"
             "found = {}\n"
             "for d in m.distributions():\n"
             "    found.setdefault(re.sub(r'[-_.]+', '_', d.metadata['Name']).lower(), d.version)\n"
             "print(json.dumps(found))")


def describe(target: VersionEnv, requirements: Path) -> tuple[Environment, dict[str, str]]:
    """The environment's key (as the cache sees it) and the versions of every package it can import."""
    # The probe writes the bytecode of what importing torch compiles (pip installed it with --no-compile), even
    # where PYTHONDONTWRITEBYTECODE is set, as many container images do: every later kernel of this environment
    # then imports torch in 1.3 s instead of 2.3 s.
    writing = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    found = probe_child(str(target.python), env=writing)
    env = Environment(requirements=requirements_hash(requirements), variables=keyed_variables(),
                      fonts=font_fingerprint(), **found)
    done = subprocess.run([str(target.python), "-c", _PACKAGES], capture_output=True, text=True, check=True)
    return env, json.loads(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------------------------
# What each compared release did, kept beside the execution cache for the publish step.

def state_path(settings: Settings, version: str) -> Path:
    return CacheFolder(settings.path("cache_dir")).states / f"{version}.json"


STATE_KEYS = {"version", "env", "kernel", "packages", "env_path", "python"}


def read_state(settings: Settings, version: str) -> dict | None:
    """What the release's last run recorded; None when it has not run (or ran with an older engine, whose state
    lacks what this one needs: `versions` writes it again)."""
    state = kept.load(state_path(settings, version))
    return state if state is not None and STATE_KEYS <= set(state) else None


def compared_engine(settings: Settings, state: dict, *, mode: str = "off") -> Engine:
    """An engine that reads (mode off) or fills (auto) the cache of one compared release."""
    env = Environment(**state["env"])
    return Engine(settings, env, run=Run(kernel=state["kernel"], mode=mode, packages=state["packages"],
                                         python=state["python"]))


def failures(settings: Settings) -> Cache:
    return Cache(CacheFolder(settings.path("cache_dir")).failed)


def run_version(settings: Settings, version: str, pages: list[Path]) -> Report:
    """Execute every page under one compared release; a page that raises there is kept as that release's result."""
    requirements = settings.path("requirements")
    before = read_state(settings, version)
    target = ensure_env(version, requirements, known_path=before and before.get("env_path"))
    env, packages = describe(target, requirements)
    state = {"version": version, "env": env.key(), "kernel": target.kernel, "packages": packages,
             "env_path": str(target.path), "python": str(target.python)}
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(target.kernels_dir)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p])
    engine = compared_engine(settings, state, mode="auto")
    failed = failures(settings)
    todo = [p for p in pages if not _known_failure(engine, failed, p)]
    report = engine.run(todo)
    for result in report.results:
        if result.error is not None and isinstance(result.error, DETERMINISTIC) and result.key:
            failed.put(result.key, {"outputs": result.outputs, "cell": result.error.cell,
                                    "error": result.error.reason, "version": version})
    kept.store(state_path(settings, version), state)
    return report


def _known_failure(engine: Engine, failed: Cache, path: Path) -> bool:
    page = engine.reader.page(path)
    return bool(page.code_cells) and failed.get(engine.key(page)) is not None


def merge_states(sources: list[Path], target: Path) -> int:
    """Copy each release's state from the caches of the jobs that ran it (one release per job)."""
    copied = 0
    for source in sources:
        for path in sorted(CacheFolder(source).states.glob("*.json")):
            body = kept.load(path)
            if body is not None:
                kept.store(CacheFolder(target).states / path.name, body)
                copied += 1
    return copied


def compared_keys(settings: Settings, paths: list[Path]) -> set[str]:
    """The entries the compared releases use now: `cache prune` keeps them."""
    if not (settings.root / CONFIG).exists():
        return set()
    keys = set()
    for version in load_versions(settings.root, settings.path("requirements")).compared:
        state = read_state(settings, version)
        if state is not None:
            keys |= current_keys(compared_engine(settings, state), paths)
    return keys
