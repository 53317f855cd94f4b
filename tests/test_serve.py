"""The preview survives real work: with `mkdocs serve` running as scripts/serve.sh runs it (--dirty: a rebuild
renders only what changed), a prose edit, a code edit, an edit to the zh twin, a new page from
scripts/new_page.py, a title change (every page's navigation names it), an edit to mkdocs.yml, a new and a
deleted file each show up in the served site with no manual command, and a deleted page goes away (with its
notebooks and its search entries) while the rest keeps being served. Nothing stale is served: after all of it,
every file of a fresh `mkdocs build` of the same sources is served with the same bytes."""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from helpers import ROOT

# Liveness, not speed: a rebuild that never comes is what this catches (scripts/benchmark_preview.py times them).
WAIT = 180


def serve_flags() -> list[str]:
    """The flags scripts/serve.sh gives `mkdocs serve`, without its config file (the fixture site has its own)."""
    for line in (ROOT / "scripts" / "serve.sh").read_text(encoding="utf-8").splitlines():
        words = shlex.split(line, comments=True)
        if "serve" in words and any(word.endswith("mkdocs") for word in words):
            flags = [word for word in words[words.index("serve") + 1:] if word != "$@"]
            while "-f" in flags:
                del flags[flags.index("-f"):flags.index("-f") + 2]
            return flags
    raise AssertionError("scripts/serve.sh runs no `mkdocs serve`")


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
            [sys.executable, "-m", "mkdocs", "serve", *serve_flags(), "-a", f"127.0.0.1:{self.port}"], cwd=site,
            env=env, stdout=self.log_file, stderr=subprocess.STDOUT)

    def get(self, rel: str) -> str | None:
        body = self.get_bytes(rel)
        return None if body is None else body.decode("utf-8")

    def get_bytes(self, rel: str) -> bytes | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/fixture/{rel}", timeout=10) as answer:
                return answer.read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None

    def wait_gone(self, rel: str) -> None:
        deadline = time.monotonic() + WAIT
        while self.get_bytes(rel) is not None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert self.get_bytes(rel) is None, f"{rel} is still served:\n{self.log()[-2000:]}"

    def wait_idle(self) -> None:
        """Until every rebuild begun has finished (the first build ends without a reload)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            log = self.log()
            if log.count("Building documentation...") == log.count("Reloading browsers") + 1:
                return
            time.sleep(0.5)
        pytest.fail(f"the server never went idle:\n{self.log()[-3000:]}", pytrace=False)

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


def search_index(preview: Preview, lang: str = "") -> str:
    """The language's packed search index as served, as text."""
    body = preview.get_bytes(f"{lang}/search/search_index.json" if lang else "search/search_index.json")
    assert body is not None, "no search index is served"
    return json.dumps(json.loads(body), ensure_ascii=False)


def served_as_built(preview: Preview, site: Path, tmp_path: Path) -> None:
    """Every file of a fresh `mkdocs build` of the preview's sources (at the preview's address) is served with the
    same bytes: nothing the preview serves is stale."""
    config = site / "fresh.yml"
    config.write_text(f"INHERIT: mkdocs.yml\nsite_url: http://127.0.0.1:{preview.port}/fixture/\n", encoding="utf-8")
    fresh = tmp_path / "fresh"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(fresh)], cwd=site,
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    differ = []
    for path in sorted(p for p in fresh.rglob("*") if p.is_file()):
        rel = path.relative_to(fresh).as_posix()
        built, served = path.read_bytes(), preview.get_bytes(rel)
        if served is not None and rel.endswith(".html"):
            served = _without_livereload(served)
        if served is not None and rel.endswith(".gz"):
            built, served = gzip.decompress(built), gzip.decompress(served)
        if served != built:
            differ.append(rel)
    assert not differ, f"served, but not as a fresh build makes them: {differ}"


def _without_livereload(html: bytes) -> bytes:
    """mkdocs serve adds one <script> right before </body> (the browser's reload)."""
    end = html.rindex(b"</body>")
    start = html.rindex(b"<script>", 0, end)
    return html[:start] + html[end:]


