"""Everything a page's outputs depend on besides its code makes the entry a miss when it changes: files the page
reads or imports, packages it imports, the engine's own source, the allow-listed environment variables."""

import dataclasses
import json
import shutil
from pathlib import Path

from helpers import code, page

import torchnotes.engine.cache
from torchnotes.engine.cache import Cache, cache_key
from torchnotes.engine.environment import keyed_variables
from torchnotes.engine.sources import engine_version
from torchnotes.pages.read import read_page


def entry(tmp_path, result):
    return Cache(tmp_path / "cache").get(result.key)


def test_a_data_file_the_page_reads(tmp_path, make_engine):
    (tmp_path / "en").mkdir()
    (tmp_path / "en/numbers.txt").write_text("1 2 3\n")
    path = page(tmp_path, "en/a.md", code("print(sum(map(int, open('numbers.txt').read().split())))"))
    first = make_engine().run([path]).results[0]
    assert first.cell_outputs()[0][0]["text"] == "6\n"
    assert list(entry(tmp_path, first)["inputs"]["files"]) == ["en/numbers.txt"]
    assert make_engine().run([path]).results[0].status == "cached"
    (tmp_path / "en/numbers.txt").write_text("1 2 3 4\n")
    again = make_engine().run([path]).results[0]
    assert again.status == "run" and again.cell_outputs()[0][0]["text"] == "10\n"
    assert "file en/numbers.txt changed" in again.note


def test_a_helper_module_the_page_imports(tmp_path, make_engine):
    (tmp_path / "en").mkdir()
    (tmp_path / "en/helper_mod.py").write_text("VALUE = 1\n")
    path = page(tmp_path, "en/a.md", code("import helper_mod\nprint(helper_mod.VALUE)"))
    assert make_engine().run([path]).results[0].cell_outputs()[0][0]["text"] == "1\n"
    assert make_engine().run([path]).results[0].status == "cached"
    (tmp_path / "en/helper_mod.py").write_text("VALUE = 2\n")
    again = make_engine().run([path]).results[0]
    assert again.status == "run" and again.cell_outputs()[0][0]["text"] == "2\n"
    assert "file en/helper_mod.py changed" in again.note


