"""Issue 45 §3: what a page writes never reaches docs/. Its kernel runs in a scratch folder of its own that links the
files beside the page; a write that still reaches the pages' folder is refused, naming the file and the cell."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT, code, page

from torchnotes.publish.paired import sync_pairs

CONFIG = "site_name: t\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n"


def _site(root: Path, body: str) -> Path:
    (root / "mkdocs.yml").write_text(CONFIG)
    for lang in ("en", "zh"):
        page(root / "docs", f"{lang}/p.md", body)
    (root / "docs" / "en" / "data.csv").write_text("1,2\n")
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    return root


def _execute(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchnotes", "execute"], cwd=root, capture_output=True, text=True,
                          timeout=300)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root / "docs")) for p in (root / "docs").rglob("*") if p.is_file())


def test_a_hand_written_page_writes_into_its_own_folder_and_reads_the_files_beside_it(tmp_path):
    root = _site(tmp_path, code("import torch\ntorch.save(torch.ones(2), 'model.pt')\nprint(torch.load('model.pt'))")
                 + code("print(open('data.csv').read().strip())"))
    done = _execute(root)
    assert done.returncode == 0, done.stderr
    assert _files(root) == ["en/data.csv", "en/p.md", "zh/p.md"]  # no model.pt beside the page
    report = json.loads((root / ".cache/torchnotes/report.json").read_text())
    en = next(p for p in report["pages"] if p["page"].endswith("en/p.md"))
    cache = json.loads(next((root / ".cache/torchnotes").rglob(f"{en['key']}*.json")).read_text())
    text = json.dumps(cache)
    assert "docs/en/data.csv" in text and "model.pt\"" not in text.replace("'model.pt'", "")  # an input; not one


def test_a_page_that_writes_into_docs_stops_naming_the_file_and_the_cell(tmp_path):
    body = (code("import os\nprint('ok')")
            + code("open('data.csv', 'w').write('changed')"))  # through the link to the file beside the page
    root = _site(tmp_path, body)
    done = _execute(root)
    assert done.returncode == 1
    target = (root / "docs/en/data.csv").resolve()
    assert (f"docs/en/p.md:13 (code cell 2): PermissionError: [torchnotes] the page writes into the pages' folder: "
            f"{target}") in done.stderr, done.stderr
    assert "never into docs/" in done.stderr
    assert (root / "docs/en/data.csv").read_text() == "1,2\n"  # refused before anything was written
    # An absolute path is refused the same way, and so is removing a file.
    for statement in ("open(os.environ['TORCHNOTES_ROOT'] + '/docs/en/new.txt', 'w')",
                      "os.remove(os.environ['TORCHNOTES_ROOT'] + '/docs/en/data.csv')"):
        _site(tmp_path, code("import os\nprint('ok')") + code(statement))
        done = _execute(root)
        assert done.returncode == 1 and "(code cell 2): PermissionError: [torchnotes]" in done.stderr, done.stderr
    assert _files(root) == ["en/data.csv", "en/p.md", "zh/p.md"]


def test_an_imported_recipe_that_saves_beside_itself_leaves_docs_alone(fixture_site):
    source = ROOT / "tests/fixtures/tutorials/recipes_source/saves_a_model.py"
    done = subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(source), "tutorials/warm",
                           "--root", str(fixture_site), "--section-zh", "教程"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = subprocess.run([sys.executable, "-m", "torchnotes", "run", "docs/en/tutorials/warm.md"], cwd=fixture_site,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0 and "torch.Size([1, 2])" in ran.stdout, ran.stdout + ran.stderr  # saved, loaded back
    assert not list((fixture_site / "docs").rglob("model.pt"))  # by the import's run and by this one
