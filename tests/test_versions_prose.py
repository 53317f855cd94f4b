"""The version this site is built with comes from the build: {{ torch_version }} / {{ torch_release }} in prose,
replaced in the published tree (both generators) and the downloaded notebook; misspelt tokens and literal
current versions in prose fail `check` (torchnotes/versions.py)."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers import code, page

from torchnotes.checks import sync_pairs
from torchnotes.errors import LiteralVersion, UnknownToken
from torchnotes.pages import read_page
from torchnotes.render import RenderContext, render_markdown
from torchnotes.versions import (
    check_literal_versions,
    check_tokens,
    pinned_torch,
    substitute,
    token_values,
)

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "site"
PIN = pinned_torch(ROOT / "requirements.txt")
MAJOR, MINOR = (int(x) for x in PIN.split(".")[:2])
CURRENT, NEWER, OLDER = f"{MAJOR}.{MINOR}", f"{MAJOR}.{MINOR + 1}", f"{MAJOR}.{MINOR - 1}"


def test_values_drop_the_local_build_suffix():
    assert token_values("2.15.0+cu132") == {"torch_version": "2.15", "torch_release": "2.15.0"}
    assert token_values("3.1.2") == {"torch_version": "3.1", "torch_release": "3.1.2"}
    assert token_values("2.16.0a0+git1234") == {"torch_version": "2.16", "torch_release": "2.16.0a0"}


def test_the_pin_is_read_from_the_requirements(tmp_path):
    (tmp_path / "r.txt").write_text("numpy==2.4.6\n# torch==1.0.0 in a comment\ntorch==2.17.1\n")
    assert pinned_torch(tmp_path / "r.txt") == "2.17.1"
    (tmp_path / "none.txt").write_text("numpy==2.4.6\n")
    assert pinned_torch(tmp_path / "none.txt") is None and pinned_torch(tmp_path / "missing.txt") is None


def test_tokens_in_prose_are_replaced_and_code_keeps_them():
    values = token_values("2.15.0+cu132")
    text = ("Built with PyTorch {{ torch_version }} ({{torch_release}}); write `{{ torch_version }}`.\n\n"
            "```console\n$ echo {{ torch_release }}\n```\n\n!!! note\n\n    In {{ torch_version }} it warns.")
    out = substitute(text, values)
    assert out.startswith("Built with PyTorch 2.15 (2.15.0); write `{{ torch_version }}`.")
    assert "$ echo {{ torch_release }}" in out and out.endswith("    In 2.15 it warns.")


def test_render_replaces_prose_only(tmp_path):
    path = page(tmp_path, "en/a.md", "Made with PyTorch {{ torch_version }}.\n\n"
                + code('print("{{ torch_version }}")'))
    ctx = RenderContext(lang="en", device="CPU", cuda=False, image_sink=lambda n, r: n, stem="a",
                        tokens=token_values("9.8.7+cpu"))
    md = render_markdown(read_page(path), {}, ctx)
    assert "Made with PyTorch 9.8." in md and 'print("{{ torch_version }}")' in md


@pytest.mark.parametrize("token", ["{{ torch_versoin }}", "{{ site_name }}", "{{torch.__version__}}"])
def test_a_misspelt_or_unknown_token_names_file_line_and_the_known_tokens(tmp_path, token):
    path = page(tmp_path, "en/a.md", f"First.\n\n{code('x = 1')}Some prose,\nthen {token} here.\n")
    [problem] = check_tokens(path, read_page(path))
    line = path.read_text().splitlines().index(f"then {token} here.") + 1
    assert isinstance(problem, UnknownToken) and problem.line == line
    assert problem.message.startswith(f"{path}:{line}: unknown token {token}")
    assert "{{ torch_version }}, {{ torch_release }}" in problem.message
    with pytest.raises(UnknownToken) as raised:  # the publish step stops on it too
        render_markdown(read_page(path), {}, RenderContext("en", "CPU", False, lambda n, r: n,
                                                           tokens=token_values(PIN)))
    assert raised.value.line == line


def test_braces_in_code_are_not_tokens(tmp_path):
    path = page(tmp_path, "en/a.md", "Jinja: `{{ page.title }}`.\n\n```yaml\nx: {{ anything }}\n```\n")
    assert check_tokens(path, read_page(path)) == []


def planted(tmp_path):
    """One line per case, each with a marker word, so a finding's line says which case it is."""
    cases = {
        "current": f"FLAG1 In PyTorch {CURRENT} this warns.",
        "current-release": f"FLAG2 the wheel {CURRENT}.0 is what pip installs.",
        "newer": f"FLAG3 torch {NEWER} changes it.",
        "pin-form": f"FLAG4 install torch=={CURRENT}.0 first.",
        "zh": f"FLAG5 在 PyTorch {CURRENT} 中，它只是警告。",
        "older": f"OK1 In PyTorch {OLDER} it raised; now it warns.",
        "since": f"OK2 Since PyTorch {CURRENT} the default changed.",
        "until": f"OK3 until {NEWER}.0 nothing moves.",
        "zh-since": f"OK4 从 PyTorch {CURRENT} 开始默认值变了。",
        "zh-after": f"OK5 PyTorch {CURRENT} 起默认值变了。",
        "other product": f"OK6 Python 3.{MINOR}.1 and CUDA {MAJOR + 11}.0.1 are not PyTorch.",
        "inline code": f"OK7 the line `torch {CURRENT}` is code.",
        "url": f"OK8 see [the docs](https://pytorch.org/docs/{CURRENT}.0/index.html).",
        "token": "OK9 In PyTorch {{ torch_version }} this warns.",
    }
    body = "\n\n".join(cases.values()) + f"\n\n```console\n$ pip install torch=={CURRENT}.0\n```\n\n" + code("x = 1")
    return page(tmp_path, "en/a.md", body)


