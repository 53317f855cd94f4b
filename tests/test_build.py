"""Build the fixture site (both languages, every feature) with the real mkdocs CLI into tmp_path."""

import json
import re
import subprocess
import sys

import nbformat
import pytest
from browser_support import base_path
from helpers import build, fixture_copy

from torchnotes.publish.paired import sync_pairs
from torchnotes.strings import strings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One build of the fixture site for every test that only reads it."""
    tmp_path = tmp_path_factory.mktemp("built")
    src = fixture_copy(tmp_path)
    done = build(src, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    return src, tmp_path / "site", done.stderr


def test_outputs_in_both_languages(built):
    _, site, log = built
    for lang_dir in ("", "zh/"):
        html = (site / lang_dir / "demo/index.html").read_text()
        assert '<pre class="nb-stdout" tabindex="0">sum: 6</pre>' in html
        assert '<pre class="nb-result" tabindex="0">tensor([1., 1.])</pre>' in html
        assert "RuntimeError</span>: shape" in html  # the real expected error, coloured
        image = re.search(r'<img alt="[^"]*" class="nb-image" loading="lazy" src="(demo-code-4-[0-9a-f]{8}-0-[0-9a-f]{8}\.png)"', html)
        assert image and (site / lang_dir / "demo" / image.group(1)).is_file()
        assert "In&nbsp;[" not in html and "In [" not in html and "\x1b[" not in html
        assert "tabbed-set" in html and 'class="arithmatex"' in html  # pymdownx still works on notebook pages
    assert "此代码单元格需要 CUDA 设备" in (site / "zh/demo/index.html").read_text()
    # Same code in both languages, but the page's expected error shows a traceback quoting its source lines,
    # and the comments differ: each language runs once so each shows its own comments (issue 16, item 2).
    assert "2 kernels" in log


def test_provenance_download_and_colab(built):
    _, site, _ = built
    html = (site / "demo/index.html").read_text()
    assert re.search(r'<p class="nb-provenance"[^>]*>Outputs generated with PyTorch [\d.]+\S* on CPU · Python 3\.\d+\.\d+ · \d{4}-\d\d-\d\d · ', html)
    # How long the page ran changes with every execution: the report lists it, the page does not.
    assert not re.search(r'class="nb-provenance"[^>]*>[^<]* · [\d.]+ s · ', html)
    assert '<a download href="demo.ipynb">Download notebook</a>' in html
    assert "https://colab.research.google.com/github/example/fixture/blob/main/notebooks/en/demo.ipynb" in html
    zh = (site / "zh/demo/index.html").read_text()
    assert "输出由 PyTorch" in zh and "notebooks/zh/demo.ipynb" in zh
    nb = nbformat.read(site / "zh/demo/demo.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    # The page draws: its notebook opens with the CJK font set-up for readers (tests/test_notebook_fonts.py), unrun.
    assert code[0].id == "cjk-font" and code[0].outputs == []
    outputs = [c.outputs for c in code[1:]]
    assert outputs[0][0]["text"] == "sum: 6\n" and outputs[1][0]["ename"] == "RuntimeError"
    assert "注释" in code[1].source  # the page's own code


def test_report_page_lists_every_page(built):
    _, site, _ = built
    html = (site / "report/index.html").read_text()
    assert "demo.md" in html and "index.md" in html and "PyTorch" in html
    assert "执行" in (site / "zh/report/index.html").read_text()


def test_search_index_per_language(built):
    """Each language's own index, packed (torchnotes/publish/search_index.py): prose only, no code, outputs or notices."""
    _, site, _ = built
    en = json.loads((site / "search/search_index.json").read_text())
    zh = json.loads((site / "zh/search/search_index.json").read_text())

    def titles(index):  # packed: [page path, suffix, title, text, suffix, title, text, ...] per page
        return [t for page in index["docs"] for t in page[2::3]]

    def everything(index):
        return json.dumps(index["docs"], ensure_ascii=False)

    assert titles(en) and titles(zh)
    assert not any("测试" in t or "演示" in t for t in titles(en))
    assert all(not page[0].startswith("zh/") for page in zh["docs"])
    assert any("演示" in t for t in titles(zh))
    assert "gradients" in everything(en)  # the prose is there
    for lang, index in (("en", en), ("zh", zh)):
        text = everything(index)
        words = strings(lang)
        # code, an output, the provenance line, the needs-cuda notice
        for left_out in ("manual_seed", "sum: 6", words["provenance"].split("{")[0].strip(),
                         words["needs_cuda"].split("{")[0].strip()):
            assert left_out not in text, (lang, left_out)
        assert "\u200b" not in text  # the worker cuts Chinese again from the word table
    assert zh["config"]["torchnotes"]["format"] == 1 and zh["config"]["torchnotes"]["words"]
    assert "\\u200b" in en["config"]["separator"] or "\u200b" in en["config"]["separator"]
    # Material looks for the index under __config.base: a Chinese page's base is the Chinese root.
    base = re.search(r'"base":\s*"([^"]*)"', (site / "zh/demo/index.html").read_text()).group(1)
    assert (site / "zh/demo" / base / "search/search_index.json").resolve() == (site / "zh/search/search_index.json").resolve()
    assert re.search(r'"base":\s*"([^"]*)"', (site / "demo/index.html").read_text()).group(1) == ".."


