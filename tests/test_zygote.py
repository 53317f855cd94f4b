"""Kernels forked from the zygote (torchnotes.engine.zygote) are fresh processes: nothing is shared between pages,
and a page's outputs are the same bytes as from a kernel started from scratch."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from helpers import code, fixture_copy, page

PROBE = """
    import os, random, sys
    import numpy, torch
    print("parent is the build:", os.getppid() == {build})
    print("leak seen:", "torchnotes_leak" in sys.modules, hasattr(torch, "torchnotes_leak"))
    sys.modules["torchnotes_leak"] = sys
    torch.torchnotes_leak = 1
    # The page runs in a scratch folder that links the files beside it: the folder those are in.
    print("threads:", torch.get_num_threads(), "cwd:", os.path.basename(os.path.dirname(os.path.realpath(os.listdir(".")[0]))))
    print(os.getpid())
"""

SAME_EITHER_WAY = """
    import json, random, sys, warnings
    def modules(when):
        # The modules a page sees, but the zygote's own (torchnotes.engine.zygote_server); too many to print whole.
        seen = sorted({name for name in sys.modules if not name.startswith("torchnotes.")} - {"torchnotes"})
        with open(f"{OUT}/modules-{when}.json", "w") as file:  # beside the page, not in its scratch folder
            json.dump(seen, file)
    modules("start")
    import numpy, torch
    # An optimizer's first step imports torch._dynamo in a fresh kernel; a forked one has it already. The
    # numbers drawn after it must not tell the two apart.
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 2)).sum().backward()
    optimizer.step()
    print(random.random(), numpy.random.rand(), torch.rand(2), hash("abc"), model.weight)
    print(torch.get_num_threads(), torch.randn(3, 3) @ torch.randn(3, 3))
    warnings.warn("shown once per kernel")
    import matplotlib.pyplot as plt
    plt.plot([0, 1], [1, 0]); plt.show()
    try:
        torch.nn.Linear(3, 2)(torch.ones(4, 5))  # raises two frames deep in torch.nn
    except RuntimeError:
        get_ipython().showtraceback()  # as an error cell shows it: the frames' modules and source, coloured
    modules("end")
"""

# What the zygote imports for torch beyond what every kernel imports (PRELOAD_FOR_TORCH), as a fresh process
# that has imported numpy and torch would.
FOR_TORCH = """
import importlib, json, sys
import numpy, torch
from torchnotes.engine.zygote_server import PRELOAD_FOR_TORCH
before = set(sys.modules)
for name in PRELOAD_FOR_TORCH:
    importlib.import_module(name)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_each_page_gets_its_own_forked_process(tmp_path, make_engine):
    build = os.getpid()
    first = page(tmp_path, "en/one/a.md", code(PROBE.format(build=build)))
    second = page(tmp_path, "en/two/b.md", code(PROBE.format(build=build) + "    # another page"))
    report = make_engine().run([first, second])
    assert report.kernels == 2 and not report.failures
    texts = [r.cell_outputs()[0][0]["text"].splitlines() for r in report.results]
    for text, folder in zip(texts, ("one", "two")):
        # Forked by the zygote, not started by this process; nothing the other page did is visible.
        assert text[:3] == ["parent is the build: False", "leak seen: False False", f"threads: 1 cwd: {folder}"]
    assert texts[0][3] != texts[1][3]  # two processes