def test_a_literal_current_or_newer_version_is_flagged_and_history_is_not(tmp_path):
    path = planted(tmp_path)
    problems = check_literal_versions(path, read_page(path), PIN)
    lines = path.read_text().splitlines()
    flagged = sorted(lines[p.line - 1].split()[0] for p in problems)
    assert flagged == ["FLAG1", "FLAG2", "FLAG3", "FLAG4", "FLAG5"], [p.message for p in problems]
    assert all(isinstance(p, LiteralVersion) for p in problems)
    first = min(problems, key=lambda p: p.line)
    assert first.message.startswith(f"{path}:{first.line}: 'PyTorch {CURRENT}' in the prose")
    assert "write {{ torch_version }}" in first.message and f"torch=={PIN}" in first.message
    # The rule follows the pin: one minor version later, the current version is history.
    assert check_literal_versions(path, read_page(path), f"{MAJOR}.{MINOR + 2}.0") == []


def fixture_copy(tmp_path) -> Path:
    src = tmp_path / "site-src"
    shutil.copytree(FIXTURE, src)
    return src


def under_title(path: Path, line: str) -> None:
    """Put a line of prose right under the page's title."""
    text = path.read_text()
    title = next(t for t in text.splitlines() if t.startswith("# "))
    path.write_text(text.replace(f"\n{title}\n", f"\n{title}\n\n{line}\n", 1))


def test_check_fails_on_a_planted_page_naming_it(tmp_path):
    src = fixture_copy(tmp_path)
    (src / "requirements.txt").write_text(f"torch=={PIN}\n")
    for lang in ("en", "zh"):
        under_title(src / "docs" / lang / "demo.md", f"In PyTorch {CURRENT} it warns; {{{{ torch_versoin }}}}.")
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    done = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=src, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    line = (src / "docs/en/demo.md").read_text().splitlines().index(f"In PyTorch {CURRENT} it warns; "
                                                                   "{{ torch_versoin }}.") + 1
    for lang in ("en", "zh"):
        assert f"docs/{lang}/demo.md:{line}: 'PyTorch {CURRENT}' in the prose" in done.stderr
        assert f"docs/{lang}/demo.md:{line}: unknown token {{{{ torch_versoin }}}}" in done.stderr
    assert "4 problem(s)" in done.stdout


def test_a_misspelt_token_fails_the_build_before_any_kernel(tmp_path):
    src = fixture_copy(tmp_path)
    demo = src / "docs/zh/demo.md"
    demo.write_text(demo.read_text() + "\n用 {{ torch_versoin }} 写。\n")
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                          cwd=src, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    line = len(demo.read_text().splitlines())
    assert f"docs/zh/demo.md:{line}: unknown token {{{{ torch_versoin }}}}" in done.stderr
    assert "kernels" not in done.stderr  # stopped by the checks, nothing executed


@pytest.fixture(scope="module")
def built_with_tokens(tmp_path_factory, env):
    """The fixture site with tokens in both languages' prose, built by MkDocs and by Zensical."""
    tmp_path = tmp_path_factory.mktemp("tokens")
    src = fixture_copy(tmp_path)
    for lang, prose in (("en", "Built with PyTorch {{ torch_version }} ({{ torch_release }}), not `{{ torch_version }}`."),
                        ("zh", "本站用 PyTorch {{ torch_version }}（{{ torch_release }}）构建，而不是 `{{ torch_version }}`。")):
        under_title(src / "docs" / lang / "demo.md", prose)
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    mkdocs = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "mkdocs")],
                            cwd=src, capture_output=True, text=True, timeout=600)
    assert mkdocs.returncode == 0, mkdocs.stderr[-3000:]
    zensical = subprocess.run([sys.executable, "-m", "torchnotes", "zensical", "--site-dir", "zensical-site"],
                              cwd=src, capture_output=True, text=True, timeout=600)
    assert zensical.returncode == 0, zensical.stdout[-2000:] + zensical.stderr[-3000:]
    assert "0 kernels" in zensical.stdout  # the same cache: the same outputs
    return src, {"mkdocs": tmp_path / "mkdocs", "zensical": src / "zensical-site"}, token_values(env.torch)


@pytest.mark.parametrize("generator", ["mkdocs", "zensical"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_both_generators_show_the_builds_version(built_with_tokens, generator, lang):
    _, sites, values = built_with_tokens
    html = (sites[generator] / ("" if lang == "en" else "zh") / "demo/index.html").read_text()
    text = re.sub(r"<[^>]+>", "", html)
    expected = {"en": f"Built with PyTorch {values['torch_version']} ({values['torch_release']}), not {{{{ torch_version }}}}.",
                "zh": f"本站用 PyTorch {values['torch_version']}（{values['torch_release']}）构建，而不是 {{{{ torch_version }}}}。"}
    assert expected[lang] in text, re.findall(r".{0,40}PyTorch.{0,60}", text)
    assert "torch_release" not in text


def test_the_downloaded_notebook_is_substituted_and_the_paired_one_keeps_the_token(built_with_tokens):
    src, sites, values = built_with_tokens
    executed = nbformat.read(sites["mkdocs"] / "demo/demo.ipynb", as_version=4)
    prose = "\n".join(c.source for c in executed.cells if c.cell_type == "markdown")
    assert f"Built with PyTorch {values['torch_version']} ({values['torch_release']})" in prose
    paired = json.loads((src / "notebooks/en/demo.ipynb").read_text())
    assert "Built with PyTorch {{ torch_version }} ({{ torch_release }})" in json.dumps(paired)
