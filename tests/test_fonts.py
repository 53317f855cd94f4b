"""A figure never shows boxes instead of characters, and the fonts matplotlib can use are part of what a cached
page depends on.

Fonts are taken away from matplotlib with its own switch (MPL_IGNORE_SYSTEM_FONTS: only the fonts it ships,
no CJK) and added in a user font folder (XDG_DATA_HOME/fonts); matplotlib's font list cache lives in tmp_path
(MPLCONFIGDIR), never the machine's.
"""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
from helpers import code, fixture_copy, page
from matplotlib import font_manager

from torchnotes.engine.explain import explain
from torchnotes.engine.fonts import font_files, font_fingerprint
from torchnotes.errors import MissingGlyph
from torchnotes.publish.paired import sync_pairs

FIGURE = code("""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([3, 2, 1])
    ax.set_title("{title}")
    plt.show()
""")


@pytest.fixture
def fonts(tmp_path_factory, monkeypatch):
    """A matplotlib cache of the test's own, and an empty user font folder that the test may install into;
    outside the project (tmp_path), where the kernel would record them as files the page read."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("MPLCONFIGDIR", str(home / "mplconfig"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    folder = home / "data" / "fonts"
    folder.mkdir(parents=True)
    return folder


def engine_now(make_engine, env):
    """An engine whose environment has the fonts as they are now (what probe() finds)."""
    return make_engine(dataclasses.replace(env, fonts=font_fingerprint()))


def test_a_zh_figure_without_a_cjk_font_fails_until_the_font_is_there(tmp_path, monkeypatch, fonts, make_engine, env):
    path = page(tmp_path, "zh/plot.md", code("x = 1") + FIGURE.replace("{title}", "损失曲线"), title="图")
    monkeypatch.setenv("MPL_IGNORE_SYSTEM_FONTS", "1")  # a machine without fonts-noto-cjk
    for _ in range(2):  # the failure is not cached: the second build runs the page again
        report = engine_now(make_engine, env).run([path])
        result = report.results[0]
        assert report.kernels == 1 and result.status == "failed"
        assert isinstance(result.error, MissingGlyph)
        message = result.error.message
        assert message.startswith("zh/plot.md:") and "(code cell 2)" in message
        assert "损失曲线" in message and "DejaVu Sans" in message and "fonts-noto-cjk" in message
    assert not list((tmp_path / "cache").glob("*.entry.json"))

    # The font comes back. matplotlib's cached font list still lacks it; the kernel scans again.
    monkeypatch.delenv("MPL_IGNORE_SYSTEM_FONTS")
    report = engine_now(make_engine, env).run([path])
    result = report.results[0]
    assert result.status == "run", result.error and result.error.message
    outputs = result.cell_outputs()[1]
    assert [o["output_type"] for o in outputs] == ["display_data"]
    assert "image/png" in outputs[0]["data"]


def test_installing_a_font_reruns_the_pages_that_draw_text_only(tmp_path, fonts, make_engine, env):
    plot = page(tmp_path, "en/plot.md", FIGURE.replace("{title}", "Loss") + code("""
        from matplotlib import font_manager

        print(any("/data/fonts/" in font.fname for font in font_manager.fontManager.ttflist))
    """))
    plain = page(tmp_path, "en/plain.md", code("print(1 + 1)"))
    first = engine_now(make_engine, env).run([plot, plain])
    assert [r.status for r in first.results] == ["run", "run"]
    assert first.results[0].cell_outputs()[1][0]["text"] == "False\n"
    before = font_fingerprint()

    # A user installs a font (matplotlib's own DejaVu Sans Mono, copied into ~/.local/share/fonts).
    shutil.copy(Path(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSansMono.ttf"), fonts / "Mono.ttf")
    after = font_fingerprint()
    assert after != before
    engine = engine_now(make_engine, env)
    why = explain(engine, plot)
    assert "miss" in why and "fonts changed" in why and before in why and after in why
    assert "hit" in explain(engine, plain)
    second = engine.run([plot, plain])
    assert [r.status for r in second.results] == ["run", "cached"] and second.kernels == 1
    assert second.results[0].cell_outputs()[1][0]["text"] == "True\n"  # the re-run page sees the new font

    # Nothing changed since: every page is served from the cache.
    engine = engine_now(make_engine, env)
    assert explain(engine, plot).startswith("en/plot.md: hit:")
    third = engine.run([plot, plain])
    assert [r.status for r in third.results] == ["cached", "cached"] and third.kernels == 0


def test_the_fingerprint_covers_the_files_matplotlib_scans(fonts, monkeypatch):
    """The build lists fonts as matplotlib.font_manager.findSystemFonts does, without importing matplotlib."""
    (fonts / "Mono.ttf").write_bytes(Path(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSansMono.ttf").read_bytes())
    theirs = set(font_manager.findSystemFonts()) | set(font_manager.findSystemFonts(fontext="afm"))
    ours = {str(p) for p in font_files()}
    assert str(fonts / "Mono.ttf") in ours
    assert ours == theirs
    monkeypatch.setenv("MPL_IGNORE_SYSTEM_FONTS", "1")
    assert font_files() == []
    assert font_fingerprint().startswith("0 font files")

    probe = "import sys, torchnotes.engine.environment as e; e.font_fingerprint(); print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"


@pytest.mark.slow  # two strict builds of the fixture site
def test_mkdocs_build_stops_at_boxes_and_passes_once_the_font_is_there(fonts, tmp_path):
    """The issue as a contributor met it: mkdocs build --strict on a machine without fonts-noto-cjk."""
    src = fixture_copy(tmp_path, synced=False)
    demo = src / "docs/zh/demo.md"
    demo.write_text(demo.read_text(encoding="utf-8").replace("plt.plot([0, 1], [0, 1])\n",
                                                             "plt.plot([0, 1], [0, 1])\nplt.title(\"直线\")\n"),
                    encoding="utf-8")
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])

    def build(**env):
        command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(src / "mkdocs.yml"),
                   "-d", str(tmp_path / "site")]
        return subprocess.run(command, capture_output=True, text=True, cwd=src, timeout=600,
                              env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env})

    done = build(MPL_IGNORE_SYSTEM_FONTS="1")
    assert done.returncode != 0
    assert re.search(r"docs/zh/demo\.md:\d+ \(code cell 4\): a figure draws 2 character\(s\) .*\(直线, "
                     r"missing from DejaVu Sans\)", done.stderr), done.stderr
    assert "fonts-noto-cjk" in done.stderr

    done = build()
    assert done.returncode == 0, done.stderr
    assert re.search(r"\d+ pages: [1-9]\d* run", done.stderr)  # the failed page was not cached
    folder = tmp_path / "site" / "zh" / "demo"
    published = (folder / "index.html").read_text(encoding="utf-8")
    figure = re.search(r'<img [^>]*class="nb-image"[^>]*src="(demo-code-4-[^"]+\.png)"', published)
    assert figure and (folder / figure[1]).read_bytes().startswith(b"\x89PNG")
    assert "missing from font" not in published