@pytest.mark.slow  # every page of the fixture site executed twice, forked and fresh
def test_forked_and_fresh_kernels_give_the_same_outputs(tmp_path, make_engine):
    from torchnotes.engine.scheduler import PRELOAD_FOR_TORCH_FROM

    path = page(tmp_path, "en/a.md", code(SAME_EITHER_WAY.replace("{OUT}", str(tmp_path / "en"))))
    others = [page(tmp_path, f"en/other{n}.md", code(f"print({n})")) for n in range(PRELOAD_FOR_TORCH_FROM - 1)]

    def run(pages, **how):
        result = make_engine(mode="force", **how).run(pages).results[0]
        assert result.error is None
        return result, {when: set(json.loads((path.parent / f"modules-{when}.json").read_text()))
                        for when in ("start", "end")}

    fresh, fresh_modules = run([path], fork=False)
    # A zygote of its own for each build (zygotes=None): one page alone, then enough pages to preload for torch.
    alone, alone_modules = run([path], zygotes=None)
    many, many_modules = run([path, *others], zygotes=None)
    assert alone.outputs == fresh.outputs == many.outputs
    kinds = [o["output_type"] for o in fresh.cell_outputs()[0]]
    assert kinds == ["stream", "stream", "display_data", "error"]  # the prints, the warning, the figure, the traceback
    assert "torch/nn/modules/module.py" in "".join(fresh.cell_outputs()[0][3]["traceback"])
    # kernel_setup.py configures matplotlib when a page imports it, in both: not before.
    assert "matplotlib" not in fresh_modules["start"] and "matplotlib.pyplot" in fresh_modules["end"]
    assert alone_modules == fresh_modules
    # With enough pages, a page also finds what the zygote imports for torch before its first line, and nothing
    # else; once the page has stepped its optimizer, the two are the same.
    for_torch = json.loads(subprocess.run([sys.executable, "-c", FOR_TORCH], capture_output=True, text=True,
                                          check=True).stdout)
    assert "torch._dynamo" in for_torch and "torch._dynamo" not in fresh_modules["start"]
    assert many_modules["start"] == fresh_modules["start"] | set(for_torch)
    assert many_modules["end"] == fresh_modules["end"]


def test_a_session_keeps_its_zygote_across_builds_and_starts_one_per_keyed_variables(tmp_path, make_engine, monkeypatch):
    """`mkdocs serve` keeps one Zygotes across rebuilds: a code edit forks at once instead of importing torch again.
    A keyed variable (one the cache key holds) gets a zygote of its own, and a zygote that died is started again."""
    from torchnotes.engine.zygote import Zygotes

    pool = Zygotes()
    pages = [page(tmp_path, f"en/p{n}.md", code(f"import os\nprint({n}, os.environ.get('CUDA_LAUNCH_BLOCKING'))"))
             for n in range(4)]

    def build(path):
        report = make_engine(zygotes=pool).run([path])
        assert report.kernels == 1 and not report.failures
        return report.results[0].cell_outputs()[0][0]["text"]

    try:
        # The first build on a thread that ends with it (as Engine.run inside an event loop does): its zygote
        # must outlive that thread.
        done = []
        worker = threading.Thread(target=lambda: done.append(build(pages[0])))
        worker.start()
        worker.join()
        assert done == ["0 None\n"]
        (first,) = pool.started.values()
        time.sleep(0.5)
        assert first.process.poll() is None, "the session's zygote died with the build's thread"
        assert build(pages[1]) == "1 None\n" and list(pool.started.values()) == [first]  # the next build: the same one
        monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "1")
        assert build(pages[2]) == "2 1\n" and len(pool.started) == 2
        monkeypatch.delenv("CUDA_LAUNCH_BLOCKING")
        first.process.kill()
        first.process.wait()
        assert build(pages[3]) == "3 None\n" and first not in pool.started.values() and len(pool.started) == 2
        kept = list(pool.started.values())
    finally:
        pool.close()
    assert pool.started == {} and all(z.process.poll() is not None for z in kept)


