"""Errors that point at the right file, bounded outputs and time, prune and merge (issue 16, items 2 and 3)."""

import json
import subprocess
import sys
import time
from unittest import mock

import pytest
from helpers import code, page

from torchnotes.engine.cache import Cache
from torchnotes.engine.outputs import CELL_TEXT_LIMIT, normalise
from torchnotes.errors import BuildTimeout, KernelStartFailed, OutputTooLarge, PageTimeout, UnreadablePage
from torchnotes.pages.read import parse_markdown
from torchnotes.publish.paired import sync_pairs

CONFIG = "site_name: t\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n"


def cli(root, *args):
    return subprocess.run([sys.executable, "-m", "torchnotes", *args], cwd=root, capture_output=True, text=True,
                          timeout=300)


def site(root, pages: dict, config=CONFIG):
    (root / "mkdocs.yml").write_text(config)
    for rel, (body, extra) in pages.items():
        page(root / "docs", rel, body, extra=extra)
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    return root


def test_shared_failure_names_each_language_file(tmp_path, make_engine):
    en = page(tmp_path, "en/a.md", code("x = 1") + code("raise ValueError('boom')  # fails"))
    zh = page(tmp_path, "zh/a.md", "多一行说明。\n\n" + code("x = 1") + code("raise ValueError('boom')  # 失败"))
    report = make_engine().run([en, zh])
    en_error, zh_error = (r.error for r in report.results)
    assert report.kernels == 1
    assert str(en_error.path) == "en/a.md" and str(zh_error.path) == "zh/a.md"
    assert "zh/a.md" in en_error.message and "en/a.md" in zh_error.message  # both files named
    assert zh.read_text().splitlines()[zh_error.line - 1].startswith("```python")
    assert zh_error.line != en_error.line


def test_twin_with_other_comments_shows_its_own_traceback(tmp_path, make_engine):
    raises = 'tags=["raises-exception"] raises="ZeroDivisionError"'
    en = page(tmp_path, "en/a.md", code("1 / 0  # divide by zero", raises))
    zh = page(tmp_path, "zh/a.md", code("1 / 0  # 除以零", raises))
    report = make_engine().run([en, zh])
    assert report.kernels == 2
    en_tb, zh_tb = ("\n".join(r.cell_outputs()[0][0]["traceback"]) for r in report.results)
    assert "divide by zero" in en_tb and "除以零" in zh_tb and "divide by zero" not in zh_tb
    again = make_engine().run([en, zh])
    assert again.kernels == 0
    assert "除以零" in "\n".join(again.results[1].cell_outputs()[0][0]["traceback"])


def test_outputs_without_source_are_still_shared(tmp_path, make_engine):
    en = page(tmp_path, "en/a.md", code("print(2)  # two"))
    zh = page(tmp_path, "zh/a.md", code("print(2)  # 二"))
    assert make_engine().run([en, zh]).kernels == 1


def test_kernel_that_cannot_start_is_one_clear_error(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("print(1)"))
    result = make_engine(kernel="no-such-kernel").run([path]).results[0]
    assert isinstance(result.error, KernelStartFailed)
    assert "no-such-kernel" in result.error.message and "en/a.md" in result.error.message


def test_kernel_start_failure_through_the_cli(tmp_path):
    root = site(tmp_path, {"en/p.md": (code("print(1)"), ""), "zh/p.md": (code("print(1)"), "")},
                config=CONFIG + "      kernel: no-such-kernel\n")
    done = cli(root, "execute")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "did not start" in done.stderr and "docs/en/p.md" in done.stderr


def test_jupytext_errors_keep_their_cause():
    with mock.patch("jupytext.reads", side_effect=KeyError("cell_markers")):
        with pytest.raises(UnreadablePage, match="KeyError: 'cell_markers'"):
            parse_markdown("---\ntitle: t\n---\n", "en/a.md")


def test_bad_front_matter_stops_the_build_before_any_kernel(tmp_path):
    slow = code("import time\ntime.sleep(20)\nprint('ran')")
    root = site(tmp_path, {"en/a.md": (slow, ""), "zh/a.md": (slow, ""),
                           "en/b.md": (code("x = 1"), "timeout: -5\n"), "zh/b.md": (code("x = 1"), "")})
    begin = time.monotonic()
    done = cli(root, "execute")
    assert done.returncode == 1 and "'timeout' must be a positive number" in done.stderr
    assert time.monotonic() - begin < 15  # the sleeping pages never started
    report = json.loads((root / ".cache/torchnotes/report.json").read_text())
    assert report["status"] == "failed" and report["failed"] == 1 and report["kernels"] == 0


