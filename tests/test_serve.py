"""The preview survives real work: with `mkdocs serve` running, a prose edit, a code edit, an edit to the zh
twin and a new page from scripts/new_page.py each show up in the served page with no manual command, and a
deleted page goes away (with its notebooks) while the rest keeps being served."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import ROOT

# Liveness, not speed: a rebuild that never comes is what this catches (scripts/benchmark.py times them).
WAIT = 180


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Preview:
    def __init__(self, site: Path):
        self.site = site
        self.port = free_port()
        self.log_path = site / "serve.log"
        self.log_file = self.log_path.open("w")
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{self.port}"], cwd=site, env=env,
            stdout=self.log_file, stderr=subprocess.STDOUT)

    def get(self, rel: str) -> str | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/fixture/{rel}", timeout=10) as answer:
                return answer.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None

    def wait_for(self, rel: str, text: str) -> str:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"mkdocs serve exited:\n{self.log()[-3000:]}"
            page = self.get(rel)
            if page is not None and text in page:
                return page
            time.sleep(0.5)
        pytest.fail(f"{rel} never showed {text!r} within {WAIT} s; serve log:\n{self.log()[-3000:]}", pytrace=False)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log_file.close()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path} no longer holds {old!r}: update this test with the fixture"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.slow  # a real preview server, through four edits
def test_preview_follows_prose_code_zh_and_new_page_edits(fixture_site):
    preview = Preview(fixture_site)
    try:
        preview.wait_for("demo/", "sum: 6")
        docs = fixture_site / "docs"

        edit(docs / "en/demo.md", "Some prose about gradients.", "Some prose about leaf tensors.")
        preview.wait_for("demo/", "Some prose about leaf tensors.")

        runs_before = len(re.findall(r"pages: 1 run", preview.log()))
        edit(docs / "en/demo.md", 'print("sum:", torch.arange(4).sum().item())',
             'print("sum:", torch.arange(5).sum().item())')
        preview.wait_for("demo/", "sum: 10")
        # That page alone ran again: the zh twin's code did not change.
        assert len(re.findall(r"pages: 1 run, 1 cached", preview.log())) > runs_before
        assert (fixture_site / "notebooks/en/demo.ipynb").read_text().count("arange(5)") == 1  # kept in sync

        edit(docs / "zh/demo.md", "关于梯度 (gradient) 的说明。", "关于叶子张量 (leaf tensor) 的说明。")
        preview.wait_for("zh/demo/", "关于叶子张量")

        done = subprocess.run([sys.executable, str(ROOT / "scripts/new_page.py"), "extra/einsum", "Einsum",
                               "爱因斯坦求和", "--section", "Extra", "--root", str(fixture_site)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        page = preview.wait_for("extra/einsum/", "Einsum")
        assert 'class="nb-output"' in page  # executed, not just copied
        preview.wait_for("zh/extra/einsum/", "爱因斯坦求和")

        # Deleting a page (both languages and its nav line) keeps the preview working and takes its notebooks.
        config = fixture_site / "mkdocs.yml"
        config.write_text("\n".join(line for line in config.read_text().splitlines() if "einsum" not in line
                                    and "Extra:" not in line) + "\n")
        for lang in ("en", "zh"):
            (docs / lang / "extra" / "einsum.md").unlink()
        deadline = time.monotonic() + WAIT
        while preview.get("extra/einsum/") is not None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert preview.get("extra/einsum/") is None, f"the deleted page is still served:\n{preview.log()[-2000:]}"
        preview.wait_for("demo/", "sum: 10")
        assert not list((fixture_site / "notebooks").rglob("einsum.ipynb")), "the deleted page's notebooks stayed"
    finally:
        preview.close()