@pytest.mark.slow  # a real preview server, through every kind of edit, then a fresh build to compare with
def test_preview_follows_every_kind_of_edit_and_serves_nothing_stale(fixture_site, tmp_path):
    preview = Preview(fixture_site)
    try:
        preview.wait_for("demo/", "sum: 6")
        docs = fixture_site / "docs"

        edit(docs / "en/demo.md", "Some prose about gradients.", "Some prose about leaf tensors.")
        page = preview.wait_for("demo/", "Some prose about leaf tensors.")
        if "--dirty" in serve_flags():  # the rebuild rendered that page alone (dirty.py), the first one included
            preview.wait_idle()
            assert re.findall(r"dirty build: [\w ]+", preview.log())[-1] == "dirty build: only what changed rebuilt"
        assert "Fixture home" in page  # the navigation names the pages this rebuild did not render
        assert "leaf tensors" in search_index(preview) and "gradients" not in search_index(preview)

        runs_before = len(re.findall(r"pages: 1 run", preview.log()))
        edit(docs / "en/demo.md", 'print("sum:", torch.arange(4).sum().item())',
             'print("sum:", torch.arange(5).sum().item())')
        preview.wait_for("demo/", "sum: 10")
        # That page alone ran again: the zh twin's code did not change.
        assert len(re.findall(r"pages: 1 run, 1 cached", preview.log())) > runs_before
        assert (fixture_site / "notebooks/en/demo.ipynb").read_text().count("arange(5)") == 1  # kept in sync

        edit(docs / "zh/demo.md", "关于梯度 (gradient) 的说明。", "关于叶子张量 (leaf tensor) 的说明。")
        preview.wait_for("zh/demo/", "关于叶子张量")
        assert "叶子" in search_index(preview, "zh")

        done = subprocess.run([sys.executable, str(ROOT / "scripts/new_page.py"), "extra/einsum", "Einsum",
                               "爱因斯坦求和", "--section", "Extra", "--root", str(fixture_site)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        page = preview.wait_for("extra/einsum/", "Einsum")
        assert 'class="nb-output"' in page  # executed, not just copied
        preview.wait_for("zh/extra/einsum/", "爱因斯坦求和")
        assert "Einsum" in preview.get("")  # in the navigation of a page the edit did not touch
        assert "Einsum" in search_index(preview)

        # A page's title is in every page's navigation (and in the next/previous links of its neighbours).
        edit(docs / "en/demo.md", "title: Demo\n", "title: Demo renamed\n")
        preview.wait_for("", "Demo renamed")

        # mkdocs.yml: every page shows the site's name, those of the other language too.
        edit(fixture_site / "mkdocs.yml", "site_name: Fixture\n", "site_name: Fixture edited\n")
        preview.wait_for("zh/demo/", "Fixture edited")

        # A file beside the pages is served, and no longer once deleted.
        (docs / "assets" / "note.txt").write_text("a note\n", encoding="utf-8")
        preview.wait_for("assets/note.txt", "a note")
        (docs / "assets" / "note.txt").unlink()
        preview.wait_gone("assets/note.txt")

        # A save that changes nothing rebuilds the site and publishes nothing.
        preview.wait_idle()
        published = preview.log().count("published ")
        reloads = preview.log().count("Reloading browsers")
        index = docs / "en" / "index.md"
        index.write_bytes(index.read_bytes())
        deadline = time.monotonic() + WAIT
        while preview.log().count("Reloading browsers") == reloads and time.monotonic() < deadline:
            time.sleep(0.2)
        assert preview.log().count("published ") == published, preview.log()[-2000:]

        # Deleting a page (both languages and its nav line) keeps the preview working and takes its notebooks.
        config = fixture_site / "mkdocs.yml"
        config.write_text("\n".join(line for line in config.read_text().splitlines() if "einsum" not in line
                                    and "Extra:" not in line) + "\n")
        for lang in ("en", "zh"):
            (docs / lang / "extra" / "einsum.md").unlink()
        preview.wait_gone("extra/einsum/")
        preview.wait_for("demo/", "sum: 10")
        assert not list((fixture_site / "notebooks").rglob("einsum.ipynb")), "the deleted page's notebooks stayed"
        assert "Einsum" not in preview.get("") and "Einsum" not in search_index(preview)

        # Last, an edit that rebuilds one page only: the site is still the one a full build makes.
        edit(docs / "zh/demo.md", "关于叶子张量", "关于张量")
        preview.wait_for("zh/demo/", "关于张量 (leaf tensor)")
        preview.wait_idle()
        served_as_built(preview, fixture_site, tmp_path)
    finally:
        preview.close()
