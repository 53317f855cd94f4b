import shutil
from pathlib import Path

import pytest

from torchnotes.cache import Cache
from torchnotes.engine import Engine
from torchnotes.environment import probe

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def env():
    """The real environment of this machine, probed once (a child interpreter imports torch)."""
    return probe(ROOT / "requirements.txt")


@pytest.fixture
def make_engine(tmp_path, env):
    """An engine on a cache in tmp_path; logs are collected in engine.lines."""

    def make(environment=None, **kwargs):
        lines: list[str] = []
        engine = Engine(Cache(tmp_path / "cache"), environment or env, root=tmp_path, jobs=2,
                        log=lines.append, **kwargs)
        engine.lines = lines
        return engine

    return make


@pytest.fixture
def fixture_site(tmp_path):
    """A copy of tests/fixtures/site (both languages, every feature) to build in tmp_path."""
    target = tmp_path / "site-src"
    shutil.copytree(ROOT / "tests" / "fixtures" / "site", target)
    return target
