"""The engine through the cache's interface (lookup / store), with no MkDocs and no kernel: executions are faked.

The cache decides whether an entry holds (Hit, or Miss with the reason `execute --explain` prints); the
engine only schedules: which pages run, how many at once, and what it reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.metadata

import pytest
from helpers import code, page, settings_at

import torchnotes.engine.scheduler as engine_module
from torchnotes.engine.cache import Cache, Hit, Miss, PageCache
from torchnotes.engine.execute import Execution
from torchnotes.engine.scheduler import Run
from torchnotes.errors import CellFailed, NotExecuted
from torchnotes.pages.read import read_page

NUMPY = importlib.metadata.version("numpy")  # what a real kernel would record, so the engine's own look-up agrees


def execution(page, text: str = "out\n", stderr: bool = False) -> Execution:
    stream = {"output_type": "stream", "name": "stderr" if stderr else "stdout", "text": text}
    return Execution(outputs={cell.id: [stream] for cell in page.code_cells}, cell_seconds=[0.1] * len(page.code_cells),
                     seconds=0.1, record={"files": [], "packages": {"numpy": NUMPY}})


@pytest.fixture
def cache(tmp_path, env):
    return PageCache(Cache(tmp_path / "cache"), env, "python3", tmp_path, packages={"numpy": NUMPY})


@pytest.fixture
def fake_kernels(monkeypatch):
    """execute_page replaced: records each call and the most pages in flight at once."""
    calls, state = [], {"now": 0, "most": 0}

    async def fake(page, options, shown, deadline=None):
        calls.append(shown)
        state["now"] += 1
        state["most"] = max(state["most"], state["now"])
        await asyncio.sleep(0.05)
        state["now"] -= 1
        if "boom" in page.code_cells[0].source:
            return Execution(error=CellFailed(shown, "ValueError: boom", cell=1))
        return execution(page, text=f"ran {shown}\n")

    monkeypatch.setattr(engine_module, "execute_page", fake)
    return calls, state


def test_lookup_misses_then_hits_what_store_kept(tmp_path, cache):
    p = read_page(page(tmp_path, "en/a.md", code("print(1)")))
    miss = cache.lookup(p)
    assert isinstance(miss, Miss) and miss.reason == "no entry"
    body, written = cache.store(p, execution(p))
    assert written == {miss.key}
    hit = cache.lookup(p)
    assert isinstance(hit, Hit) and hit.body["outputs"] == body["outputs"] and hit.used == {miss.key}


def test_a_changed_package_or_file_is_a_miss_that_says_which(tmp_path, env):
    data = tmp_path / "data.txt"
    data.write_text("1")
    p = read_page(page(tmp_path, "en/a.md", code("print(open('data.txt').read())")))
    kept = PageCache(Cache(tmp_path / "cache"), env, "python3", tmp_path, packages={"numpy": NUMPY})
    run = execution(p)
    run.record = {"files": ["data.txt"], "packages": {"numpy": NUMPY}}
    kept.store(p, run)
    assert isinstance(kept.lookup(p), Hit)
    data.write_text("2")
    assert kept.lookup(p).reason == "file data.txt changed"
    data.write_text("1")
    newer = PageCache(Cache(tmp_path / "cache"), env, "python3", tmp_path, packages={"numpy": "0.1"})
    assert newer.lookup(p).reason == f"package numpy {NUMPY} -> 0.1"


def test_a_damaged_entry_is_named_read_as_a_miss_and_made_again(tmp_path, cache, caplog):
    p = read_page(page(tmp_path, "en/a.md", code("print(1)")))
    cache.store(p, execution(p))
    entry = cache.store_.path(cache.key(p))
    entry.write_text(entry.read_text().replace("out", "OUT"))
    assert cache.lookup(p).reason == "no entry"
    assert [record.levelname for record in caplog.records if str(entry) in record.getMessage()] == ["WARNING"]
    cache.store(p, execution(p))
    assert isinstance(cache.lookup(p), Hit)


def test_a_twin_with_other_comments_keeps_its_own_outputs_when_they_quote_source(tmp_path, cache):
    en = read_page(page(tmp_path, "en/a.md", code("import warnings  # warn\nwarnings.warn('x')")))
    zh = read_page(page(tmp_path, "zh/a.md", code("import warnings  # 警告\nwarnings.warn('x')"), title="测试"))
    assert cache.key(en) == cache.key(zh)  # comments are not in the key
    body, _ = cache.store(en, execution(en, "warn  # warn\n", stderr=True))
    assert not PageCache.serves(body, zh)
    assert isinstance(cache.lookup(zh), Miss)
    cache.store(zh, execution(zh, "warn  # 警告\n", stderr=True))
    assert cache.lookup(zh).body["outputs"] != cache.lookup(en).body["outputs"]


def test_same_code_in_two_languages_runs_once(tmp_path, env, fake_kernels):
    calls, _ = fake_kernels
    pages = [page(tmp_path, "en/a.md", code("print(1)")), page(tmp_path, "zh/a.md", code("print(1)"), title="甲")]
    engine = engine_module.Engine(settings_at(tmp_path), env, run=Run(jobs=2, fork=False))
    report = engine.run(pages)
    assert calls == ["en/a.md"] and report.kernels == 1
    assert [r.status for r in report.results] == ["run", "cached"]
    assert report.results[1].outputs == report.results[0].outputs


def test_at_most_jobs_pages_run_at_once_and_nothing_changed_runs_nothing(tmp_path, env, fake_kernels):
    calls, state = fake_kernels
    pages = [page(tmp_path, f"en/p{i}.md", code(f"print({i})")) for i in range(6)]
    make = lambda: engine_module.Engine(settings_at(tmp_path), env, run=Run(jobs=2, fork=False))  # noqa: E731
    first = make().run(pages)
    assert first.kernels == 6 and state["most"] == 2
    second = make().run(pages)
    assert second.kernels == 0 and {r.status for r in second.results} == {"cached"}
    assert len(calls) == 6


def test_a_failure_is_reported_for_every_page_sharing_the_code_and_never_stored(tmp_path, env, fake_kernels):
    pages = [page(tmp_path, "en/a.md", code("raise ValueError('boom')")),
             page(tmp_path, "zh/a.md", code("raise ValueError('boom')"), title="甲")]
    engine = engine_module.Engine(settings_at(tmp_path), env, run=Run(fork=False))
    report = engine.run(pages)
    assert [r.status for r in report.results] == ["failed", "failed"]
    assert "the same code as zh/a.md" in report.results[0].error.message
    assert Cache(tmp_path / "cache").keys() == set()


def test_mode_off_serves_the_cache_and_names_what_it_cannot(tmp_path, env, fake_kernels):
    calls, _ = fake_kernels
    kept, missing = page(tmp_path, "en/a.md", code("print(1)")), page(tmp_path, "en/b.md", code("print(2)"))
    engine_module.Engine(settings_at(tmp_path), env, run=Run(fork=False)).run([kept])
    off = engine_module.Engine(settings_at(tmp_path), env, run=Run(mode="off"))
    report = off.run([kept, missing])
    assert report.results[0].status == "cached"
    assert isinstance(report.results[1].error, NotExecuted) and "no entry" in report.results[1].error.message
    assert calls == ["en/a.md"]


def test_another_environment_is_another_key(tmp_path, cache, env):
    p = read_page(page(tmp_path, "en/a.md", code("print(1)")))
    older = PageCache(cache.store_, dataclasses.replace(env, torch="2.13.0"), "torchnotes-torch-2.13.0", tmp_path)
    assert older.key(p) != cache.key(p)
    cache.store(p, execution(p))
    assert isinstance(older.lookup(p), Miss)
