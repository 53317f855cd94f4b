"""Prose about the version this site is built with takes the number from the build: {{ torch_version }}."""

from __future__ import annotations

import subprocess
import sys

from helpers import code, page

from torchnotes.errors import LiteralVersion, UnknownToken
from torchnotes.pages.tokens import check_tokens, substitute, values

VALUES = values("2.15.0+cu132")


def test_values_come_from_the_build():
    assert VALUES == {"torch_version": "2.15", "torch_release": "2.15.0"}


def test_prose_is_substituted_and_code_is_not():
    text = "In PyTorch {{ torch_version }} ({{torch_release}}), `{{ torch_version }}` stays.\n\n```\n{{ torch_version }}\n```"
    assert substitute(text, VALUES) == "In PyTorch 2.15 (2.15.0), `{{ torch_version }}` stays.\n\n```\n{{ torch_version }}\n```"


def test_check_flags_the_current_release_and_unknown_tokens_not_history(tmp_path):
    path = page(tmp_path, "en/a.md", """
        In PyTorch 2.15 this warns.

        Since PyTorch 2.6 it exists; until torch 2.5 it raised; PyTorch 2.13 printed it too.

        The wheel of 2.15.0 is a CUDA build (a fact about that release).

        A typo: {{ torch_versoin }}. Then torch 2.16.0, a newer one.

        """ + code('print("PyTorch 2.15")'))
    lines = path.read_text().split("\n")
    line_of = {key: next(n for n, text in enumerate(lines, 1) if key in text) for key in ("this warns", "A typo")}
    problems = check_tokens(path, "2.15.0")
    literal = [(p.line, p.reason.split("'")[1]) for p in problems if isinstance(p, LiteralVersion)]
    assert literal == [(line_of["this warns"], "PyTorch 2.15"), (line_of["A typo"], "torch 2.16.0")]
    unknown = [p for p in problems if isinstance(p, UnknownToken)]
    assert len(unknown) == 1 and unknown[0].line == line_of["A typo"] and "{{ torch_version }}" in unknown[0].message


def test_an_unknown_token_stops_the_build_before_any_kernel(fixture_site):
    demo = fixture_site / "docs" / "en" / "demo.md"
    demo.write_text(demo.read_text().replace("Some prose about gradients.", "Built with {{ torch }}."))
    done = subprocess.run([sys.executable, "-m", "torchnotes", "render"], cwd=fixture_site, capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert "docs/en/demo.md:" in done.stderr and "unknown token {{ torch }}" in done.stderr
    assert "kernels" not in done.stdout


def test_a_literal_or_a_token_wrapped_across_lines_is_still_found(tmp_path):
    """A paragraph wrapped between "PyTorch" and "2.15" reads "PyTorch 2.15" on the page all the same."""
    path = page(tmp_path, "en/a.md", "Intro.\n\nThis works since PyTorch\n2.15 and {{\ntorch_versoin }} too.\n")
    lines = path.read_text().split("\n")
    wrapped = next(n for n, text in enumerate(lines, 1) if text.endswith("since PyTorch"))
    problems = check_tokens(path, "2.15.0")
    assert [(type(p), p.line) for p in problems] == [(LiteralVersion, wrapped), (UnknownToken, wrapped + 1)]
    assert "'PyTorch 2.15' names the release" in problems[0].message
    apart = page(tmp_path, "en/b.md", "Intro.\n\nA paragraph ending in torch\n\n2.15 starts the next one.\n")
    assert check_tokens(apart, "2.15.0") == []
