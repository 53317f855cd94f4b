"""Every page in every language; every page in sync with its notebook; one command re-syncs."""

import json

from helpers import code, page

from torchnotes.cli import main as cli
from torchnotes.errors import MissingTranslation, PairOutOfSync
from torchnotes.pages.translations import check_translations
from torchnotes.publish.paired import check_pairs, sync_pairs

LANGS = ["en", "zh"]


def two_languages(tmp_path):
    docs = tmp_path / "docs"
    page(docs, "en/t/a.md", "Prose.\n\n" + code("print(1)"))
    page(docs, "zh/t/a.md", "说明。\n\n" + code("print(1)"), title="测试")
    return docs, tmp_path / "notebooks"


def test_missing_translation_names_the_page(tmp_path):
    docs, _ = two_languages(tmp_path)
    page(docs, "en/t/only-english.md", code("x = 1"))
    errors = check_translations(docs, LANGS)
    assert len(errors) == 1 and isinstance(errors[0], MissingTranslation)
    assert "zh/t/only-english.md" in errors[0].message and "'en'" in errors[0].message


def test_sync_then_in_sync(tmp_path):
    docs, notebooks = two_languages(tmp_path)
    assert check_pairs(docs, notebooks, LANGS)  # nothing written yet
    written = sync_pairs(docs, notebooks, LANGS)
    assert sorted(p.relative_to(notebooks).as_posix() for p in written) == ["en/t/a.ipynb", "zh/t/a.ipynb"]
    assert check_pairs(docs, notebooks, LANGS) == []
    assert sync_pairs(docs, notebooks, LANGS) == []  # idempotent: same bytes, nothing rewritten


def test_paired_notebook_opens_without_jupytext(tmp_path):
    import nbformat

    docs, notebooks = two_languages(tmp_path)
    sync_pairs(docs, notebooks, LANGS)
    nb = nbformat.read(notebooks / "en/t/a.ipynb", as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    (cell,) = [c for c in nb.cells if c.cell_type == "code"]
    assert cell.source == "print(1)" and cell.outputs == [] and cell.execution_count is None
    assert nb.cells[0].source.startswith("# Test")  # no raw front-matter cell for Colab to show


def test_code_edit_puts_the_pair_out_of_sync(tmp_path):
    docs, notebooks = two_languages(tmp_path)
    sync_pairs(docs, notebooks, LANGS)
    target = docs / "en/t/a.md"
    target.write_text(target.read_text().replace("print(1)", "print(2)"))
    errors = check_pairs(docs, notebooks, LANGS)
    assert len(errors) == 1 and isinstance(errors[0], PairOutOfSync)
    assert "en/t/a.md" in errors[0].message and "python -m torchnotes sync" in errors[0].message


def test_committed_outputs_are_refused(tmp_path):
    docs, notebooks = two_languages(tmp_path)
    sync_pairs(docs, notebooks, LANGS)
    path = notebooks / "zh/t/a.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    path.write_text(json.dumps(nb))
    errors = check_pairs(docs, notebooks, LANGS)
    assert len(errors) == 1 and "outputs committed" in errors[0].message


def test_orphan_notebook_is_reported_and_removed_by_sync(tmp_path):
    docs, notebooks = two_languages(tmp_path)
    sync_pairs(docs, notebooks, LANGS)
    (docs / "en/t/a.md").unlink()
    assert any("has no page" in e.message for e in check_pairs(docs, notebooks, LANGS))
    sync_pairs(docs, notebooks, LANGS)
    assert not (notebooks / "en/t/a.ipynb").exists()


def test_cli_check_and_sync(tmp_path, capsys):
    docs, notebooks = two_languages(tmp_path)
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    assert cli(["-f", str(config), "check"]) == 1
    assert "python -m torchnotes sync" in capsys.readouterr().err
    assert cli(["-f", str(config), "sync"]) == 0
    assert cli(["-f", str(config), "check"]) == 0
