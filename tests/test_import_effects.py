"""Issue 45 §2: what an import changes besides its own page. An import whose cells fail writes only its own files
and names them; only an import whose page runs takes over other pages' links to its tutorial, and a link rewritten
in both twins leaves their translation as fresh as it was; a fresh untranslated twin shows only its notice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, build, fixture_copy

pytestmark = pytest.mark.slow  # imports with pandoc and runs the pages, builds the site

TUTORIALS = ROOT / "tests" / "fixtures" / "tutorials" / "beginner_source" / "basics"
PUBLISHED = "https://docs.pytorch.org/tutorials/beginner/basics/"


def _site(tmp_path: Path, tutorial: str) -> Path:
    """The fixture site with a ledger of its translations and a page pair that links to the tutorial's published
    page, as a page imported earlier does."""
    src = fixture_copy(tmp_path)
    for lang, words in (("en", "See [the tutorial]"), ("zh", "见[该教程]")):
        (src / f"docs/{lang}/older.md").write_text(
            f"---\ntitle: Older\ndescription: An older page.\n---\n\n# Older\n\n{words}({PUBLISHED}{tutorial}.html).\n",
            encoding="utf-8")
    done = _cli(src, "sync")
    assert done.returncode == 0, done.stderr
    done = _cli(src, "translated", "--all")
    assert done.returncode == 0, done.stdout + done.stderr
    return src


def _cli(src: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchnotes", *args], cwd=src, capture_output=True, text=True,
                          timeout=600)


def _import(src: Path, tutorial: str, path: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(TUTORIALS / f"{tutorial}.py"),
                           path, "--root", str(src), "--section-zh", "教程"], capture_output=True, text=True, timeout=600)


def test_an_import_that_fails_writes_only_its_own_files_and_names_them(tmp_path):
    src = _site(tmp_path, "outdated_api")
    before = {lang: (src / f"docs/{lang}/older.md").read_text(encoding="utf-8") for lang in ("en", "zh")}
    done = _import(src, "outdated_api", "tutorials/outdated")
    assert done.returncode == 1
    assert "The import wrote only these files, and changed no other page: " in done.stderr
    listed = done.stderr.split("changed no other page: ", 1)[1]
    for wanted in ("docs/en/tutorials/outdated.md", "docs/zh/tutorials/outdated.md", "mkdocs.yml",
                   "notebooks/en/tutorials/outdated.ipynb", "notebooks/zh/tutorials/outdated.ipynb"):
        assert str(src / wanted) in listed, wanted
    assert {lang: (src / f"docs/{lang}/older.md").read_text(encoding="utf-8") for lang in ("en", "zh")} == before
    assert "link: " not in done.stdout


def test_a_link_rewritten_in_both_twins_keeps_the_translation_fresh_and_the_new_twin_shows_only_its_notice(tmp_path):
    src = _site(tmp_path, "gradients")
    done = _import(src, "gradients", "tutorials/gradients")
    assert done.returncode == 0, done.stdout + done.stderr
    for lang in ("en", "zh"):
        assert "](tutorials/gradients.md)" in (src / f"docs/{lang}/older.md").read_text(encoding="utf-8")
    checked = _cli(src, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "older.md" not in checked.stderr  # not "the English page's prose changed since this translation"
    assert "untranslated: docs/zh/tutorials/gradients.md" in checked.stderr
    built = build(src, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    twin = (tmp_path / "site/zh/tutorials/gradients/index.html").read_text(encoding="utf-8")
    assert 'class="nb-untranslated"' in twin and 'class="nb-stale"' not in twin
    older = (tmp_path / "site/zh/older/index.html").read_text(encoding="utf-8")
    assert 'class="nb-stale"' not in older
