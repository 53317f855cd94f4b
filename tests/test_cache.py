"""The cache key follows execution, not prose; entries that do not check out are never served."""

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import code, page

from torchnotes.engine.cache import Cache, cache_key, code_fingerprint
from torchnotes.errors import FileDamaged
from torchnotes.pages.read import read_page


def test_prose_edit_executes_nothing(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", "Some prose.\n\n" + code("print(1 + 1)"))
    first = make_engine().run([path])
    assert first.kernels == 1 and first.results[0].status == "run"
    path.write_text(path.read_text().replace("Some prose.", "Better prose, with **bold**."))
    second = make_engine().run([path])
    assert second.kernels == 0
    assert second.results[0].status == "cached"
    assert second.results[0].outputs == first.results[0].outputs


def test_code_edit_executes_only_that_page(tmp_path, make_engine):
    a = page(tmp_path, "en/a.md", code("print('a')"))
    b = page(tmp_path, "en/b.md", code("print('b')"))
    make_engine().run([a, b])
    b.write_text(b.read_text().replace("print('b')", "print('b', 2)"))
    report = make_engine().run([a, b])
    assert [r.status for r in report.results] == ["cached", "run"]
    assert report.kernels == 1
    assert report.results[1].cell_outputs()[0][0]["text"] == "b 2\n"


def test_torch_upgrade_executes_everything(tmp_path, make_engine, env):
    pages = [page(tmp_path, f"en/{n}.md", code(f"print({i})")) for i, n in enumerate("abc")]
    make_engine().run(pages)
    upgraded = dataclasses.replace(env, torch="2.99.0")
    report = make_engine(upgraded).run(pages)
    assert [r.status for r in report.results] == ["run", "run", "run"]
    assert report.kernels == 3


@pytest.mark.parametrize("field,value", [
    ("python", "3.99.0"),        # another interpreter
    ("torch_build", "cuda 13.0"),  # same version, other build
    ("device", "NVIDIA H200"),   # other device kind
    ("requirements", "0" * 16),  # a pin changed
])
def test_every_environment_field_is_in_the_key(tmp_path, env, field, value):
    cells = read_page(page(tmp_path, "en/a.md", code("x = 1"))).code_cells
    assert cache_key(cells, "python3", env) != cache_key(cells, "python3", dataclasses.replace(env, **{field: value}))


def test_same_code_in_two_languages_executes_once(tmp_path, make_engine):
    en = page(tmp_path, "en/a.md", "English prose.\n\n" + code("x = 2  # double\nprint(x * 2)"))
    zh = page(tmp_path, "zh/a.md", "中文说明。\n\n" + code("# 翻倍\nx = 2  # 加倍\nprint(x * 2)"), title="测试")
    report = make_engine().run([en, zh])
    assert report.kernels == 1
    assert sorted(r.status for r in report.results) == ["cached", "run"]
    assert report.results[0].outputs == report.results[1].outputs


def test_translated_printed_labels_execute_separately(tmp_path, make_engine):
    en = page(tmp_path, "en/a.md", code("print('sum:', 3)"))
    zh = page(tmp_path, "zh/a.md", code("print('和:', 3)"))
    assert make_engine().run([en, zh]).kernels == 2


def test_tags_are_in_the_key(tmp_path, env):
    plain = read_page(page(tmp_path, "en/a.md", code("1/0", 'tags=["raises-exception"] raises="ZeroDivisionError"'))).code_cells
    other = read_page(page(tmp_path, "en/b.md", code("1/0", 'tags=["raises-exception"] raises="ArithmeticError"'))).code_cells
    assert cache_key(plain, "python3", env) != cache_key(other, "python3", env)


def test_failure_is_never_cached(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("raise ValueError('boom')"))
    first = make_engine().run([path])
    assert first.results[0].status == "failed"
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").glob("*.entry.json"))
    second = make_engine().run([path])
    assert second.kernels == 1 and second.results[0].status == "failed"


def test_comments_do_not_change_the_fingerprint():
    assert code_fingerprint("x = 1  # one\n\n# note\ny = x") == code_fingerprint("x = 1\ny = x  # 注释")
    assert code_fingerprint("x = 1") != code_fingerprint("x = 2")
    # A '#' inside a string is code, not a comment.
    assert code_fingerprint("print('# a')") != code_fingerprint("print('# b')")


@pytest.mark.parametrize("damage", [
    lambda raw: raw[: len(raw) // 2],                       # truncated write
    lambda raw: raw.replace(b'"text"', b'"test"', 1),       # body edited, checksum stale
    lambda raw: b"",                                        # empty file
])
def test_damaged_entry_is_detected(tmp_path, damage):
    cache = Cache(tmp_path)
    cache.put("k", {"outputs": [[{"output_type": "stream", "name": "stdout", "text": "1\n"}]]})
    path = cache.path("k")
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(FileDamaged):
        cache.get("k")


def test_corrupted_entry_is_executed_again_not_served(tmp_path, make_engine, caplog):
    path = page(tmp_path, "en/a.md", code("print('real')"))
    first = make_engine().run([path])
    entry = tmp_path / "cache" / f"{first.results[0].key}.entry.json"
    data = json.loads(entry.read_text())
    next(iter(data["body"]["outputs"].values()))[0]["text"] = "forged\n"
    entry.write_text(json.dumps(data))
    engine = make_engine()
    report = engine.run([path])
    assert report.results[0].status == "run"
    assert report.results[0].cell_outputs()[0][0]["text"] == "real\n"
    assert any("checksum" in line and entry.name in line for line in caplog.messages)


def test_no_temporary_files_left_behind(tmp_path):
    cache = Cache(tmp_path)
    for i in range(3):
        cache.put(f"k{i}", {"n": i})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k0.entry.json", "k1.entry.json", "k2.entry.json"]


def test_errors_survive_copy_and_pickle():
    import copy
    import pickle

    from torchnotes.errors import CellTimeout

    error = CellTimeout("docs/en/a.md", "cell did not finish within 2 s", cell=3, line=40, details="trace")
    for clone in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is CellTimeout and clone.message == error.message


def test_engine_runs_inside_a_running_event_loop(tmp_path, make_engine):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    path = page(tmp_path, "en/a.md", code("print('from a loop')"))

    async def inside():
        return make_engine().run([path])

    # A thread of its own: the test session's main thread may already run Playwright's loop.
    with ThreadPoolExecutor(max_workers=1) as pool:
        report = pool.submit(asyncio.run, inside()).result()
    assert report.results[0].cell_outputs()[0][0]["text"] == "from a loop\n"


def test_a_new_module_the_engine_imports_changes_the_key(tmp_path):
    """The engine's sources are derived from its imports: no hand-kept list to forget a new module in."""
    import shutil

    from torchnotes.engine.sources import engine_sources, engine_version

    package = tmp_path / "torchnotes"
    shutil.copytree(Path(__file__).resolve().parent.parent / "torchnotes", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = engine_version(package)
    (package / "engine" / "newstep.py").write_text("LIMIT = 1\n")
    assert engine_version(package) == before, "a module the engine does not import is not the engine's"
    execute = package / "engine" / "execute.py"
    execute.write_text(execute.read_text() + "\nfrom .newstep import LIMIT  # noqa: E402\n")
    assert "engine/newstep.py" in engine_sources(package)
    imported = engine_version(package)
    assert imported != before
    (package / "engine" / "newstep.py").write_text("LIMIT = 2\n")
    assert engine_version(package) != imported, "editing the new module re-executes pages"
    # An absolute import from another folder of the package counts the same.
    (package / "pages" / "later.py").write_text("STEP = 1\n")
    execute.write_text(execute.read_text() + "from torchnotes.pages.later import STEP  # noqa: E402\n")
    assert "pages/later.py" in engine_sources(package)
    # Run by the kernel from its path, named in execute.py beside it.
    assert "engine/kernel_setup.py" in engine_sources(package)
