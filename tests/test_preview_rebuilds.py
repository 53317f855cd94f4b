"""What a preview rebuild (`mkdocs serve --dirty`, scripts/serve.sh) redoes and what it keeps: the pages a publisher
renders again (torchnotes/publish/kept_pages.py), the search entries it assembles and the indexes it packs again
(torchnotes/generators/mkdocs/kept_search.py, search_files.py), what makes a dirty build rebuild every page
(dirty.py). What is kept must give the bytes a fresh build gives (tests/test_serve.py checks the served site)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import fixture_copy

from torchnotes.errors import BuildFailed


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """The fixture site published once (its kernels run once, its cache filled)."""
    from torchnotes.engine.environment import probe
    from torchnotes.publish.tree import Publisher
    from torchnotes.settings import load

    base = tmp_path_factory.mktemp("rendered")
    src = fixture_copy(base)
    Publisher(load(src / "mkdocs.yml"), probe(src / "requirements.txt")).run(base / "out")
    return src


@pytest.fixture
def session_site(rendered, tmp_path):
    from torchnotes.engine.environment import probe
    from torchnotes.publish.session import Session
    from torchnotes.settings import load

    src = tmp_path / "site-src"
    shutil.copytree(rendered, src)
    settings = load(src / "mkdocs.yml")
    session = Session.for_settings(settings)
    yield src, settings, probe(src / "requirements.txt"), session
    session.close()  # its zygote: a server process left running warns when collected, in whichever test that is


def tree(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_session_renders_again_only_the_pages_an_edit_changed(session_site, tmp_path):
    from torchnotes.publish.tree import Publisher

    src, settings, env, session = session_site
    out = tmp_path / "out"

    def run():
        return Publisher(settings, env, session=session).run(out)

    assert run().reused == 0
    # Nothing changed: every page but the two report pages, which are made from every page (their marker).
    assert run().reused == 4
    # The English page and its twin (whose banner compares the two) are rendered again; the home pages are not.
    page = src / "docs/en/demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Some prose about gradients.", "Other prose."),
                    encoding="utf-8")
    assert run().reused == 2
    Publisher(settings, env).run(tmp_path / "fresh")
    assert tree(out) == tree(tmp_path / "fresh")
    assert "Other prose." in (out / "en/demo.md").read_text(encoding="utf-8")
    # A file the features read beside the pages (here the requirements) may change any page: all are rendered.
    requirements = src / "requirements.txt"
    os.utime(requirements, ns=(requirements.stat().st_atime_ns, requirements.stat().st_mtime_ns + 10**9))
    assert run().reused == 0


def test_pages_the_first_build_ran_are_kept_for_the_rebuild_that_finds_them_in_the_cache(session_site, tmp_path):
    """scripts/serve.sh's first build runs what the cache lacks; the next rebuild finds those pages in the cache.
    They show the same, so the first edit renders again only what it changed, as every later edit does."""
    from torchnotes.publish.tree import Publisher

    src, settings, env, session = session_site
    out = tmp_path / "out"
    first = Publisher(settings, env, session=session, mode="force").run(out)
    assert first.reused == 0 and first.report.count("run") > 0
    again = Publisher(settings, env, session=session).run(out)
    assert again.report.count("run") == 0 and again.report.count("cached") == first.report.count("run")
    # Every page but the two report pages, which show how each page was got (run, or from the cache).
    assert again.reused == 4 and not [p for p in again.written if p.name != "report.md"]
    Publisher(settings, env).run(tmp_path / "fresh")
    assert tree(out) == tree(tmp_path / "fresh")


def test_a_page_deleted_from_the_published_tree_is_written_again(session_site, tmp_path):
    from torchnotes.publish.tree import Publisher

    src, settings, env, session = session_site
    out = tmp_path / "out"
    Publisher(settings, env, session=session).run(out)
    (out / "zh/index.md").unlink()
    again = Publisher(settings, env, session=session).run(out)
    assert again.reused == 4 and (out / "zh/index.md") in again.written
    assert tree(out) == tree(_fresh(settings, env, tmp_path))


def _fresh(settings, env, tmp_path: Path) -> Path:
    from torchnotes.publish.tree import Publisher

    Publisher(settings, env).run(tmp_path / "fresh")
    return tmp_path / "fresh"


def test_a_translation_identical_to_its_original_is_left_out_of_the_index_as_i18n_does():
    from torchnotes.generators.mkdocs.kept_search import _without_duplicates

    docs = [
        {"location": "", "title": "Home", "text": "Welcome"},
        {"location": "demo/#a", "title": "A", "text": "Same words"},
        {"location": "zh/", "title": "首页", "text": "欢迎"},
        {"location": "zh/demo/#a", "title": "A", "text": "Same words"},  # the original's section, word for word
        {"location": "zh/demo/#b", "title": "A", "text": "Same words"},  # same text, another section: kept
        {"location": "zh/demo/#c", "title": "C", "text": "Translated"},
    ]
    assert [d["location"] for d in _without_duplicates(docs, ["en", "zh"])] == [
        "", "demo/#a", "zh/", "zh/demo/#b", "zh/demo/#c"]


def test_what_every_page_shows_is_keyed_by_the_configuration_as_loaded_and_the_titles(tmp_path):
    """dirty.py rebuilds every page when the key changes: the configuration the build loaded (a file saved again
    during the build is the next build's), or a page's title; the same configuration loaded again is the same."""
    from mkdocs.config import load_config

    from torchnotes.generators.mkdocs.dirty import structure_key

    src = fixture_copy(tmp_path, synced=False)

    def key(titles=None):
        return structure_key(load_config(str(src / "mkdocs.yml")), titles or {"docs/en/demo.md": "Demo"})

    first = key()
    assert key() == first
    assert key({"docs/en/demo.md": "Demo renamed"}) != first
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("site_name: Fixture", "site_name: Other"),
                      encoding="utf-8")
    assert key() != first


def test_the_packed_indexes_are_write_per_languages_and_only_a_changed_one_is_written_again(tmp_path):
    from torchnotes.generators.mkdocs.search_files import SearchFiles
    from torchnotes.publish import search_expand, search_index

    index = {"config": {"lang": ["en", "zh"], "separator": r"[\s\-]+", "pipeline": [], "fields": {}},
             "docs": [{"location": "demo/", "title": "Demo", "text": "Some prose"},
                      {"location": "zh/demo/", "title": "演示", "text": "一些\u200b文字"}]}
    sites = [tmp_path / "kept", tmp_path / "plain"]
    for site in sites:
        (site / "search").mkdir(parents=True)
        (site / "search" / "search_index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    files = SearchFiles()
    assert files.write(sites[0], ["en", "zh"], tmp_path, "")[0] == search_index.write_per_language(
        sites[1], ["en", "zh"], search_expand.Sources.load(tmp_path))[0]
    assert tree(sites[0]) == tree(sites[1])

    zh = sites[0] / "zh" / "search" / "search_index.json"
    packed_zh = zh.read_bytes()
    zh.write_bytes(b"written by hand")
    index["docs"][0]["text"] = "Other prose"  # the English entries change, the Chinese ones do not
    (sites[0] / "search" / "search_index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    files.write(sites[0], ["en", "zh"], tmp_path, "")
    en = sites[0] / "search" / "search_index.json"
    assert "Other prose" in en.read_text(encoding="utf-8") and zh.read_bytes() == packed_zh
    written = zh.stat().st_mtime_ns
    (sites[0] / "search" / "search_index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    files.write(sites[0], ["en", "zh"], tmp_path, "")
    assert zh.stat().st_mtime_ns == written  # unchanged: not written again


def test_a_memo_keeps_one_value_per_name_under_its_key_and_never_a_failure():
    from torchnotes.publish.features.base import Memo

    memo, made = Memo(), []

    def make(value):
        made.append(value)
        return value

    assert memo.get("a", "k1", lambda: make(1)) == 1
    assert memo.get("a", "k1", lambda: make(2)) == 1 and made == [1]
    assert memo.get("a", "k2", lambda: make(3)) == 3
    assert memo.get("a", "k1", lambda: make(4)) == 4  # only the last value is kept
    with pytest.raises(ZeroDivisionError):
        memo.get("b", "k1", lambda: 1 / 0)
    assert memo.get("b", "k1", lambda: make(5)) == 5


def test_what_the_features_compute_from_the_whole_site_is_kept_across_a_prose_edit_only(session_site, tmp_path):
    """The version comparison and the GPU recordings' check read the code, the record and the store, not the prose:
    a session computes them again after a code edit or a changed recording, not after a prose edit; the tokens of a
    page are checked again when its text changes. What is published is a fresh build's, every time."""
    from torchnotes.publish.tree import Publisher

    src, settings, env, session = session_site
    out = tmp_path / "out"

    def run():
        Publisher(settings, env, session=session).run(out)
        return {name: value for name, (_, value) in session.memo.values.items()}

    first = run()
    assert {"versions.compare", "gpu.check"} <= set(first)
    page = src / "docs/en/demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Some prose about gradients.", "Other {{ nope }}."),
                    encoding="utf-8")
    with pytest.raises(BuildFailed, match="unknown token"):  # the edited page's tokens are checked again
        run()
    page.write_text(page.read_text(encoding="utf-8").replace("Other {{ nope }}.", "Other prose."), encoding="utf-8")
    after_prose = run()
    assert after_prose["versions.compare"] is first["versions.compare"]
    assert after_prose["gpu.check"] is first["gpu.check"]
    assert tree(out) == tree(_fresh(settings, env, tmp_path))

    (src / "recorded").mkdir(exist_ok=True)
    (src / "recorded" / "stray.json").write_text("{}", encoding="utf-8")
    after_store = run()
    assert after_store["gpu.check"] is not first["gpu.check"]
    (src / "recorded" / "stray.json").unlink()

    page.write_text(page.read_text(encoding="utf-8").replace('print("sum:", torch.arange(4).sum().item())',
                                                             'print("sum:", torch.arange(5).sum().item())'),
                    encoding="utf-8")
    after_code = run()
    assert after_code["versions.compare"] is not first["versions.compare"]
    assert after_code["gpu.check"] is not after_store["gpu.check"]
    run()  # the report pages say which pages ran: once more, from the cache, as the fresh build below
    shutil.rmtree(tmp_path / "fresh")
    assert tree(out) == tree(_fresh(settings, env, tmp_path))