def test_a_package_changed_where_the_kernels_import_from_starts_a_new_zygote(tmp_path, make_engine, monkeypatch):
    """A zygote that imported a package must not fork kernels after the package was installed again (pip install -U):
    the session starts a new one. Files written where only this process imports from (pytest's rootdir, a script's
    folder: another worker's first build writes there) keep the zygote: they change nothing a kernel imports."""
    from torchnotes.engine import zygote

    lib, ours = tmp_path / "lib", tmp_path / "ours"
    lib.mkdir()
    ours.mkdir()
    (lib / "installed_pkg.py").write_text("VERSION = 1\n")
    monkeypatch.setenv("PYTHONPATH", str(lib))
    monkeypatch.syspath_prepend(str(ours))
    monkeypatch.setattr(zygote, "PRELOAD_FOR_TORCH", ("installed_pkg",))
    pages = [page(tmp_path, f"en/p{n}.md", code(f"import installed_pkg\nprint({n}, installed_pkg.VERSION)"))
             for n in range(3)]
    pool = zygote.Zygotes()

    def build(path):
        report = make_engine(zygotes=pool).run([path])
        assert report.kernels == 1 and not report.failures
        return report.results[0].cell_outputs()[0][0]["text"]

    try:
        assert build(pages[0]) == "0 1\n"
        (first,) = pool.started.values()
        first.preload_for_torch()  # the zygote holds installed_pkg 1 now, as it holds torch
        (ours / "written_by_a_build.txt").write_text("")
        assert build(pages[1]) == "1 1\n" and list(pool.started.values()) == [first]
        (lib / "installed_pkg.py").unlink()  # as pip does: the old files go, the new ones come
        (lib / "installed_pkg.py").write_text("VERSION = 2\n")
        assert build(pages[2]) == "2 2\n"
        (second,) = pool.started.values()
        assert second is not first and first.process.poll() is not None
    finally:
        pool.close()


def test_a_preload_that_fails_is_reported_and_the_build_goes_on(tmp_path, make_engine, monkeypatch, caplog):
    """Each build says why its kernels import torch's compiler themselves; a session's zygote is asked once."""
    from torchnotes.engine import zygote

    monkeypatch.setattr(zygote, "PRELOAD_FOR_TORCH", ("torchnotes_no_such_module",))
    asked = []
    ask = zygote.Zygote._ask
    monkeypatch.setattr(zygote.Zygote, "_ask", lambda self, request: asked.append(request) or ask(self, request))
    pool = zygote.Zygotes()
    try:
        for build in range(2):
            pages = [page(tmp_path, f"en/p{n}.md", code(f"print({build}, {n})")) for n in range(3)]
            engine = make_engine(zygotes=pool)
            report = engine.run(pages)
            assert not report.failures and report.kernels == 3
            assert [r.cell_outputs()[0][0]["text"] for r in report.results] == [f"{build} {n}\n" for n in range(3)]
            said = [line for line in caplog.messages if "torch's compiler" in line]
            caplog.clear()
            assert said == ["kernels import torch's compiler themselves: the zygote could not import "
                            "('torchnotes_no_such_module',): ModuleNotFoundError: No module named "
                            "'torchnotes_no_such_module'"]
    finally:
        pool.close()
    assert [request for request in asked if "import" in request] == [{"import": ["torchnotes_no_such_module"]}]


def test_a_cold_cache_starts_the_zygote_before_the_pages_are_read_and_a_warm_one_does_not(tmp_path, make_engine):
    """A cold build (no entry in the cache: a fresh clone, CI) starts its zygote, with torch's compiler asked for, before
    the pages are read and checked; the run forks from that one. A build with entries in its cache starts none
    ahead: most of its pages may come from the cache."""
    pages = [page(tmp_path, f"en/p{n}.md", code(f"import os\nprint({n}, os.getppid() != {os.getpid()})")) for n in range(3)]
    engine = make_engine(zygotes=None)
    engine.start_early(pages)
    early = engine.early
    assert early is not None and early.process.poll() is None
    report = engine.run(pages)
    assert not report.failures and report.kernels == 3
    assert [r.cell_outputs()[0][0]["text"] for r in report.results] == [f"{n} True\n" for n in range(3)]
    assert engine.early is None and early.for_torch and early.process.poll() is not None  # taken, used, closed
    warm = make_engine(zygotes=None)
    warm.start_early(pages)
    assert warm.early is None


def test_a_zygote_started_ahead_is_closed_when_no_page_runs(tmp_path, make_engine):
    """The checks stop the build before any kernel (Publisher.run closes it), or every page is static."""
    static = page(tmp_path, "en/static.md", "No code here.\n")
    engine = make_engine(zygotes=None)
    engine.start_early([static])
    early = engine.early
    engine.close_early()
    assert engine.early is None and early.process.poll() is not None
    engine = make_engine(zygotes=None)
    engine.start_early([static])
    early = engine.early
    report = engine.run([static])
    assert report.kernels == 0 and engine.early is None and early.process.poll() is not None


