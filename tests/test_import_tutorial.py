"""scripts/import_tutorial.py turns a sphinx-gallery tutorial into a clean page pair (in a copy of the fixture site)."""

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import FIXTURE_SITE, ROOT, fixture_copy

from torchnotes.engine.blame import error_kind
from torchnotes.errors import CellFailed, KeptNotice, MissingModule, OutdatedApi, UnmarkedEnglish, UntranslatedPage
from torchnotes.pages.read import read_page
from torchnotes.pages.translations import TRANSLATE_MARKER, check_translations, check_untranslated, untranslated_pages
from torchnotes.publish.paired import check_pairs

sys.path.insert(0, str(ROOT / "scripts"))

import tutorial_code  # noqa: E402  (its MissingModule is the importer's, apart from the engine's of the same name)
from import_tutorial import convert, nav_translation  # noqa: E402
from tutorial_code import (  # noqa: E402
    COMPILE_MODES,
    OUTDATED,
    OutdatedCall,
    SketchCell,
    UnimportedModule,
    check_imports,
    read_code,
)
from tutorial_links import Links, UnresolvedLink, published_url  # noqa: E402
from tutorial_rst import TutorialImportError, convert_text  # noqa: E402
from tutorial_run import DeprecatedApi, deprecations  # noqa: E402
from tutorial_sections import FILL_IN, closing_sections  # noqa: E402

SLOW_FIXTURES = {"imported"}  # tests/slow.py: the tutorial series imported with pandoc, built by both generators
SAMPLE = ROOT / "tests" / "fixtures" / "tutorial_sample.py"
TUTORIALS = ROOT / "tests" / "fixtures" / "tutorials"
# The test tutorials (tests/fixtures/tutorials/README.md) and the page each becomes, in the order imported: the
# video page links to the series page before the series page is imported (the series' import links it back).
IMPORTS = {"beginner_source/basics/modules_video.py": "tutorials/modules",
           "beginner_source/basics/tensors_series.py": "tutorials/series",
           "beginner_source/basics/gradients.py": "tutorials/gradients",
           "recipes_source/recipes/state_dict_recipe.py": "tutorials/state-dict"}
PUBLISHED = "https://docs.pytorch.org/tutorials/beginner/basics/"

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

## Key points

<!-- torchnotes: fill in: the tutorial has no conclusion or summary: a few short bullets on what the page showed -->

- ...

## Further reading

<!-- torchnotes: fill in: the tutorial has no list to read on: links to the documentation of what the page uses -->