def test_no_request_to_other_hosts(built):
    _, site, _ = built
    for html in site.rglob("*.html"):
        text = html.read_text()
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text
        # Material fetches <href>/sitemap.xml for each hreflang link: each is a path on this site, whose folder
        # holds that sitemap (tests/test_alternates.py checks the real site's).
        for href in re.findall(r'<link rel="alternate" href="([^"]*)" hreflang=', text):
            assert not href.startswith(("http:", "https:", "//")), (html, href)
            folder = site / href.removeprefix(base_path(site)) if href.startswith("/") else html.parent / href
            assert (folder / "sitemap.xml").is_file(), (html, href)
        # Links to other sites are fine; what the browser fetches by itself must come from the site.
        loads = re.findall(r'<script[^>]+src="(https?://[^"]+)"', text)
        loads += re.findall(r'<img[^>]+src="(https?://[^"]+)"', text)
        loads += [href for tag in re.findall(r"<link[^>]+>", text)
                  if re.search(r'rel="(?:stylesheet|preload|modulepreload|icon|preconnect)"', tag)
                  for href in re.findall(r'href="(https?://[^"]+)"', tag)]
        assert loads == [], f"{html} loads {loads}"


def test_rebuild_with_no_change_runs_no_kernel(built, tmp_path):
    src, _, _ = built
    again = build(src, tmp_path / "site2")
    assert again.returncode == 0, again.stderr
    assert "0 kernels" in again.stderr and " run\n" not in again.stderr


def test_missing_translation_fails_the_build(fixture_site, tmp_path):
    sync_pairs(fixture_site / "docs", fixture_site / "notebooks", ["en", "zh"])
    (fixture_site / "docs/zh/demo.md").unlink()
    done = build(fixture_site, tmp_path / "site")
    assert done.returncode != 0
    assert "docs/zh/demo.md: missing" in done.stderr


def test_failing_cell_fails_the_build_with_page_and_cell(fixture_site, tmp_path):
    for lang in ("en", "zh"):
        demo = fixture_site / f"docs/{lang}/demo.md"
        demo.write_text(demo.read_text().replace("torch.ones(2)\n", "torch.ones(2) + torch.ones(3)\n"))
    sync_pairs(fixture_site / "docs", fixture_site / "notebooks", ["en", "zh"])
    done = build(fixture_site, tmp_path / "site")
    assert done.returncode != 0
    assert re.search(r"docs/en/demo\.md:\d+ \(code cell 1\): RuntimeError: The size of tensor a", done.stderr)


def test_build_keeps_notebooks_in_sync_and_check_flags_them(fixture_site, tmp_path):
    sync_pairs(fixture_site / "docs", fixture_site / "notebooks", ["en", "zh"])
    demo = fixture_site / "docs/en/demo.md"
    demo.write_text(demo.read_text().replace("torch.manual_seed(0)", "torch.manual_seed(1)"))
    # CI's check still fails on a committed notebook that is out of date ...
    check = subprocess.run([sys.executable, "-m", "torchnotes", "-f", str(fixture_site / "mkdocs.yml"), "check"],
                           capture_output=True, text=True, cwd=fixture_site, timeout=300)
    assert check.returncode != 0 and "docs/en/demo.md: page and" in check.stderr, check.stderr
    # ... while the build (and so the preview) re-syncs it and goes on.
    done = build(fixture_site, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    notebook = nbformat.read(fixture_site / "notebooks/en/demo.ipynb", as_version=4)
    assert any("torch.manual_seed(1)" in c.source for c in notebook.cells)