def test_a_preload_asked_ahead_is_answered_before_the_first_fork(tmp_path, make_engine):
    """Asked ahead for a build of many pages, the preload's answer is read before the first fork's, also when the
    build turns out to run fewer kernels than it takes to preload: each answer goes to its own question."""
    only, *more = [page(tmp_path, f"en/p{n}.md", code(f"print('forked' if {n} == 0 else {n})")) for n in range(3)]
    engine = make_engine(zygotes=None)
    engine.start_early([only, *more])
    report = engine.run([only])
    assert not report.failures and report.kernels == 1
    assert report.results[0].cell_outputs()[0][0]["text"] == "forked\n"


def test_a_session_starts_its_zygote_ahead_on_a_cold_cache_and_keeps_it(tmp_path, make_engine):
    from torchnotes.engine.zygote import Zygotes

    pool = Zygotes()
    pages = [page(tmp_path, f"en/p{n}.md", code(f"print({n})")) for n in range(3)]
    try:
        engine = make_engine(zygotes=pool)
        engine.start_early(pages)
        assert engine.early is None and len(pool.starting) == 1 and pool.started == {}
        report = engine.run(pages)
        assert not report.failures and report.kernels == 3
        (kept,) = pool.started.values()
        assert pool.starting == {} and kept.for_torch and kept.process.poll() is None  # the session keeps it
    finally:
        pool.close()
    assert kept.process.poll() is not None


def test_a_preview_session_starts_its_zygote_ahead_on_a_warm_cache_too(tmp_path, make_engine):
    """A preview (`mkdocs serve`) finds every page in the cache, then waits for its first code edit: its zygote starts
    with its first build, where a build's session (mkdocs build) starts none on a warm cache."""
    from torchnotes.engine.zygote import Zygotes

    pages = [page(tmp_path, f"en/p{n}.md", code(f"print({n})")) for n in range(2)]
    assert not make_engine().run(pages).failures  # the cache is warm
    plain, preview = Zygotes(), Zygotes(ahead=True)
    try:
        make_engine(zygotes=plain).start_early(pages)
        assert plain.starting == {} and plain.started == {}
        engine = make_engine(zygotes=preview)
        engine.start_early(pages)
        assert engine.early is None and len(preview.starting) == 1
        assert engine.run(pages).count("cached") == 2  # nothing ran: the zygote is kept for the first edit
        (ahead,) = preview.starting.values()
        zygote = ahead.result()
        assert not zygote.for_torch and zygote.process.poll() is None  # without torch's compiler: a warm cache
    finally:
        plain.close()
        preview.close()
    assert zygote.process.poll() is not None


def test_a_cold_build_imports_torchs_compiler_ahead_only_for_pages_enough_with_code(tmp_path, make_engine, monkeypatch):
    """A cold build starts its zygote before it reads the pages, with torch's compiler (a second) asked for when
    three pages or more have code: the pages without code (home pages, reports) never run a kernel."""
    from torchnotes.engine.zygote import Zygote
    from torchnotes.pages.fences import has_code_cell

    asked = []
    monkeypatch.setattr(Zygote, "ask_preload", lambda self: asked.append(self))
    src = fixture_copy(tmp_path / "site", synced=False)
    pages = sorted((src / "docs").rglob("*.md"))
    with_code = [p.relative_to(src / "docs").as_posix() for p in pages if has_code_cell(p)]
    assert with_code == ["en/demo.md", "zh/demo.md"] and len(pages) == 6
    for extra, preloads in (([], 0), ([page(tmp_path, "en/third.md", code("print(3)"))], 1)):
        engine = make_engine(zygotes=None)
        engine.start_early(pages + extra)
        early = engine.early
        engine.close_early()
        assert early is not None and len(asked) == preloads, (extra, asked)
    # Not UTF-8: counted all the same (reading it, the checks name it); a file that is not there has no code.
    (src / "docs" / "en" / "latin1.md").write_bytes(b"caf\xe9\n```python\nprint(1)\n```\n")
    assert has_code_cell(src / "docs" / "en" / "latin1.md") and not has_code_cell(src / "docs" / "en" / "missing.md")
