"""scripts/import_tutorial.py turns a sphinx-gallery tutorial into a clean page pair (in a copy of the fixture site)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from torchnotes.errors import UntranslatedPage
from torchnotes.pages.checks import TRANSLATE_MARKER, check_pairs, check_translations, check_untranslated
from torchnotes.pages.read import read_page

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from tutorial_links import Links, UnresolvedLink, published_url  # noqa: E402
from tutorial_rst import TutorialImportError, convert_text  # noqa: E402

SAMPLE = ROOT / "tests" / "fixtures" / "tutorial_sample.py"
TUTORIALS = ROOT / "tests" / "fixtures" / "tutorials"
# The three test tutorials (tests/fixtures/tutorials/README.md) and the page each becomes.
IMPORTS = {"beginner_source/basics/tensors_series.py": "tutorials/series",
           "beginner_source/basics/gradients.py": "tutorials/gradients",
           "recipes_source/recipes/state_dict_recipe.py": "tutorials/state-dict"}

EXPECTED_EN = r"""---
title: Tensors in a nutshell
description: A small sphinx-gallery tutorial used by the importer's tests.
---

# Tensors in a nutshell {#sample_tutorial}

A small sphinx-gallery tutorial used by the importer's tests. It computes
$y = Wx + b$ with `torch.matmul`, as in the
[official tutorials](https://docs.pytorch.org/tutorials/).

```python
import torch

torch.manual_seed(0)
x = torch.ones(3)
print(x.sum())
```

## A second section

The mean squared error is

$$
\mathrm{MSE} = \frac{1}{n}\sum_i (y_i - \hat y_i)^2
$$

!!! note
    `torch.nn.MSELoss` computes it for you.
    See the [loss docs](https://docs.pytorch.org/docs/stable/nn.html#loss-functions).

!!! warning
    Mind the reduction.

```python
loss = torch.nn.MSELoss()(torch.zeros(2), torch.ones(2))
print(loss)
```
"""


def run_import(site, source, path, *extra):
    return subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(source), path,
                           "--root", str(site), *extra], capture_output=True, text=True)


def markdown(rst: str, tmp_path: Path, url="https://docs.pytorch.org/tutorials/beginner/basics/x_tutorial.html"):
    """rST -> Markdown for a page tutorials/x.md of a site in tmp_path; returns (markdown, links)."""
    links = Links(url, tmp_path / "docs", "tutorials/x.md", "x.py")
    return convert_text("Title\n=====\n\n" + rst, links, "x.py", rst), links


def test_import_writes_a_clean_page_pair(fixture_site):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    done = run_import(fixture_site, SAMPLE, "tensors/sample")
    assert done.returncode == 0, done.stderr
    docs = fixture_site / "docs"
    en = (docs / "en/tensors/sample.md").read_text(encoding="utf-8")
    zh = (docs / "zh/tensors/sample.md").read_text(encoding="utf-8")
    assert en == EXPECTED_EN
    # The zh twin: same text and code, plus the marker and a notice right under the title.
    assert TRANSLATE_MARKER in zh
    assert zh.replace(f"\n{TRANSLATE_MARKER}\n", "").replace(
        '\n!!! info "本页尚未翻译"\n    下面仍是英文原文。翻译完成后，请删除本说明和上一行的标记。\n', "") == en
    en_page, zh_page = read_page(docs / "en/tensors/sample.md"), read_page(docs / "zh/tensors/sample.md")
    code = [c.source for c in en_page.notebook.cells if c.cell_type == "code"]
    assert code == [c.source for c in zh_page.notebook.cells if c.cell_type == "code"]
    assert len(code) == 2 and not any("%matplotlib" in c for c in code)
    assert check_translations(docs, ["en", "zh"]) == []
    assert check_pairs(docs, fixture_site / "notebooks", ["en", "zh"]) == []
    nav = yaml.load((fixture_site / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"]
    tensors = next(item["Tensors"] for item in nav if isinstance(item, dict) and "Tensors" in item)
    assert tensors[-1] == "tensors/sample.md"


def test_check_reports_the_untranslated_twin_until_the_marker_goes(fixture_site):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    assert run_import(fixture_site, SAMPLE, "tensors/sample").returncode == 0
    docs = fixture_site / "docs"
    zh = docs / "zh/tensors/sample.md"
    [error] = check_untranslated(docs, ["en", "zh"])
    assert isinstance(error, UntranslatedPage)
    assert error.path == zh and error.line == zh.read_text(encoding="utf-8").splitlines().index(TRANSLATE_MARKER) + 1
    assert str(zh) in error.message
    cli = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=fixture_site, capture_output=True, text=True)
    assert cli.returncode == 1 and "not translated yet" in cli.stderr and str(Path("docs/zh/tensors/sample.md")) in cli.stderr
    zh.write_text(zh.read_text(encoding="utf-8").replace(TRANSLATE_MARKER, ""), encoding="utf-8")
    assert check_untranslated(docs, ["en", "zh"]) == []


def test_unknown_directive_fails_naming_it_and_its_line(fixture_site, tmp_path):
    source = tmp_path / "bad.py"
    source.write_text('"""\nTitle\n=====\n\nText.\n\n.. youtube:: abc123\n"""\n\nimport torch\n', encoding="utf-8")
    done = run_import(fixture_site, source, "tutorials/bad", "--url", "https://docs.pytorch.org/tutorials/x.html")
    assert done.returncode == 1
    assert f"{source}:7: the '.. youtube::' directive has no Markdown equivalent" in done.stderr
    assert not (fixture_site / "docs/en/tutorials/bad.md").exists()


def test_missing_module_says_to_pin_it_or_drop_the_import(fixture_site):
    done = run_import(fixture_site, TUTORIALS / "needs_torchvision.py", "tutorials/tv")
    assert done.returncode == 1
    assert "needs_torchvision.py (code cell 1, line 2): imports 'torchvision'" in done.stderr
    assert "requirements.txt with a pinned version" in done.stderr and "drop the import" in done.stderr
    assert "raises-exception" not in done.stderr
    assert not (fixture_site / "docs/en/tutorials/tv.md").exists() and not (fixture_site / "docs/zh/tutorials/tv.md").exists()


# --- links: the three cases of the issue ------------------------------------------------------------------


def test_breadcrumb_links_go_to_the_published_tutorials_or_this_sites_page(tmp_path):
    (tmp_path / "docs/en/saving").mkdir(parents=True)
    (tmp_path / "docs/en/saving/save-load.md").write_text("# Saving\n")
    text, links = markdown("`Learn the Basics <intro.html>`_ || `Save <saveloadrun_tutorial.html>`_ || "
                           "`Blitz <../blitz/autograd_tutorial.html#x>`_ || :doc:`/recipes/recipes/timer`", tmp_path)
    assert ("[Learn the Basics](https://docs.pytorch.org/tutorials/beginner/basics/intro.html) || "
            "[Save](../saving/save-load.md) || "
            "[Blitz](https://docs.pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html#x) || "
            "[timer](https://docs.pytorch.org/tutorials/recipes/recipes/timer.html)") in text
    assert "intro.html -> https://docs.pytorch.org/tutorials/beginner/basics/intro.html" in links.rewritten
    assert "saveloadrun_tutorial.html -> ../saving/save-load.md" in links.rewritten
    # Without this site's page the link goes to the published tutorial.
    (tmp_path / "docs/en/saving/save-load.md").unlink()
    text, _ = markdown("`Save <saveloadrun_tutorial.html>`_", tmp_path)
    assert "[Save](https://docs.pytorch.org/tutorials/beginner/basics/saveloadrun_tutorial.html)" in text


def test_ref_to_a_label_of_the_same_file_links_to_its_section(tmp_path):
    text, links = markdown("See :ref:`bridge` and :ref:`that part <bridge>`; :ref:`elsewhere_label` stays text.\n\n"
                           ".. _bridge:\n\nBridge with NumPy\n-----------------\n\nShared memory.\n", tmp_path)
    assert "See [Bridge with NumPy](#bridge) and [that part](#bridge); elsewhere_label stays text." in text
    assert "## Bridge with NumPy {#bridge}" in text
    assert ":ref:`elsewhere_label` -> kept as text (a label of another document)" in links.rewritten


def test_a_link_whose_url_wraps_onto_the_next_line_is_one_link(tmp_path):
    text, _ = markdown("Read `the autograd\nnotes\n<https://docs.pytorch.org/docs/stable/notes/autograd.html>`__ first.",
                       tmp_path)
    assert "[the autograd\nnotes](https://docs.pytorch.org/docs/stable/notes/autograd.html) first." in text
    assert "<https" not in text and "`__" not in text


def test_relative_link_without_a_published_page_asks_for_url(tmp_path):
    with pytest.raises(UnresolvedLink, match="pass --url https://docs.pytorch.org/tutorials/"):
        markdown("`Intro <intro.html>`_", tmp_path, url=None)


def test_published_url_from_a_checkout_path():
    assert (published_url(Path("/src/tutorials/recipes_source/recipes/amp_recipe.py"))
            == "https://docs.pytorch.org/tutorials/recipes/recipes/amp_recipe.html")
    assert published_url(Path("/tmp/amp_recipe.py")) is None


def test_short_underline_and_note_body_on_the_next_line_read_as_docutils_does(tmp_path):
    text, _ = markdown("Attributes of a Tensor\n~~~~~~~~~~~~~~~\n\n.. note::\n  - one\n  - two\n", tmp_path)
    assert "## Attributes of a Tensor" in text
    assert "!!! note\n    -   one\n    -   two" in text


def test_second_title_fails(tmp_path):
    with pytest.raises(TutorialImportError, match="a second top-level title 'Again'"):
        markdown("Text.\n\nAgain\n=====\n", tmp_path)


# --- three tutorials, one command each, built with MkDocs and Zensical ------------------------------------


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The fixture site with the three tutorials imported and a page this site has on saving, built both ways."""
    src = tmp_path_factory.mktemp("imported") / "site-src"
    shutil.copytree(ROOT / "tests" / "fixtures" / "site", src)
    for lang in ("en", "zh"):  # the page the breadcrumb's "Save & Load Model" resolves to
        (src / f"docs/{lang}/saving").mkdir(parents=True)
        (src / f"docs/{lang}/saving/save-load.md").write_text("---\ntitle: Saving\ndescription: Saving.\n---\n\n# Saving\n")
    logs = {}
    for source, path in IMPORTS.items():
        done = run_import(src, TUTORIALS / source, path)
        assert done.returncode == 0, done.stderr
        logs[path] = done.stdout
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(src / "build/site")],
                           cwd=src, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    zensical = subprocess.run([sys.executable, "-m", "torchnotes", "zensical", "--site-dir", "build/zensical"],
                              cwd=src, capture_output=True, text=True, timeout=600)
    assert zensical.returncode == 0, zensical.stdout[-2000:] + zensical.stderr[-3000:]
    return src, logs


@pytest.mark.parametrize("build", ["site", "zensical"])
@pytest.mark.parametrize("path", IMPORTS.values())
def test_imported_pages_build_with_outputs_and_resolved_links(imported, build, path):
    src, _ = imported
    page = read_page(src / "docs/en" / f"{path}.md")
    executed = [c for c in page.notebook.cells if c.cell_type == "code" and "skip-execution" not in c.metadata.get("tags", [])]
    for lang in ("", "zh/"):
        html = (src / "build" / build / lang / path / "index.html").read_text(encoding="utf-8")
        article = html[html.index("<article"):html.index("</article>")]
        assert article.count('class="nb-output') >= len(executed) - 1  # a cell may print nothing
        for href in re.findall(r'href="([^"]+)"', article):
            assert not href.endswith(".html") or href.startswith("https://"), f"{lang}{path}: relative link {href}"
        assert "`__" not in article and ":ref:" not in article and ":doc:" not in article
        assert ("本页尚未翻译" in article) == (lang == "zh/")


def test_series_page_links_in_the_page_and_to_this_sites_page(imported):
    src, logs = imported
    for build in ("site", "zensical"):
        html = (src / "build" / build / "tutorials/series/index.html").read_text(encoding="utf-8")
        assert 'id="numpy-bridge"' in html and '<a href="#numpy-bridge">Bridge with NumPy</a>' in html
        assert '<a href="../../saving/save-load/">Save &amp; Load Model</a>' in html
    assert "saveloadrun_tutorial.html -> ../saving/save-load.md" in logs["tutorials/series"]
    assert ":ref:`saving_loading_tutorial` -> kept as text" in logs["tutorials/state-dict"]