def test_unpaired_page_stops_the_build_and_the_report_says_failed(tmp_path):
    root = site(tmp_path, {"en/a.md": (code("print(1)"), ""), "zh/a.md": (code("print(1)"), "")})
    page(root / "docs", "en/a.md", code("print(2)"))  # edited, not synced
    done = cli(root, "execute")
    assert done.returncode == 1 and "differ" in done.stderr
    report = json.loads((root / ".cache/torchnotes/report.json").read_text())
    assert report["status"] == "failed" and [p["status"] for p in report["pages"]] == ["failed"]
    assert "failed 1" in cli(root, "summary").stdout


def test_long_unbroken_line_is_normalised_in_linear_time():
    text = "x" * 2_000_000 + " /tmp/ipykernel_42/123.py:1: UserWarning"
    begin = time.perf_counter()
    out = normalise([{"output_type": "stream", "name": "stderr", "text": text}])
    # The old pattern took 9.7 s on 40,000 characters; this is 50 times longer.
    assert time.perf_counter() - begin < 5
    assert out[0]["text"].endswith("<cell>:1: UserWarning")


def test_huge_output_is_cut_visibly(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code("print('y' * 3_000_000)") + code("print('after')"))
    result = make_engine().run([path]).results[0]
    text = result.cell_outputs()[0][0]["text"]
    assert len(text) < CELL_TEXT_LIMIT + 200
    assert "2,900,001 more characters cut" in text
    assert result.cell_outputs()[1][0]["text"] == "after\n"


def test_page_over_the_total_limit_fails_naming_the_cell(tmp_path, make_engine):
    many = code("print(1)") + code("from IPython.display import HTML\nfor i in range(60):\n    display(HTML('z' * 100_000))")
    result = make_engine().run([page(tmp_path, "en/a.md", many)]).results[0]
    assert isinstance(result.error, OutputTooLarge) and result.error.cell == 2 and "en/a.md" in result.error.message


def test_page_timeout(tmp_path, make_engine):
    # The limit counts the kernel's start too (a forked kernel: about a second, more on a loaded machine).
    path = page(tmp_path, "en/a.md", code("import time\ntime.sleep(0.1)") + code("time.sleep(0.1)") + code("time.sleep(120)"))
    result = make_engine(page_timeout=10).run([path]).results[0]
    assert isinstance(result.error, PageTimeout) and "within 10 s" in result.error.reason and result.error.cell == 3


def test_build_timeout(tmp_path, make_engine):
    paths = [page(tmp_path, f"en/{n}.md", code(f"import time\ntime.sleep(30)\nprint({i})")) for i, n in enumerate("ab")]
    begin = time.monotonic()
    report = make_engine(build_timeout=8).run(paths)
    assert time.monotonic() - begin < 25
    assert all(isinstance(e, BuildTimeout) for e in report.failures) and len(report.failures) == 2


@pytest.mark.slow  # the fixture site built, edited and built again through the CLI
def test_prune_keeps_only_entries_in_use(tmp_path):
    root = site(tmp_path, {"en/p.md": (code("print(1)"), ""), "zh/p.md": (code("print(1)"), "")})
    assert cli(root, "execute").returncode == 0
    for lang in ("en", "zh"):
        page(root / "docs", f"{lang}/p.md", code("print(2)"))
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    assert cli(root, "execute").returncode == 0
    cache = Cache(root / ".cache/torchnotes")
    assert len(cache.keys()) == 2
    done = cli(root, "cache", "prune")
    assert done.returncode == 0 and "removed 1" in done.stdout
    report = json.loads((cache.folder / "report.json").read_text())
    assert cache.keys() == {report["pages"][0]["key"]}
    assert "0 kernels" in cli(root, "execute", "--prune").stdout


def test_merge_fails_on_a_damaged_entry(tmp_path):
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    shard = Cache(tmp_path / "shard")
    shard.put("good", {"outputs": []})
    shard.put("bad", {"outputs": []})
    shard.path("bad").write_text('{"sha256": "0", "body": {}}')
    done = cli(tmp_path, "merge", "shard")
    assert done.returncode == 1 and "bad.entry.json" in done.stderr


def test_explain_says_why(tmp_path):
    root = site(tmp_path, {"en/p.md": (code("print(open('n.txt').read())"), ""),
                           "zh/p.md": (code("print(open('n.txt').read())"), "")})
    for lang in ("en", "zh"):
        (root / "docs" / lang / "n.txt").write_text("1")
    assert "miss" in cli(root, "execute", "--explain", "docs/en/p.md").stdout
    assert cli(root, "execute").returncode == 0
    assert "hit" in cli(root, "execute", "--explain", "docs/en/p.md").stdout
    (root / "docs/en/n.txt").write_text("2")
    assert "file docs/en/n.txt changed" in cli(root, "execute", "--explain", "docs/en/p.md").stdout
    page(root / "docs", "en/p.md", code("print(3)"))
    assert "its code cells or their options changed" in cli(root, "execute", "--explain", "docs/en/p.md").stdout


