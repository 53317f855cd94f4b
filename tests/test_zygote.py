"""Kernels forked from the zygote (torchnotes.engine.zygote) are fresh processes: nothing is shared between pages,
and a page's outputs are the same bytes as from a kernel started from scratch."""

import os

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
    import random, warnings
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
