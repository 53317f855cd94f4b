# Runs in every kernel before a page's first cell (IPKernelApp.exec_files), so it takes no In[] number.
# Everything happens inside a function: a page must import what it uses, as it would in Colab.


def _die_with_the_build(os, sys):
    """A kernel must not outlive its build (kill -9 of the build): ask Linux to kill it when its parent dies."""
    build = int(os.environ.get("TORCHNOTES_BUILD_PID", "0"))
    if not build or not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != build:  # the build died before the request took effect
        os._exit(1)


def _guard_pages(os, sys):
    """The page runs in a scratch folder of its own, which links the files beside the page (torchnotes.engine.
    execute.work_folder): what it writes by a relative path stays there. A write that reaches the pages' folder
    anyway (through a link, or an absolute path) is refused before anything is written, so nothing a page makes is
    published, nor taken for an input of its cache entry."""
    protected = os.environ.get("TORCHNOTES_PROTECTED")
    if not protected:
        return
    top = os.path.realpath(protected) + os.sep
    write = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    changes = {"os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.rename": (0, 1), "os.symlink": (1,),
               "os.link": (1,), "os.truncate": (0,), "shutil.rmtree": (0,), "shutil.move": (0, 1)}

    def refused(path):
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return False
        return os.path.realpath(path).startswith(top)

    def audit(event, args):
        if event == "open":
            path, mode, flags = args
            writes = (mode is None and flags & write) or (mode is not None and any(c in mode for c in "wax+"))
            paths = (path,) if writes else ()
        else:
            paths = tuple(args[i] for i in changes.get(event, ()) if i < len(args))
        for path in paths:
            if refused(path):
                raise PermissionError(f"[torchnotes] the page writes into the pages' folder: {os.path.realpath(path)}")

    sys.addaudithook(audit)


def _record_inputs(os, sys):
    """Which project files the page reads or imports, and which packages it uses, for the cache entry.

    An audit hook sees every open(); the engine asks for the record in a last, hidden cell.
    """
    import types

    root = os.environ.get("TORCHNOTES_ROOT")
    if not root:
        return
    opened = set()
    write = os.O_WRONLY | os.O_RDWR
    # Installed distributions as the build sees them: sys.path before the page ran. Packages put folders of
    # their own on sys.path (setuptools' _vendor, imported by torch.utils.cpp_extension), whose copies the
    # build cannot see: counting them would make such a page a cache miss on every build.
    installed = [p for p in sys.path if "_vendor" not in p.split(os.sep)]

    def audit(event, args):
        if event != "open":
            return
        path, mode, flags = args
        if not isinstance(path, str):
            return
        if (mode is None and flags & write) or (mode is not None and ("w" in mode or "a" in mode or "x" in mode or "+" in mode)):
            return
        opened.add(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))

    realpath = _realpaths(os)  # noqa: F821 (bound now: the set-up's names are deleted before the page runs)
    packages_of = _packages  # noqa: F821

    def dump():
        import importlib.metadata
        import json

        candidates = opened | {m.__file__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__file__", None), str)}
        # Compiled extensions are what a page built, not what it read (their sources are in its code).
        built = [os.environ["TORCH_EXTENSIONS_DIR"]] if os.environ.get("TORCH_EXTENSIONS_DIR") else []
        skip = [os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, *built}]
        top = os.path.realpath(root) + os.sep
        files = set()
        for path in candidates:
            real = realpath(path)
            parts = real.split(os.sep)
            if (real.startswith(top) and not any(real.startswith(s) for s in skip) and "__pycache__" not in parts
                    and "site-packages" not in parts and "dist-packages" not in parts and os.path.isfile(real)):
                files.add(os.path.relpath(real, top))
        imported = {name.partition(".")[0] for name in list(sys.modules)} - set(sys.stdlib_module_names)
        packages = packages_of(importlib.metadata, installed, imported)
        # matplotlib.text (not imported by _configure_matplotlib): the page drew, or could draw, text with the fonts.
        draws_text = "matplotlib.text" in sys.modules
        print(json.dumps({"files": sorted(files), "packages": dict(sorted(packages.items())), "draws_text": draws_text}))

    sys.addaudithook(audit)
    sys.modules["_torchnotes_inputs"] = types.SimpleNamespace(dump=dump)


def _packages(metadata, installed, imported):
    """{name: version} of the distributions on `installed` that the page imported from; the first on the path is
    the one imported. Only those whose top-level names the page imported have their metadata parsed (a kernel
    would parse all 130 otherwise); one without top_level.txt goes by its name."""
    found = {}
    for dist in metadata.distributions(path=installed):
        tops = (dist.read_text("top_level.txt") or "").split()
        if tops and not imported.intersection(tops):
            continue
        fields = dist.metadata
        name = fields["Name"]
        if name and name not in found and imported.intersection(tops or [name.lower().replace("-", "_")]):
            found[name] = fields["Version"]
    return found


