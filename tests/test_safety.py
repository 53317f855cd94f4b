"""Prose from pull requests runs nothing and loads nothing from other hosts (`torchnotes check`)."""

import subprocess
import sys

import pytest
from helpers import ROOT, code, page

from torchnotes.errors import UnsafeProse
from torchnotes.pages.listing import page_paths
from torchnotes.pages.read import read_page
from torchnotes.pages.safety import check_prose

UNSAFE = {
    "script": ('<script>alert("hi")</script>', "<script>"),
    "script with src": ('<script src="/assets/x.js"></script>', "<script>"),
    "iframe": ('<iframe src="/other/"></iframe>', "<iframe>"),
    "object": ('<object data="/x.swf"></object>', "<object>"),
    "embed": ('<embed src="/x.swf">', "<embed>"),
    "style with url": ("<style>body { background: url(/x.png) }</style>", "<style> loads a URL"),
    "style import": ('<style>@import "https://fonts.example/x.css";</style>', "<style> loads a URL"),
    "style attribute with url": ('<span style="background:url(https://x.example/a.png)">x</span>', "style="),
    "event handler": ('<span onclick="steal()">click</span>', "onclick="),
    "event handler, capitals": ('<img src="a.png" ONERROR="steal()">', "onerror="),
    "javascript: href": ('<a href="javascript:alert(1)">x</a>', "javascript: URL"),
    "javascript: with spaces": ('<a href=" java\tscript:alert(1)">x</a>', "javascript: URL"),
    "javascript: Markdown link": ("[x](javascript:alert(1))", "javascript: URL"),
    "external img": ('<img src="https://example.com/a.png" alt="a">', "loads from another host"),
    "protocol-relative img": ('<img src="//example.com/a.png" alt="a">', "loads from another host"),
    "external srcset": ('<img src="a.png" srcset="a2.png 2x, http://example.com/a3.png 3x" alt="a">', "loads from another host"),
    "external video": ('<video src="https://example.com/a.mp4"></video>', "loads from another host"),
    "external source": ('<audio><source src="https://example.com/a.ogg"></audio>', "loads from another host"),
    "external stylesheet": ('<link rel="stylesheet" href="https://cdn.example/x.css">', "loads from another host"),
    "Markdown image": ("![a plot](https://example.com/plot.png)", "Markdown image"),
    "Markdown image, reference": ("![a plot][p]\n\n[p]: https://example.com/plot.png", "Markdown image"),
    "tag outside the policy": ('<form action="/x"><input name="q"></form>', "<form> is not allowed"),
    "inside an admonition": ('!!! note "N"\n\n    <script>alert(1)</script>', "<script>"),
}


@pytest.mark.parametrize("kind", UNSAFE)
def test_each_kind_fails_with_its_line(tmp_path, kind):
    markup, expected = UNSAFE[kind]
    path = page(tmp_path, "en/p.md", f"Some prose.\n\n{markup}\n\nMore prose.\n\n" + code("print(1)"))
    problems = check_prose(path, read_page(path))
    assert problems, f"{kind} passed the check"
    assert all(isinstance(p, UnsafeProse) for p in problems)
    first = next((p for p in problems if expected in p.reason), None)
    assert first is not None, [p.message for p in problems]
    # The line the offending markup starts on (in the admonition: its indented body).
    line = path.read_text().splitlines().index(markup.splitlines()[-1 if kind == "inside an admonition" else 0]) + 1
    assert first.message.startswith(f"{path}:{line}: "), first.message
    assert "\n  -> " in first.message  # says what to do


def test_line_numbers_after_code_cells(tmp_path):
    body = code("print(1)") + "Text.\n\n" + code("print(2)") + "Then <script>x()</script> here.\n"
    path = page(tmp_path, "en/p.md", body)
    [problem] = check_prose(path, read_page(path))
    line = path.read_text().splitlines().index("Then <script>x()</script> here.") + 1
    assert problem.line == line


SAFE = """\
A link to [the PyTorch docs](https://pytorch.org/docs/stable/) and <https://pytorch.org>, an
![image on this site](../assets/plot.png), <img src="../assets/a.png" alt="a">, a <kbd>Ctrl</kbd>,
<details><summary>More</summary>text</details>, <sup>1</sup>, <a href="https://github.com/pytorch/pytorch">repo</a>.

Code is text: `<script>alert(1)</script>` and `<img src="https://example.com/a.png">`.

```console
$ echo '<iframe src="https://example.com"></iframe>'
```

??? note "A tip"

    ```html
    <script src="https://cdn.example/x.js"></script>
    ```

Written as &lt;torch.Tensor&gt; in prose, and a < b > c is maths.
"""


def test_a_normal_page_passes(tmp_path):
    path = page(tmp_path, "en/p.md", SAFE + "\n" + code("print('<script>')"))
    assert check_prose(path, read_page(path)) == []


@pytest.mark.parametrize("path", [p for lang in ("en", "zh") for p in page_paths(ROOT / "docs", lang)],
                         ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_real_pages_pass(path):
    assert [p.message for p in check_prose(path, read_page(path))] == []


def test_check_command_fails_on_unsafe_prose(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en]\n")
    page(tmp_path / "docs", "en/p.md", 'Hello <img src="https://tracker.example/p.gif" alt="">.\n')
    run = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "docs/en/p.md:8: <img src=\"https://tracker.example/p.gif\"> loads from another host" in run.stderr
    assert "1 problem(s)" in run.stdout