def fake_distribution(folder: Path, version: str) -> None:
    """An installed package 'tnfake' of the given version, as pip would leave it (module + .dist-info)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tnfake.py").write_text("NAME = 'tnfake'\n")
    for old in folder.glob("tnfake-*.dist-info"):
        shutil.rmtree(old)
    info = folder / f"tnfake-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tnfake\nVersion: {version}\n")
    (info / "top_level.txt").write_text("tnfake\n")


def test_an_installed_package_version_bump(tmp_path, make_engine, monkeypatch):
    # Outside the project root, as site-packages would be: only its version counts, not its files.
    packages = Path(str(tmp_path) + "-packages")
    fake_distribution(packages, "1.0")
    monkeypatch.setenv("PYTHONPATH", f"{packages}:{Path(torchnotes.engine.cache.__file__).parent.parent}")
    path = page(tmp_path, "en/a.md", code("import tnfake\nprint(tnfake.NAME)"))
    first = make_engine().run([path]).results[0]
    assert first.error is None, first.error
    assert entry(tmp_path, first)["inputs"]["packages"]["tnfake"] == "1.0"
    assert make_engine().run([path]).results[0].status == "cached"
    fake_distribution(packages, "1.1")
    again = make_engine().run([path]).results[0]
    assert again.status == "run"
    assert "package tnfake 1.0 -> 1.1" in again.note
    assert entry(tmp_path, again)["inputs"]["packages"]["tnfake"] == "1.1"
    shutil.rmtree(packages)


def test_engine_source_change_is_a_new_version(tmp_path):
    copy = tmp_path / "torchnotes"
    package = Path(torchnotes.engine.cache.__file__).parents[1]
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = engine_version(copy)
    with (copy / "engine" / "execute.py").open("a") as handle:
        handle.write("\n# a change in how pages run\n")
    assert engine_version(copy) != before
    assert engine_version(package) == torchnotes.engine.cache.ENGINE_VERSION


def test_engine_version_change_executes_again(tmp_path, make_engine, monkeypatch):
    path = page(tmp_path, "en/a.md", code("print(1)"))
    make_engine().run([path])
    assert make_engine().run([path]).results[0].status == "cached"
    monkeypatch.setattr(torchnotes.engine.cache, "ENGINE_VERSION", "0" * 16)
    assert make_engine().run([path]).results[0].status == "run"


def test_an_allow_listed_environment_variable_is_in_the_key(tmp_path, make_engine, env, monkeypatch):
    path = page(tmp_path, "en/a.md", code("import os\nprint(os.environ.get('CUBLAS_WORKSPACE_CONFIG'))"))
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    plain = dataclasses.replace(env, variables=keyed_variables())
    assert make_engine(plain).run([path]).results[0].cell_outputs()[0][0]["text"] == "None\n"
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    changed = dataclasses.replace(env, variables=keyed_variables())
    again = make_engine(changed).run([path]).results[0]
    assert again.status == "run" and again.cell_outputs()[0][0]["text"] == ":4096:8\n"


def test_variables_the_engine_fixes_do_not_split_the_cache(tmp_path, env, monkeypatch):
    cells = read_page(page(tmp_path, "en/a.md", code("x = 1"))).code_cells
    monkeypatch.setenv("OMP_NUM_THREADS", "8")  # every kernel runs with 1 whatever the shell says
    a = cache_key(cells, "python3", dataclasses.replace(env, variables=keyed_variables()))
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert cache_key(cells, "python3", dataclasses.replace(env, variables=keyed_variables())) == a
    assert json.loads(keyed_variables())["OMP_NUM_THREADS"] == "1"


def test_installed_packages_are_not_project_files(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("import torch, numpy\nprint(torch.ones(1).sum().item())"))
    result = make_engine().run([path]).results[0]
    inputs = entry(tmp_path, result)["inputs"]
    assert inputs["files"] == {}
    assert {"torch", "numpy"} <= set(inputs["packages"])


def test_packages_vendored_inside_a_package_do_not_make_every_build_a_miss(tmp_path, make_engine):
    # torch.utils.cpp_extension imports setuptools, which puts its _vendor folder on sys.path: the copies there
    # (platformdirs, jaraco.*) are not what the build sees installed, and must not count as the page's packages.
    path = page(tmp_path, "en/a.md", code("import setuptools\nprint('ok')"))
    first = make_engine().run([path]).results[0]
    assert first.status == "run"
    assert "setuptools" in entry(tmp_path, first)["inputs"]["packages"]
    assert not any(name.startswith("jaraco") for name in entry(tmp_path, first)["inputs"]["packages"])
    assert make_engine().run([path]).results[0].status == "cached"


def test_compiled_extensions_are_kept_with_the_cache_and_not_counted_as_inputs(tmp_path, make_engine):
    # What load_inline does, without the 30 s compile: write into TORCH_EXTENSIONS_DIR, read it back.
    writer = page(tmp_path, "en/a.md", code("""
        import os, pathlib
        folder = pathlib.Path(os.environ["TORCH_EXTENSIONS_DIR"]) / "ext"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "ext.so").write_text("compiled")
        print(open(folder / "ext.so").read())
    """))
    reader = page(tmp_path, "zh/a.md", code("""
        import os, pathlib
        print(open(pathlib.Path(os.environ["TORCH_EXTENSIONS_DIR"]) / "ext" / "ext.so").read())
    """))
    engine = make_engine()
    first = engine.run([writer]).results[0]
    second = engine.run([reader]).results[0]  # another page, another kernel, later
    assert first.cell_outputs()[0][0]["text"] == second.cell_outputs()[0][0]["text"] == "compiled\n"
    folder = engine.options.extensions_dir
    assert folder.is_relative_to(tmp_path / "cache") and (folder / "ext" / "ext.so").exists()
    assert engine.env.torch in folder.name
    # A build artefact, not an input: its bytes do not make the entry a miss.
    assert entry(tmp_path, first)["inputs"]["files"] == {} == entry(tmp_path, second)["inputs"]["files"]
