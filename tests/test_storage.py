"""One checksummed-file implementation (torchnotes/storage.py) serves every file the build keeps: the page cache,
the kept files (parsed pages, scripts, HTML, search entries, release states) and the GPU recordings. A damaged file
gets the same treatment in each: it is named in a warning, read as absent, and made again by what writes it."""

from __future__ import annotations

import json

import pytest
from helpers import code, page

from torchnotes import gpu as recorded
from torchnotes.engine.cache import Cache, Miss, PageCache
from torchnotes.engine.execute import Execution
from torchnotes.errors import FileDamaged
from torchnotes.pages import tags
from torchnotes.pages.read import Reader, read_page
from torchnotes.publish.script import Scripts
from torchnotes.storage import load_checked, read_checked, write_checked

DAMAGES = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "edited": lambda raw: raw.replace(b"1", b"2", 1) if b"1" in raw else raw + b" ",
    "empty": lambda raw: b"",
}


def plant(path, damage: str) -> None:
    path.write_bytes(DAMAGES[damage](path.read_bytes()))
    with pytest.raises(FileDamaged) as caught:
        read_checked(path)
    assert str(path) in caught.value.message


def named(caplog, path) -> bool:
    return [r.levelname for r in caplog.records if str(path) in r.getMessage()] == ["WARNING"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_the_file_format(tmp_path, damage, caplog):
    path = tmp_path / "f.json"
    write_checked(path, {"n": 1, "text": "一"})
    assert read_checked(path) == {"n": 1, "text": "一"} and set(json.loads(path.read_text())) == {"sha256", "body"}
    plant(path, damage)
    assert load_checked(path) is None and named(caplog, path)


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_cache_entry(tmp_path, env, damage, caplog):
    cache = PageCache(Cache(tmp_path / "cache"), env, "python3", tmp_path, packages={})
    p = read_page(page(tmp_path, "en/a.md", code("print(1)")))
    outputs = {p.code_cells[0].id: [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}
    cache.store(p, Execution(outputs=outputs, cell_seconds=[0.1], seconds=0.1, record={"files": [], "packages": {}}))
    entry = cache.store_.path(cache.key(p))
    plant(entry, damage)
    assert isinstance(cache.lookup(p), Miss) and named(caplog, entry)
    cache.store(p, Execution(outputs=outputs, cell_seconds=[0.1], seconds=0.1, record={"files": [], "packages": {}}))
    assert read_checked(entry)["outputs"] == outputs


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_kept_file(tmp_path, damage, caplog):
    path = page(tmp_path, "en/a.md", code("print(1)"))
    first = Reader(tmp_path / "parsed").page(path)
    [kept] = (tmp_path / "parsed").glob("*.json")
    plant(kept, damage)
    again = Reader(tmp_path / "parsed").page(path)
    assert named(caplog, kept) and again.fingerprints == first.fingerprints
    assert read_checked(kept) is not None  # parsed again and kept again

    scripts = Scripts(tmp_path / "scripts")
    text = scripts.script(first, {}, "# header")
    [script] = (tmp_path / "scripts").glob("*.json")
    plant(script, damage)
    assert Scripts(tmp_path / "scripts").script(first, {}, "# header") == text
    assert named(caplog, script) and read_checked(script) == {"text": text}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_gpu_recording(tmp_path, damage, caplog, monkeypatch):
    monkeypatch.setitem(tags.TAGS, tags.RECORDED_TEST, "recorded on CPU by the tests")
    docs = tmp_path / "docs"
    p = read_page(page(docs, "en/g.md", code("print(6 * 7)", f'tags=["{tags.RECORDED_TEST}"]')))
    outputs = {p.code_cells[0].id: [{"output_type": "stream", "name": "stdout", "text": "42\n"}]}
    store = recorded.Store(tmp_path / "recorded", docs)
    machine = recorded.probe_machine()
    path = store.write(p, outputs, machine, date="2026-11-26", cache_key="k", tag=tags.RECORDED_TEST)
    plant(path, damage)
    fresh = recorded.Store(tmp_path / "recorded", docs)
    assert isinstance(fresh.lookup(p, 1), recorded.Missing) and named(caplog, path)
    store.write(p, outputs, machine, date="2026-11-26", cache_key="k", tag=tags.RECORDED_TEST)  # recorded again
    assert isinstance(recorded.Store(tmp_path / "recorded", docs).lookup(p, 1), recorded.Recorded)
