"""The pull request's job summary, from real reports: the fixture site's pages executed by the engine, then
executed again after edits, as main's run and a pull request's run would be."""

import json
import shutil
import subprocess
import sys

import pytest
from helpers import code, page

from torchnotes.ci.summary import summary, untranslated_summary
from torchnotes.pages.listing import page_paths
from torchnotes.pages.translations import TRANSLATE_MARKER, untranslated_pages
from torchnotes.publish.paired import sync_pairs


def pages_of(site):
    return [p for lang in ("en", "zh") for p in page_paths(site / "docs", lang)]


@pytest.mark.slow  # the fixture site executed three times: main, then the pull request twice
def test_summary_of_real_reports(fixture_site, make_engine, env, tmp_path):
    site = fixture_site
    # main: every page of the fixture site, executed into a cache in tmp_path.
    main = make_engine().run(pages_of(site))
    assert not main.failures, [e.message for e in main.failures]
    main.write(tmp_path / "main.json")
    folder = make_engine().folder
    main.write(folder.report)
    first = summary(folder, tmp_path / "main.json")
    # 6 pages; en and zh demo share their code but raise with their own comments: each runs (issue 16, item 2).
    assert "### Pages: 6 · run 2 · cached 0 · failed 0" in first, first
    assert f"PyTorch {env.torch} · {env.device}" in first and "· 2 kernels ·" in first
    assert "None: every page shows the same outputs as on main." in first

    # The pull request: en/demo's printed sum changes; zh/demo's code changes but prints the same
    # (explicit dtype); a new page; and a page that fails.
    en, zh = site / "docs/en/demo.md", site / "docs/zh/demo.md"
    text = en.read_text(encoding="utf-8")
    assert "torch.arange(4).sum()" in text
    en.write_text(text.replace("torch.arange(4).sum()", "torch.arange(5).sum()"), encoding="utf-8")
    zh_text = zh.read_text(encoding="utf-8")
    assert "torch.ones(2)\n" in zh_text
    zh.write_text(zh_text.replace("torch.ones(2)\n", "torch.ones(2, dtype=torch.float32)\n", 1), encoding="utf-8")
    new = page(site / "docs", "en/new.md", code("print('hello')"))
    broken = page(site / "docs", "en/broken.md", code("raise RuntimeError('boom')"))
    pr = make_engine().run(pages_of(site))
    pr.write(tmp_path / "pr.json")
    pr.write(folder.report)
    statuses = {r.page: r.status for r in pr.results}
    assert statuses["site-src/docs/en/demo.md"] == "run" and statuses["site-src/docs/zh/demo.md"] == "run"

    text = summary(folder, tmp_path / "main.json")
    assert "### Pages: 8 · run 3 · cached 0 · failed 1" in text, text
    failures = text.split("#### Failures")[1].split("####")[0]
    assert f"- `site-src/docs/en/broken.md`: {broken.relative_to(tmp_path)}:" in failures
    assert "RuntimeError: boom" in failures
    changed = text.split("Outputs changed compared with main")[1]
    listed = sorted(line.split("`")[1] for line in changed.splitlines() if line.startswith("- "))
    assert listed == ["site-src/docs/en/demo.md", "site-src/docs/en/new.md"], changed
    assert "- `site-src/docs/en/demo.md`: code cells 1\n" in changed  # only the cell whose output changed
    assert f"- `{new.relative_to(tmp_path)}`: new page" in changed

    # The report the summary read is the engine's own file, not something the test wrote.
    rows = {row["page"]: row for row in json.loads((tmp_path / "pr.json").read_text())["pages"]}
    assert rows["site-src/docs/en/demo.md"]["key"] != [r for r in main.results if r.page.endswith("en/demo.md")][0].key


def test_a_missing_report_is_an_error_not_an_empty_summary(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en]\n")
    page(tmp_path / "docs", "en/p.md", code("print(1)"))
    sync_pairs(tmp_path / "docs", tmp_path / "notebooks", ["en"])

    def torchnotes(*args):
        return subprocess.run([sys.executable, "-m", "torchnotes", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)

    before = torchnotes("summary")
    assert before.returncode == 2 and "report.json" in before.stderr and "no such file" in before.stderr
    assert torchnotes("execute").returncode == 0
    missing = torchnotes("summary", "--against", "main-report.json")
    assert missing.returncode == 2 and missing.stdout == ""
    assert "main-report.json: --against: no such file" in missing.stderr and "cp .cache/torchnotes" in missing.stderr
    shutil.copy(tmp_path / ".cache/torchnotes/report.json", tmp_path / "main-report.json")
    kept = torchnotes("summary", "--against", "main-report.json")
    assert kept.returncode == 0 and "None: every page shows the same outputs as on main." in kept.stdout


def test_the_summary_lists_the_pages_not_translated_yet(tmp_path):
    docs = tmp_path / "docs"
    for lang, rel, body in (("en", "tutorials/a.md", ""), ("zh", "tutorials/a.md", TRANSLATE_MARKER),
                            ("en", "b.md", ""), ("zh", "b.md", "已翻译。"), ("zh", "c.md", f"  {TRANSLATE_MARKER}  ")):
        (docs / lang / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / lang / rel).write_text(f"# T\n\n{body}\n", encoding="utf-8")
    pages = untranslated_pages(docs, ["en", "zh"])
    assert pages == [docs / "zh/c.md", docs / "zh/tutorials/a.md"]
    text = untranslated_summary(pages, docs)
    assert text.splitlines()[1:] == ["#### Not translated yet", "",
                                     "Shown in English under a notice until a translator removes the marker:", "",
                                     "- `zh/c.md`", "- `zh/tutorials/a.md`"]
    assert untranslated_summary([], docs) == ""