def _realpaths(os):
    """os.path.realpath, one path component at a time and remembered: the thousands of files a page has loaded
    live in a few hundred folders, which share their parents. A component that is a link is resolved whole, and
    "." or ".." by os.path.realpath, so the result is os.path.realpath's."""
    known = {}

    def realpath(path):
        if path not in known:
            head, tail = os.path.split(path)
            if tail in ("", ".", ".."):
                known[path] = os.path.realpath(path)
            else:
                joined = os.path.join(realpath(head), tail)
                known[path] = os.path.realpath(joined) if os.path.islink(joined) else joined
        return known[path]

    return realpath


def _rescan_fonts(os, matplotlib, font_manager):
    """matplotlib builds its font list once and keeps it in a cache file, so a font installed later stays
    invisible to it. The build passes the fingerprint of the font files (fonts.font_fingerprint): when it
    is not the one the cached list was made from, scan again, as matplotlib does for a font file that is gone."""
    fonts = os.environ.get("TORCHNOTES_FONTS")
    if not fonts:
        return
    marker = os.path.join(matplotlib.get_cachedir(), f"torchnotes-fonts-v{font_manager.FontManager.__version__}.txt")
    try:
        with open(marker, encoding="utf-8") as handle:
            if handle.read() == fonts:
                return
    except FileNotFoundError:
        pass
    # Rewrites matplotlib's cache file too; updated in place, like matplotlib does: findfont is bound to it.
    vars(font_manager.fontManager).update(vars(font_manager._load_fontmanager(try_read_cache=False)))
    try:
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write(fonts)
    except OSError:  # a read-only cache folder: the next kernel scans again, which costs time, not outputs
        return


def _when_imported(sys, name, then):
    """Call then(module) once `name` is imported, right after the module's own code and before the importer's
    next line: a meta path finder that finds nothing itself but wraps the loader the others find (wrapt's
    post-import hooks do the same). The module keeps its real loader, and the finder goes after its one use."""
    import importlib.abc
    import importlib.util

    if name in sys.modules:
        then(sys.modules[name])
        return

    class Then(importlib.abc.Loader):
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            module.__loader__ = module.__spec__.loader = self.loader
            self.loader.exec_module(module)
            then(module)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is not None and spec.loader is not None:
                spec.loader = Then(spec.loader)
            return spec

    sys.meta_path.insert(0, Finder())


def _configure_matplotlib(os, shell, rescan_fonts):
    """The figures' settings, applied to matplotlib when the page imports it (an import costs a kernel 0.09 s: a
    page that draws nothing does not pay it, nor record matplotlib among the packages it used)."""

    def configure(matplotlib):
        matplotlib.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "svg.hashsalt": "torchnotes"})
        # Latin text keeps DejaVu Sans; Chinese titles and labels fall back glyph by glyph to Noto Sans CJK
        # (scripts/setup.sh installs it). Only when present: a missing family would log on every figure.
        from matplotlib import font_manager

        rescan_fonts(os, matplotlib, font_manager)
        if any(font.name == "Noto Sans CJK SC" for font in font_manager.fontManager.ttflist):
            matplotlib.rcParams["font.family"] = ["DejaVu Sans", "Noto Sans CJK SC"]
        shell.run_line_magic("config", "InlineBackend.figure_formats = ['png']")
        # No 'Software' chunk: the PNG bytes depend only on the picture.
        shell.run_line_magic(
            "config", "InlineBackend.print_figure_kwargs = {'bbox_inches': 'tight', 'metadata': {'Software': None}}"
        )

    return configure


def _torchnotes_setup():
    import os
    import random
    import sys

    _die_with_the_build(os, sys)  # noqa: F821 (deleted from the namespace after the call below)
    _record_inputs(os, sys)  # noqa: F821
    _guard_pages(os, sys)  # noqa: F821

    import numpy
    import torch

    shell = get_ipython()  # noqa: F821
    _when_imported(sys, "matplotlib", _configure_matplotlib(os, shell, _rescan_fonts))  # noqa: F821

    # Seed just before the page's first cell: the kernel's own start-up reseeds Python's random.
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
del _torchnotes_setup, _die_with_the_build, _record_inputs, _guard_pages, _packages, _realpaths, _rescan_fonts, _when_imported, _configure_matplotlib
