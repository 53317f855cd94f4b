# Runs in every kernel before a page's first cell (IPKernelApp.exec_files), so it takes no In[] number.
# Everything happens inside a function: a page must import what it uses, as it would in Colab.


def _torchnotes_setup():
    import os
    import random

    import numpy
    import torch

    try:
        import matplotlib
    except ImportError:
        matplotlib = None
    if matplotlib is not None:
        matplotlib.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "svg.hashsalt": "torchnotes"})
        # Latin text keeps DejaVu Sans; Chinese titles and labels fall back glyph by glyph to Noto Sans CJK
        # (scripts/setup.sh installs it). Only when present: a missing family would log on every figure.
        from matplotlib import font_manager

        if any(font.name == "Noto Sans CJK SC" for font in font_manager.fontManager.ttflist):
            matplotlib.rcParams["font.family"] = ["DejaVu Sans", "Noto Sans CJK SC"]
        shell = get_ipython()  # noqa: F821
        shell.run_line_magic("config", "InlineBackend.figure_formats = ['png']")
        # No 'Software' chunk: the PNG bytes depend only on the picture.
        shell.run_line_magic(
            "config", "InlineBackend.print_figure_kwargs = {'bbox_inches': 'tight', 'metadata': {'Software': None}}"
        )
    # Seed just before the page's first cell: the kernel's own start-up reseeds Python's random.
    shell = get_ipython()  # noqa: F821

    def seed(*_):
        random.seed(0)
        numpy.random.seed(0)
        torch.manual_seed(0)
        shell.events.unregister("pre_run_cell", seed)

    shell.events.register("pre_run_cell", seed)
    limit = int(os.environ.get("TORCHNOTES_MEMORY_LIMIT_MB", "0"))
    if limit:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit * 2**20, limit * 2**20))


_torchnotes_setup()
del _torchnotes_setup
