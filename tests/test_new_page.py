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


def test_a_new_section_goes_before_the_sites_own_pages(tmp_path):
    """Issue 45 §5: an imported tutorial's new section came after "About the site", so the first tutorial's
    "Previous" link was the Sources page. A new section goes before it; a known section keeps its place."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from new_page import add_to_nav

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nnav:\n  - Home: index.md\n  - Tensors:\n      - tensors/views.md\n"
                      "  - About the site:\n      - Sources: sources.md\nextra: {}\n", encoding="utf-8")
    add_to_nav(config, "Tutorials", "tutorials/warm.md")
    add_to_nav(config, "Tensors", "tensors/einsum.md")
    nav = yaml.safe_load(config.read_text(encoding="utf-8"))["nav"]
    assert nav == [{"Home": "index.md"}, {"Tensors": ["tensors/views.md", "tensors/einsum.md"]},
                   {"Tutorials": ["tutorials/warm.md"]}, {"About the site": [{"Sources": "sources.md"}]}]
    bare = tmp_path / "bare.yml"  # a site without such a section: at the end of nav
    bare.write_text("nav:\n  - Home: index.md\n", encoding="utf-8")
    add_to_nav(bare, "Tutorials", "tutorials/warm.md")
    assert yaml.safe_load(bare.read_text(encoding="utf-8"))["nav"][-1] == {"Tutorials": ["tutorials/warm.md"]}
