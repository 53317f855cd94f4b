"""Kernels forked from the zygote (torchnotes.engine.zygote) are fresh processes: nothing is shared between pages,
and a page's outputs are the same bytes as from a kernel started from scratch."""

import os
import threading
import time

from helpers import code, page

PROBE = """
    import os, random, sys
    import numpy, torch
    print("parent is the build:", os.getppid() == {build})
    print("leak seen:", "torchnotes_leak" in sys.modules, hasattr(torch, "torchnotes_leak"))
    sys.modules["torchnotes_leak"] = sys
    torch.torchnotes_leak = 1
    print("threads:", torch.get_num_threads(), "cwd:", os.path.basename(os.getcwd()))
    print(os.getpid())
"""

SAME_EITHER_WAY = """
    import random, sys, warnings
    # What a page can import without importing it: the zygote preloads only what a kernel imports anyway (but
    # its own module, torchnotes.engine.zygote).
    print(sorted({name for name in sys.modules if not name.startswith("torchnotes.")} - {"torchnotes"}))
    import numpy, torch
    print(random.random(), numpy.random.rand(), torch.rand(2), hash("abc"))
    print(torch.get_num_threads(), torch.randn(3, 3) @ torch.randn(3, 3))
    warnings.warn("shown once per kernel")
    import matplotlib.pyplot as plt
    plt.plot([0, 1], [1, 0]); plt.show()
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


def test_forked_and_fresh_kernels_give_the_same_outputs(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", code(SAME_EITHER_WAY))
    forked = make_engine(fork=True).run([path]).results[0]
    fresh = make_engine(fork=False, mode="force").run([path]).results[0]
    assert forked.error is None and fresh.error is None
    assert forked.outputs == fresh.outputs
    kinds = [o["output_type"] for o in forked.cell_outputs()[0]]
    assert kinds == ["stream", "stream", "display_data"]  # the prints, the warning, the figure
    assert "'matplotlib'" in forked.cell_outputs()[0][0]["text"]  # kernel_setup.py imported it in both


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
