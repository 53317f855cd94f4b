import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, fixture_copy, settings_at
from schedule import Schedule
from slow import Slow

# The engine is imported by the fixtures that use it, not here: every pytest process (each xdist worker, each child
# pytest of test_schedule and test_slow) loads this file, and the engine's imports (jupytext, nbconvert) take a second.


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="also run the slow tests (tests/slow.py: marked slow, or needing the real built site, "
                          "Chromium or an older torch); scripts/test.sh and CI always do")
    parser.addoption("--write-durations", action="store_true",
                     help="write the seconds each module took (pytest's cache) to tests/durations.json, the order "
                          "a clean clone (CI) hands the modules out in (tests/schedule.py)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: left out of a plain run, run with --slow (tests/slow.py)")
    config.pluginmanager.register(Slow(config), "torchnotes-slow")
    config.pluginmanager.register(Schedule(config), "torchnotes-schedule")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Whole modules in collection order (tests/schedule.py: longest first), whatever --dist says: plain
    `pytest -n 3` schedules as scripts/test.sh does. (xdist's own loadfile would sort the modules by their number
    of tests, which puts a module of one long test last.)"""
    from xdist.scheduler import LoadFileScheduling

    config.option.loadscopereorder = False
    return LoadFileScheduling(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI=true (set by the CI runner) a skipped browser test is a failure: a green build must have
    driven the browser. Locally a missing Chromium still skips."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("browser") and os.environ.get("CI", "").lower() == "true":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = (f"{reason}\nUnder CI=true the browser tests must run, not skip: "
                           "run 'bash scripts/setup.sh --browser' in the workflow before the tests.")


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory, worker_id) -> Path:
    """The run's temporary folder that every pytest-xdist worker sees (each worker's own lies under it)."""
    return tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent


@pytest.fixture(scope="session")
def documented_builds(shared_tmp):
    """The builds the documented commands make, for the modules that check the same builds (documented_builds.py)."""
    from documented_builds import DocumentedBuilds

    return DocumentedBuilds(shared_tmp)


@pytest.fixture(scope="session")
def built_site(shared_tmp) -> Path:
    """The whole site built with mkdocs --strict: TORCHNOTES_SITE (scripts/test.sh builds it before the suite), or
    built here once per run, shared by every pytest-xdist worker (the first builds, the others wait for it)."""
    from filelock import FileLock

    given = os.environ.get("TORCHNOTES_SITE")
    if given:
        site = Path(given) if Path(given).is_absolute() else ROOT / given
        assert (site / "index.html").exists() and (site / "zh" / "index.html").exists(), f"TORCHNOTES_SITE={given}: no built site"
        return site
    site = shared_tmp / "built-site"
    with FileLock(str(shared_tmp / "built-site.lock")):
        if not (site / "index.html").exists():
            done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)], cwd=ROOT,
                                  env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
            if done.returncode != 0:
                pytest.fail(f"mkdocs build failed ({done.returncode}):\n{done.stderr[-4000:]}", pytrace=False)
    return site


@pytest.fixture(scope="session")
def laptop_walk(browser, built_site, shared_tmp) -> dict[str, dict]:
    """Every page of the built site visited once at 1280 px and inspected (tests/walk.py), for every module
    that checks something on each page; one walk per run, shared by the pytest-xdist workers."""
    from browser_support import SiteServer
    from walk import shared_walk

    with SiteServer(built_site) as server:
        return shared_walk(browser, server, built_site, shared_tmp)


@pytest.fixture(scope="session")
def version_envs(request) -> Path:
    """TORCHNOTES_ENVS for the clones that run `versions` (the documented commands, the deploy workflow): the
    compared releases' environments, kept in pytest's cache folder between runs as a reader keeps them in
    ~/.cache/torchnotes. An environment is keyed by what it holds, not by the clone (torchnotes/versions/envs.py):
    torch 2.13 is installed once for all of them (the first makes it, under a file lock; the others wait)."""
    return request.config.cache.mkdir("version-envs")


@pytest.fixture(scope="session")
def kept_books(request) -> Path:
    """TORCHNOTES_BOOKS for the same clones: the PDF books kept by what they are printed from
    (torchnotes/generators/pdf/keep.py), so that the second print of the same site in a run, or in the next run,
    is a copy."""
    return request.config.cache.mkdir("kept-books")


@pytest.fixture(scope="session")
def worker_id(request) -> str:
    """pytest-xdist's worker name ('master' without workers); its own fixture of that name wins when it is loaded."""
    return getattr(request.config, "workerinput", {}).get("workerid", "master")


@pytest.fixture(scope="session")
def env():
    """The real environment of this machine, probed once (a child interpreter imports torch)."""
    from torchnotes.engine.environment import probe

    return probe(ROOT / "requirements.txt")


@pytest.fixture(scope="session")
def zygotes():
    """The zygotes of this worker's engines, kept across tests as `mkdocs serve` keeps them across rebuilds:
    torch is imported once per worker (and per keyed variables), not once per test."""
    from torchnotes.engine.zygote import Zygotes

    pool = Zygotes()
    yield pool
    pool.close()


@pytest.fixture
def make_engine(tmp_path, env, zygotes):
    """An engine on a cache in tmp_path (pages under tmp_path); keyword arguments are settings (kernel, timeout,
    ...) or a Run's (mode, page_timeout, ...)."""

    from torchnotes.engine.scheduler import Engine, Run
    from torchnotes.settings import DEFAULTS

    def make(environment=None, zygotes=zygotes, **kwargs):
        settings = {k: kwargs.pop(k) for k in list(kwargs) if k in DEFAULTS.options}
        return Engine(settings_at(tmp_path, **settings), environment or env, zygotes=zygotes,
                      run=Run(**{"jobs": 2, **kwargs}))

    return make


@pytest.fixture
def fixture_site(tmp_path):
    """A copy of tests/fixtures/site (both languages, every feature) to build in tmp_path."""
    return fixture_copy(tmp_path, synced=False)


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole run, shared by every browser test module: Playwright's sync API cannot
    start a second instance while the first one is still open."""
    from browser_support import CHROMIUM, CHROMIUM_ARGS, HEADLESS_SHELL, find_chromium, skip_or_fail

    try:
        import playwright.sync_api as playwright_sync
    except ImportError:
        skip_or_fail("Playwright is not installed (pip install -r requirements.txt)")
    with playwright_sync.sync_playwright() as p:
        executable = find_chromium(p.chromium.executable_path)
        if executable is None:
            skip_or_fail(f"no Chromium at {HEADLESS_SHELL}, {CHROMIUM} nor at {p.chromium.executable_path} "
                         "(scripts/setup.sh --browser installs one)")
        chromium = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()