- ...
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
    done = run_import(fixture_site, SAMPLE, "tensors/sample", "--no-run")
    assert done.returncode == 0, done.stderr
    docs = fixture_site / "docs"
    en = (docs / "en/tensors/sample.md").read_text(encoding="utf-8")
    zh = (docs / "zh/tensors/sample.md").read_text(encoding="utf-8")
    assert en == EXPECTED_EN
    # The zh twin: the same text and code, and the marker right under the title (the site writes the notice).
    assert zh == en.replace("{#sample_tutorial}\n", f"{{#sample_tutorial}}\n\n{TRANSLATE_MARKER}\n")
    assert "nav: 'Tensors' is '张量' in the Chinese navigation" in done.stdout
    # The sample has no closing sections of its own: the report says which stubs are the contributor's to write.
    for section in ("Key points", "Further reading"):
        assert f"to fill in: the tutorial has no section to make the page's '{section}' from" in done.stdout
    en_page, zh_page = read_page(docs / "en/tensors/sample.md"), read_page(docs / "zh/tensors/sample.md")
    code = [c.source for c in en_page.notebook.cells if c.cell_type == "code"]
    assert code == [c.source for c in zh_page.notebook.cells if c.cell_type == "code"]
    assert len(code) == 2 and not any("%matplotlib" in c for c in code)
    assert check_translations(docs, ["en", "zh"]) == []
    assert check_pairs(docs, fixture_site / "notebooks", ["en", "zh"]) == []
    nav = yaml.load((fixture_site / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"]
    tensors = next(item["Tensors"] for item in nav if isinstance(item, dict) and "Tensors" in item)
    assert tensors[-1] == "tensors/sample.md"


def test_check_lists_the_untranslated_twin_and_keeps_the_notice_truthful(fixture_site):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    assert run_import(fixture_site, SAMPLE, "tensors/sample", "--no-run", "--url", PUBLISHED + "sample.html").returncode == 0
    docs = fixture_site / "docs"
    zh = docs / "zh/tensors/sample.md"
    assert f"\nsource: {PUBLISHED}sample.html\n" in zh.read_text(encoding="utf-8")
    # Listed, not a failure: the site shows the page in English under a notice.
    assert untranslated_pages(docs, ["en", "zh"]) == [zh] and check_untranslated(docs, ["en", "zh"]) == []
    cli = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=fixture_site, capture_output=True, text=True)
    assert f"untranslated: {Path('docs/zh/tensors/sample.md')} (shown in English" in cli.stderr
    assert "UntranslatedPage" not in cli.stderr and str(Path("docs/zh/tensors/sample.md")) + ":" not in cli.stderr
    # A translated line under the marker: the notice would tell readers the page is English.
    text = zh.read_text(encoding="utf-8")
    zh.write_text(text.replace("## A second section", "## 第二节"), encoding="utf-8")
    [error] = check_untranslated(docs, ["en", "zh"])
    marker = text.splitlines().index(TRANSLATE_MARKER) + 1
    assert isinstance(error, UntranslatedPage) and error.path == zh and error.line == marker
    assert f"line {text.splitlines().index('## A second section') + 1} is translated" in error.message
    # The marker deleted, the English text of the import left: not "translated" by deleting one line.
    zh.write_text(text.replace(TRANSLATE_MARKER, ""), encoding="utf-8")
    [error] = check_untranslated(docs, ["en", "zh"])
    assert isinstance(error, UnmarkedEnglish) and "no line of its prose is in 'zh'" in error.message
    # Translated, marker gone, the notice's words left behind by hand: the site writes that notice itself.
    zh.write_text(text.replace(TRANSLATE_MARKER, "本页尚未翻译，以下为英文原文。").replace("## A second section", "## 第二节"),
                  encoding="utf-8")
    [error] = check_untranslated(docs, ["en", "zh"])
    assert isinstance(error, KeptNotice) and error.line == marker and untranslated_pages(docs, ["en", "zh"]) == []
    zh.write_text(text.replace(TRANSLATE_MARKER, "").replace("## A second section", "## 第二节"), encoding="utf-8")
    assert check_untranslated(docs, ["en", "zh"]) == [] and untranslated_pages(docs, ["en", "zh"]) == []


def test_nav_translation_of_a_new_section_is_written_or_asked_for(tmp_path):
    config = tmp_path / "mkdocs.yml"
    shutil.copy(FIXTURE_SITE / "mkdocs.yml", config)
    asked = nav_translation(config, "Tutorials", None)
    assert "'Tutorials' has no Chinese name yet" in asked and "--section-zh" in asked
    assert nav_translation(config, "Tutorials", "教程") == f"nav: 'Tutorials' is '教程' in the Chinese navigation (added to {config})"
    assert nav_translation(config, "Recipes", "食谱").startswith("nav: 'Recipes' is '食谱'")
    languages = next(p["i18n"] for p in yaml.safe_load(config.read_text())["plugins"] if "i18n" in p)["languages"]
    assert languages[1]["nav_translations"] == {"Tutorials": "教程", "Recipes": "食谱"}
    assert "nav_translations" not in languages[0]
    assert nav_translation(config, "Tutorials", None) == "nav: 'Tutorials' is '教程' in the Chinese navigation"


def test_unknown_directive_fails_naming_it_and_its_line(fixture_site, tmp_path):
    source = tmp_path / "bad.py"
    source.write_text('"""\nTitle\n=====\n\nText.\n\n.. youtube:: abc123\n"""\n\nimport torch\n', encoding="utf-8")
    done = run_import(fixture_site, source, "tutorials/bad", "--url", "https://docs.pytorch.org/tutorials/x.html")
    assert done.returncode == 1
    assert f"{source}:7: the '.. youtube::' directive has no Markdown equivalent" in done.stderr
    assert not (fixture_site / "docs/en/tutorials/bad.md").exists()


def test_raw_html_that_is_not_a_video_still_fails_naming_its_line(fixture_site, tmp_path):
    source = tmp_path / "raw.py"
    source.write_text('"""\nTitle\n=====\n\nText.\n\n.. raw:: html\n\n   <div><iframe src="https://example.org/x">'
                      '</iframe><p>and text</p></div>\n"""\n\nimport torch\n', encoding="utf-8")
    done = run_import(fixture_site, source, "tutorials/raw", "--url", "https://docs.pytorch.org/tutorials/x.html")
    assert done.returncode == 1
    assert f"{source}:7: raw html ('.. raw::') has no Markdown equivalent here; rewrite it by hand" in done.stderr
    assert not (fixture_site / "docs/en/tutorials/raw.md").exists()


@pytest.mark.parametrize("iframe, url", [
    ('<iframe width="560" src="https://www.youtube.com/embed/M0fX15_-xrY" allowfullscreen></iframe>',
     "https://www.youtube.com/watch?v=M0fX15_-xrY"),
    ('<iframe src="//player.bilibili.com/player.html?bvid=BV1GJ411x7h7&page=1" frameborder="no"></iframe>',
     "https://www.bilibili.com/video/BV1GJ411x7h7/"),
])
def test_a_video_embed_becomes_a_link_line(tmp_path, iframe, url):
    text, links = markdown(f"Watch it.\n\n.. raw:: html\n\n   <div style=\"margin:1px\">\n     {iframe}\n   </div>\n\n"
                           "After.\n", tmp_path)
    site = "YouTube" if "youtube" in url else "Bilibili"
    assert f"Watch it.\n\nVideo on {site}: <{url}>\n\nAfter." in text
    assert "iframe" not in text
    assert f".. raw:: html (a {site} iframe) -> a link line: {url}" in links.rewritten and links.videos == [url]


def test_bold_and_italic_text_with_literals_get_code_inside(tmp_path):
    text, _ = markdown("**Call ``clone()`` first** and *then ``x.add_(1)``*; **plain bold** stays.\n", tmp_path)
    assert "**Call `clone()` first** and *then `x.add_(1)`*; **plain bold** stays." in text
    assert "``" not in text


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
    # An imported page: its front matter names the tutorial it came from, which is how links find it.
    (tmp_path / "docs/en/saving/save-load.md").write_text(
        f"---\ntitle: Saving\ndescription: Saving.\nsource: {PUBLISHED}saveloadrun_tutorial.html\n---\n\n# Saving\n")
    (tmp_path / "docs/en/tutorials").mkdir(parents=True)
    (tmp_path / "docs/en/tutorials/data.md").write_text(
        "---\ntitle: Data\ndescription: Data.\nsource: https://pytorch.org/tutorials/beginner/basics/data_tutorial\n---\n")
    text, links = markdown("`Learn the Basics <intro.html>`_ || `Save <saveloadrun_tutorial.html>`_ || "
                           "`Blitz <../blitz/autograd_tutorial.html#x>`_ || :doc:`/recipes/recipes/timer` || "
                           "`Data <https://pytorch.org/tutorials/beginner/basics/data_tutorial.html#loading>`__", tmp_path)
    assert ("[Learn the Basics](https://docs.pytorch.org/tutorials/beginner/basics/intro.html) || "
            "[Save](../saving/save-load.md) || "
            "[Blitz](https://docs.pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html#x) || "
            "[timer](https://docs.pytorch.org/tutorials/recipes/recipes/timer.html) || [Data](data.md)") in text
    assert "intro.html -> https://docs.pytorch.org/tutorials/beginner/basics/intro.html" in links.rewritten
    assert "saveloadrun_tutorial.html -> ../saving/save-load.md" in links.rewritten
    # A page on the same topic that was not imported from the tutorial (no source:) is no target.
    (tmp_path / "docs/en/saving/save-load.md").write_text("---\ntitle: Saving\ndescription: Saving.\n---\n\n# Saving\n")
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


def test_links_to_the_old_host_go_to_docs_pytorch_org(tmp_path):
    text, links = markdown("`Recipe <https://pytorch.org/tutorials/recipes/recipes/amp_recipe.html#x>`_ and "
                           "`notes <https://pytorch.org/docs/master/notes/cuda.html>`_; `site <https://pytorch.org/get-started/>`_",
                           tmp_path)
    assert ("[Recipe](https://docs.pytorch.org/tutorials/recipes/recipes/amp_recipe.html#x) and "
            "[notes](https://docs.pytorch.org/docs/main/notes/cuda.html); [site](https://pytorch.org/get-started/)") in text
    assert len(links.rewritten) == 2  # each rewrite printed; pytorch.org's own pages stay where they are


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


def test_description_is_the_first_real_sentence_not_the_video_line(tmp_path):
    source = TUTORIALS / "beginner_source/basics/modules_video.py"
    links = Links(published_url(source), tmp_path / "docs", "tutorials/modules.md", str(source))
    title, description, _ = convert(source, links)
    assert (title, description) == ("Modules in a series", "A module holds parameters and says how its inputs become outputs.")


@pytest.mark.parametrize("ename, evalue, kind", [
    ("TypeError", "profile.__init__() got an unexpected keyword argument 'use_cuda'", OutdatedApi),
    ("AttributeError", "module 'torch' has no attribute 'symeig'", OutdatedApi),
    ("ImportError", "cannot import name 'Variable' from 'torch.nn'", OutdatedApi),
    ("TypeError", "'NoneType' object is not subscriptable", OutdatedApi),
    ("RuntimeError", "shape '[2, 2]' is invalid for input of size 3", CellFailed),
    ("ZeroDivisionError", "division by zero", CellFailed),
    ("ModuleNotFoundError", "No module named 'torchvision'", MissingModule),
])
def test_an_api_change_is_told_apart_from_other_failures(ename, evalue, kind):
    assert error_kind(ename, evalue) is kind


def test_second_title_fails(tmp_path):
    with pytest.raises(TutorialImportError, match="a second top-level title 'Again'"):
        markdown("Text.\n\nAgain\n=====\n", tmp_path)


def test_import_runs_the_page_once_and_reports_every_failing_cell(fixture_site):
    done = run_import(fixture_site, TUTORIALS / "beginner_source/basics/outdated_api.py", "tutorials/outdated",
                      "--section-zh", "教程")
    assert done.returncode == 1, done.stdout + done.stderr
    en = Path("docs/en/tutorials/outdated.md")
    assert f"{en}: 3 code cell(s) fail: 2, 3, 4" in done.stderr
    # Each failing cell with its own error, its place and what to do; the twin's same failures are not repeated.
    api = "This looks like an API change, not an error the example means to show: update the code"
    for cell, error in ((2, "TypeError: profile.__init__() got an unexpected keyword argument 'use_cuda'"),
                        (3, "RuntimeError: This function was deprecated since version 1.9 and is now removed."),
                        (4, "TypeError: 'NoneType' object is not subscriptable")):
        assert re.search(rf"{re.escape(str(en))}:\d+ \(code cell {cell}\): {re.escape(error)}[^\n]*\n +-> {api}", done.stderr)
    assert done.stderr.count(api) == 3 and "(code cell 5)" not in done.stderr
    assert "fix the cells above in both" in done.stderr
    assert (fixture_site / "docs/zh/tutorials/outdated.md").exists()  # kept for the fix


# --- the test tutorials, one command each, built with MkDocs and Zensical ---------------------------------


def with_katex(src: Path) -> None:
    """The site's math set-up (KaTeX, its start-up script, the site's CSS) in a copy of the fixture site."""
    assets = src / "docs" / "assets"
    shutil.copytree(ROOT / "docs/assets/katex", assets / "katex")
    for name in ("javascripts/katex-init.js", "stylesheets/extra.css"):
        (assets / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "docs/assets" / name, assets / name)
    config = src / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "extra_css:\n  - assets/katex/katex.min.css\n"
                      "  - assets/stylesheets/extra.css\nextra_javascript:\n  - assets/katex/katex.min.js\n"
                      "  - assets/javascripts/katex-init.js\n", encoding="utf-8")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The fixture site with KaTeX and the test tutorials imported, and a page imported from the official
    "Save & Load Model" tutorial before them, built both ways."""
    src = fixture_copy(tmp_path_factory.mktemp("imported"), synced=False)
    with_katex(src)
    for lang in ("en", "zh"):  # the page the breadcrumb's "Save & Load Model" resolves to, by its source:
        (src / f"docs/{lang}/saving").mkdir(parents=True)
        (src / f"docs/{lang}/saving/save-load.md").write_text(
            f"---\ntitle: Saving\ndescription: Saving.\nsource: {PUBLISHED}saveloadrun_tutorial.html\n---\n\n# Saving\n")
    logs = {}
    for number, (source, path) in enumerate(IMPORTS.items()):
        done = run_import(src, TUTORIALS / source, path, *(["--section-zh", "教程"] if number == 0 else []))
        assert done.returncode == 0, done.stdout + done.stderr
        logs[path] = done.stdout
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(src / "build/site")],
                           cwd=src, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    logs["mkdocs"] = built.stderr
    zensical = subprocess.run([sys.executable, "-m", "torchnotes", "zensical", "--site-dir", "build/zensical"],
                              cwd=src, capture_output=True, text=True, timeout=600)
    assert zensical.returncode == 0, zensical.stdout[-2000:] + zensical.stderr[-3000:]
    return src, logs


def test_the_import_ran_each_page_so_the_build_reads_the_cache(imported):
    src, logs = imported
    for path in IMPORTS.values():
        assert "ran the page once: every cell runs" in logs[path]
        for lang in ("en", "zh"):
            assert re.search(rf"docs/{lang}/{path}\.md +[0-9.]+ s +cached\n", logs["mkdocs"]), (lang, path)


@pytest.mark.parametrize("build", ["site", "zensical"])
@pytest.mark.parametrize("path", IMPORTS.values())
def test_imported_pages_build_with_outputs_and_resolved_links(imported, build, path):
    src, _ = imported
    page = read_page(src / "docs/en" / f"{path}.md")
    assert page.meta["source"].startswith("https://docs.pytorch.org/tutorials/")
    executed = [c for c in page.notebook.cells if c.cell_type == "code" and "skip-execution" not in c.metadata.get("tags", [])]
    for lang in ("", "zh/"):
        html = (src / "build" / build / lang / path / "index.html").read_text(encoding="utf-8")
        article = html[html.index("<article"):html.index("</article>")]
        assert article.count('class="nb-output') >= len(executed) - 1  # a cell may print nothing
        for href in re.findall(r'href="([^"]+)"', article):
            assert not href.endswith(".html") or href.startswith("https://"), f"{lang}{path}: relative link {href}"
        assert "`__" not in article and ":ref:" not in article and ":doc:" not in article
        assert "<iframe" not in article and "``" not in article


@pytest.mark.parametrize("build", ["site", "zensical"])
def test_the_untranslated_twin_reads_as_english_under_a_notice(imported, build):
    src, _ = imported
    site = src / "build" / build
    for path in IMPORTS.values():
        en, zh = (site / path / "index.html").read_text(encoding="utf-8"), (site / "zh" / path / "index.html").read_text(encoding="utf-8")
        assert '<html lang="zh"' in zh and "本页尚未翻译" not in en and "nb-untranslated" not in en
        notice = re.search(r'<div class="nb-untranslated"[^>]*>(.*?)</div>\s*</div>', zh, re.S).group(1)
        assert "本页尚未翻译，以下为英文原文。" in notice
        href = re.search(r'<a data-nb-rebase href="([^"]+)" hreflang="en">', notice).group(1)
        assert (site / "zh" / path / href / "index.html").resolve() == (site / path / "index.html").resolve()
        # Everything after the notice is the English text, marked as such; the title stays above it.
        body = zh[zh.index('<div lang="en">'):zh.index("</article>")]
        english = en[en.index("<article"):en.index("</article>")]
        first_paragraph = re.search(r"<p>(?!Outputs generated)(.*?)</p>", english.split("</h1>", 1)[1], re.S).group(1)
        assert first_paragraph.replace('href="../', 'href="') in body.replace('href="../', 'href="')
        assert zh.index("<h1") < zh.index("nb-untranslated") < zh.index('<div lang="en">')
    # The new section has its Chinese name in the Chinese navigation.
    nav = (site / "zh/tutorials/modules/index.html").read_text(encoding="utf-8")
    assert re.search(r'md-nav__link[^>]*>\s*(?:<span[^>]*>\s*)?教程', nav)


def test_series_pages_link_to_each_other_and_to_this_sites_pages(imported):
    src, logs = imported
    for build in ("site", "zensical"):
        for lang in ("", "zh/"):
            series = (src / "build" / build / lang / "tutorials/series/index.html").read_text(encoding="utf-8")
            assert 'id="numpy-bridge"' in series and '<a href="#numpy-bridge">Bridge with NumPy</a>' in series
            assert '<a href="../../saving/save-load/">Save &amp; Load Model</a>' in series
            # Imported first, the video page linked to the official series page; the series' import linked it here.
            modules = (src / "build" / build / lang / "tutorials/modules/index.html").read_text(encoding="utf-8")
            assert '<a href="../series/">Tensors</a>' in modules
    assert "saveloadrun_tutorial.html -> ../saving/save-load.md" in logs["tutorials/series"]
    assert "tensors_series.html -> https://docs.pytorch.org/tutorials/beginner/basics/tensors_series.html" in logs["tutorials/modules"]
    assert (f"link: {src / 'docs/en/tutorials/modules.md'}: {PUBLISHED}tensors_series.html -> series.md"
            in logs["tutorials/series"])
    assert ":ref:`saving_loading_tutorial` -> kept as text" in logs["tutorials/state-dict"]


def test_the_video_page_has_a_link_line_bold_code_and_a_real_description(imported):
    src, logs = imported
    text = (src / "docs/en/tutorials/modules.md").read_text(encoding="utf-8")
    assert "description: A module holds parameters and says how its inputs become outputs.\n" in text
    assert "Video on YouTube: <https://www.youtube.com/watch?v=abcDEF12345>" in text
    assert "**Call `clone()` before changing a copy**" in text
    assert ".. raw:: html (a YouTube iframe) -> a link line: https://www.youtube.com/watch?v=abcDEF12345" in logs["tutorials/modules"]
    for build in ("site", "zensical"):
        html = (src / "build" / build / "tutorials/modules/index.html").read_text(encoding="utf-8")
        assert "<strong>Call <code>clone()</code> before changing a copy</strong>" in html
        assert '<a href="https://www.youtube.com/watch?v=abcDEF12345">' in html


# Every formula a reader sees on a page (one in a closed tab has no box to measure), typeset by KaTeX: the boxes
# KaTeX draws (its SVGs and the glyph boxes of .mord; not its rules, which \vdots uses as 0 px wide struts) that
# are 0 px wide. A formula KaTeX could not typeset (no .katex-html) counts as broken.
_ZERO_WIDTH = """() => [...document.querySelectorAll('.arithmatex')].filter(el => el.checkVisibility()).map(el => ({
  tex: (el.querySelector('annotation') || el).textContent.slice(0, 80),
  typeset: !!el.querySelector('.katex-html'),
  zero: [...el.querySelectorAll('.katex-html svg, .katex-html .mord:not([class*="rule"])')]
          .filter(e => e.getBoundingClientRect().width === 0).length,
}))"""


@pytest.mark.browser
def test_every_page_loads_cleanly_and_every_formula_has_width_in_both_builds(browser, imported):
    """Console errors and uncaught exceptions on every page of the fixture site (its MkDocs build once threw
    "Cannot read properties of undefined (reading 'split')" on each), and every formula in both generators
    (Zensical's theme once drew \\vec's arrow 0 px wide)."""
    from browser_support import Recorder, SiteServer, site_pages

    src, _ = imported
    formulas = {}
    for build in ("site", "zensical"):
        site = src / "build" / build
        with SiteServer(site) as server:
            context = browser.new_context()
            try:
                tab = context.new_page()
                log = Recorder().attach(tab)
                for rel in site_pages(site):
                    log.navigating()
                    log.clear()
                    tab.goto(server.url(rel), wait_until="load")
                    tab.wait_for_function("() => !document.querySelector('.arithmatex:not(:has(.katex))')", timeout=10_000)
                    tab.wait_for_timeout(150)  # the search worker starts after load
                    assert log.console_errors + log.page_errors == [], f"{build} {rel}"
                    for formula in tab.evaluate(_ZERO_WIDTH):
                        formulas.setdefault(build, []).append((rel, formula))
            finally:
                context.close()
    for build, found in formulas.items():
        assert [f for f in found if not f[1]["typeset"] or f[1]["zero"]] == [], build
        assert sum("\\vec" in f[1]["tex"] for f in found) >= 2, build  # the gradients page, in both languages
    assert len(formulas["site"]) == len(formulas["zensical"]) >= 10


def test_an_authored_recipe_keeps_its_author_and_reads_as_the_site_writes(tmp_path):
    """Issue 45 §5: the **Author** line stays as the attribution but is not the description; rST's default role
    (`sin()`) is code; pytorch.org/docs links go to docs.pytorch.org (docs/master is docs/main); a `::` block of
    shell commands is a console block."""
    source = TUTORIALS / "recipes_source/authored_recipe.py"
    links = Links(published_url(source), tmp_path / "docs", "tutorials/authored.md", str(source))
    title, description, body = convert(source, links)
    assert (title, description) == ("An authored recipe", "Call sin() on a tensor to get the sine of each element.")
    assert "**Author**: [Ada Example](https://example.org/ada)" in body
    assert "Call `sin()` on a tensor" in body and "title-ref" not in body
    assert "(https://docs.pytorch.org/docs/stable/tensors.html)" in body
    assert "(https://docs.pytorch.org/docs/main/notes/cuda.html)" in body and "pytorch.org/docs/master" not in body
    assert "```console\npip install torch\n```" in body
    assert ("https://pytorch.org/docs/stable/tensors.html -> https://docs.pytorch.org/docs/stable/tensors.html"
            in links.rewritten)


def test_a_module_used_without_its_import_is_caught_before_anything_is_written():
    """Issue 45 §4: `torchvision.models.resnet18()` with no import of torchvision went through the package check."""
    with pytest.raises(tutorial_code.MissingModule, match=r"x\.py \(code cell 2, line 1\): uses, without importing it, 'torchvision'"):
        check_imports(["import torch", "m = torchvision.models.resnet18()"], "x.py")
    with pytest.raises(tutorial_code.MissingModule, match=r"\(code cell 1, line 1\): uses, without importing it, 'torchvision'"):
        check_imports(['model = getattr(torchvision.models, "resnet50")()'], "x.py")  # the tuning guide's
    with pytest.raises(tutorial_code.MissingModule, match=r"uses, without importing it, 'pandas'"):
        check_imports(["frame = pd.DataFrame()"], "x.py")  # a conventional alias of a package not installed
    # Names the tutorial binds itself, parameters and builtins are no packages; nor are a sketch's undefined
    # variables (the tuning guide's optimizer.zero_grad()), which read_code reports without stopping the import.
    check_imports(["import torch as t\nmodel = t.nn.Linear(1, 1)", "def f(net):\n    return net.fc, model.weight, str.upper",
                   "optimizer.zero_grad()\nprint(net2.fc.weight)"], "x.py")


# --- issue 45 §5: what the imported page says, and what its code and its run tell the contributor ----------------


def test_the_tutorials_closing_sections_become_key_points_and_further_reading():
    body = ("# T\n\nIntro.\n\n```python\n## Summary\nx = 1\n```\n\n## Conclusion {#done}\n\nWe learned it.\n\n"
            "## Learn More\n\n-   [torch.gather](https://docs.pytorch.org/docs/stable/generated/torch.gather.html)\n")
    new, renamed, stubs = closing_sections(body)
    # A code comment is no heading; a label's id stays, so a :ref: to the section still lands on it.
    assert new == body.replace("## Conclusion {#done}", "## Key points {#done}").replace("## Learn More", "## Further reading")
    assert renamed == ["'Conclusion' -> 'Key points'", "'Learn More' -> 'Further reading'"] and stubs == []
    # A "Summary" in the middle is a part of the page; a ### that is the page's last section closes it, as a ##.
    new, renamed, stubs = closing_sections("# T\n\n## Part\n\n### Summary\n\nMid.\n\n### More\n\nText.\n\n"
                                           "### Further Reading:\n\n- x\n")
    assert "### Summary" in new and "\n## Further reading\n\n- x" in new and "### Further" not in new
    assert stubs == ["Key points"] and new.index("## Key points") < new.index("## Further reading")


def test_a_tutorial_without_closing_sections_gets_marked_stubs_that_build(tmp_path):
    new, renamed, stubs = closing_sections("# T\n\nIntro.\n\n## Part\n\nText.\n")
    assert renamed == [] and stubs == ["Key points", "Further reading"]
    assert new.startswith("# T\n\nIntro.\n\n## Part\n\nText.\n\n## Key points\n\n")
    for section in ("## Key points\n\n", "## Further reading\n\n"):
        assert new.split(section, 1)[1].startswith(FILL_IN)
    page = tmp_path / "page.md"
    page.write_text("---\ntitle: T\ndescription: D.\n---\n\n" + new, encoding="utf-8")
    assert [c.cell_type for c in read_page(page).notebook.cells] == ["markdown"]  # the stubs are prose, not cells


def _page(tmp_path: Path, *cells: str, skipped: tuple[int, ...] = ()):
    """A page with these code cells (1-based numbers in `skipped` tagged skip-execution), read as the importer reads it."""
    fences = [f'```python{" tags=[" + chr(34) + "skip-execution" + chr(34) + "]" if n in skipped else ""}\n{code}\n```'
              for n, code in enumerate(cells, 1)]
    path = tmp_path / "page.md"
    path.write_text("---\ntitle: T\ndescription: D.\n---\n\n# T\n\n" + "\n\nText.\n\n".join(fences) + "\n", encoding="utf-8")
    return read_page(path)


def test_reading_the_code_names_each_module_used_without_its_import_with_the_import(tmp_path):
    page = _page(tmp_path, "x = 4", "print(math.sqrt(x))", "y = np.ones(2)\nprint(math.pi)")
    found = read_code(page, "p.md")
    assert [(type(e), e.cell) for e in found] == [(UnimportedModule, 2), (UnimportedModule, 3)]
    assert found[0].message == (f"p.md:{found[0].line} (code cell 2): uses 'math', a module that no code cell running above it imports\n"
                                "  -> add `import math` at the top of code cell 1, in both pages")
    assert "uses 'np'" in found[1].message and "add `import numpy as np` at the top of code cell 1" in found[1].message
    # The line named is the use's own line in the .md file; each module is named once, at its first use.
    lines = page.path.read_text(encoding="utf-8").splitlines()
    assert "math.sqrt" in lines[found[0].line - 1] and "np.ones" in lines[found[1].line - 1]
    # Imported only below its first use is not imported for that use.
    [late] = read_code(_page(tmp_path, "x = 4", "print(math.sqrt(x))", "import math"), "p.md")
    assert isinstance(late, UnimportedModule) and late.cell == 2 and "`import math` at the top of code cell 1" in late.message


def test_reading_the_code_finds_every_sketch_at_once_and_only_sketches(tmp_path):
    page = _page(tmp_path,
                 "model.zero_grad()\noptimizer.zero_grad()",  # a sketch: neither is defined anywhere
                 "import torch\nmodel = torch.nn.Linear(1, 1)",
                 "y = model(example_input)",  # a sketch
                 "print(y)",  # only a sketch defines y: once that one is skipped, this is a sketch too
                 "def f():\n    return later\n",  # read when called, after the next cell defines it
                 "later = len(display.__name__)\nprint(f(), [i for i in range(2)])",  # IPython's display, a builtin
                 "print(undefined_in_a_skipped_cell)",
                 skipped=(7,))
    found = read_code(page, "p.md")
    assert all(isinstance(e, SketchCell) for e in found)
    assert [(e.cell, e.reason.split(": ", 1)[1]) for e in found] == [
        (1, "model, optimizer"), (3, "example_input"), (4, "y (only code cell 3, itself a sketch, defines it)")]
    assert 'tags=["skip-execution"]' in found[0].message
    # A module a sketch alone uses is imported into the first cell that runs once the sketches are skipped.
    page = _page(tmp_path, "torch.manual_seed(0)\nsketch_only(1)", "x = 1", "print(torch.ones(x))")
    [sketch, module] = sorted(read_code(page, "p.md"), key=lambda e: type(e).__name__)
    assert sketch.cell == 1 and "sketch_only" in sketch.reason and "torch" not in sketch.reason
    assert module.cell == 1 and "add `import torch` at the top of code cell 2" in module.message


def test_an_outdated_call_is_found_by_its_syntax_tree_and_rewritten(tmp_path):
    page = _page(tmp_path,
                 "import torch\nimport torch as t\nfrom torch import compile as c\nnet = torch.nn.Linear(1, 1)",
                 "a = t.compile(net, 'max-autotune')\nb = c(net, \"inductor\", dynamic=False)",
                 "# torch.compile(net, 'reduce-overhead') in a comment\ns = 'torch.compile(net, \"reduce-overhead\")'",
                 "torch.compile(net, mode='reduce-overhead')",
                 "with torch.cuda.amp.autocast(True, torch.float16):\n    pass",
                 "scaler = torch.compile(m, True)",
                 skipped=(6,))
    found = [e for e in read_code(page, "p.md") if isinstance(e, OutdatedCall)]
    assert [(e.cell, e.line) for e in found] == [(2, page.lines[1] + 1), (2, page.lines[1] + 2), (5, page.lines[4] + 1), (6, page.lines[5] + 1)]
    assert [e.hint for e in found] == [
        "write `t.compile(net, mode='max-autotune')` instead of `t.compile(net, 'max-autotune')`, in both pages",
        'write `c(net, backend="inductor", dynamic=False)` instead of `c(net, "inductor", dynamic=False)`, in both pages',
        'write `torch.amp.autocast("cuda", enabled=True, dtype=torch.float16)` instead of '
        '`torch.cuda.amp.autocast(True, torch.float16)`, in both pages',
        "rewrite the call by hand, in both pages",  # fullgraph or dynamic? no one rewrite fits; a skipped cell counts
    ]
    assert found[0].reason.startswith("outdated API: torch.compile takes only the model by position")


@pytest.mark.parametrize("old", ['torch.compile(model, "reduce-overhead")', "torch.compile(model, 'inductor')",
                                 "torch.cuda.amp.autocast(True, torch.bfloat16, False)", "torch.cpu.amp.autocast(False)",
                                 "torch.cuda.amp.GradScaler(1024.0, 2.0, enabled=False)"])
def test_each_rewrite_of_the_outdated_table_is_a_call_this_torch_accepts_with_the_same_arguments(old):
    import functools
    import inspect

    import torch

    def function(dotted: str):
        return functools.reduce(getattr, dotted.split(".")[1:], torch)

    call = ast.parse(old).body[0].value
    text = functools.partial(ast.get_source_segment, old)
    _, new = OUTDATED[ast.unparse(call.func)](call, text)
    new_call = ast.parse(new).body[0].value
    today = inspect.signature(function(ast.unparse(new_call.func)))
    got = today.bind(*(ast.unparse(a) for a in new_call.args), **{k.arg: ast.unparse(k.value) for k in new_call.keywords})
    was = inspect.signature(function(ast.unparse(call.func)))
    if ast.unparse(call.func) == "torch.compile":
        with pytest.raises(TypeError):  # the old call does not bind: its parameters after the model are keywords
            was.bind(*(text(a) for a in call.args))
        assert got.arguments.keys() == {"model", "mode" if "reduce" in old else "backend"}
    else:  # each argument keeps the parameter it had, under the device the moved class now takes first
        meant = was.bind(*(text(a) for a in call.args), **{k.arg: text(k.value) for k in call.keywords}).arguments
        assert {k: v for k, v in got.arguments.items() if k not in ("device_type", "device")} == dict(meant)


def test_the_compile_modes_are_this_torchs():
    from torch._inductor import list_mode_options

    assert set(COMPILE_MODES) == set(list_mode_options())


def test_the_deprecation_warnings_a_page_printed_are_listed_once_by_cell(tmp_path):
    from torchnotes.engine.results import PageResult, Report

    page = _page(tmp_path, "import torch", "y = 1")
    first, second = (cell.id for cell in page.code_cells)
    outputs = {first: [{"output_type": "stream", "name": "stderr", "text":
                        "/v/torch/jit/_trace.py:1006: FutureWarning: `torch.jit.trace` is deprecated. Please switch.\n"
                        "  warnings.warn(\n<cell>:3: UserWarning: not about an API\n"
                        "<cell>:4: DeprecationWarning: old_thing() will go\n"},
                       {"output_type": "stream", "name": "stdout", "text": "FutureWarning: x is deprecated (printed)\n"}],
               second: [{"output_type": "stream", "name": "stderr",
                         "text": "UserWarning: foo is deprecated\nUserWarning: foo is deprecated\n"}]}
    twins = [PageResult(name, "run", outputs=outputs, source=page) for name in ("docs/en/p.md", "docs/zh/p.md")]
    found = deprecations(Report(None, twins, 0.0, 1))
    assert all(isinstance(e, DeprecatedApi) for e in found)
    assert [(str(e.path), e.cell, e.reason) for e in found] == [
        ("docs/en/p.md", 1, "FutureWarning: `torch.jit.trace` is deprecated. Please switch."),
        ("docs/en/p.md", 1, "DeprecationWarning: old_thing() will go"),
        ("docs/en/p.md", 2, "UserWarning: foo is deprecated")]
    assert found[0].line == page.lines[0]
