"""One command scaffolds a page in both languages, its notebooks and its nav entry, ready to build."""

import shutil
import subprocess
import sys

import yaml
from helpers import ROOT

from torchnotes.pages.read import read_page
from torchnotes.pages.translations import check_translations
from torchnotes.publish.paired import check_pairs


def test_scaffold(fixture_site, tmp_path):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    done = subprocess.run([sys.executable, str(ROOT / "scripts/new_page.py"), "tensors/einsum", "Einsum", "爱因斯坦求和",
                           "--section", "Tensors", "--root", str(fixture_site)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    docs = fixture_site / "docs"
    assert read_page(docs / "en/tensors/einsum.md").meta["title"] == "Einsum"
    assert read_page(docs / "zh/tensors/einsum.md").meta["title"] == "爱因斯坦求和"
    assert check_translations(docs, ["en", "zh"]) == []
    assert check_pairs(docs, fixture_site / "notebooks", ["en", "zh"]) == []
    nav = yaml.load((fixture_site / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"]
    tensors = next(item["Tensors"] for item in nav if isinstance(item, dict) and "Tensors" in item)
    assert tensors[-1] == "tensors/einsum.md"
