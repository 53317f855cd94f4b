"""The zygote process: imports what every kernel needs once, then forks a kernel per request.

Run by the engine as `python -m torchnotes.engine.zygote_server` (torchnotes/engine/zygote.py is the engine's
side). It reads one JSON request per line on stdin and answers one line on stdout:
- {"argv": [...], "env": {...}, "cwd": "..."}: fork a kernel, which starts ipykernel exactly as
  `python -m ipykernel_launcher` would, in the page's folder, with the kernel's environment; answers {"pid": N};
- {"import": [...]}: import more modules for the kernels forked after it; answers {"imported": [...]};
- anything it cannot do: {"error": "..."}.
It dies with the build (parent-death signal), and its kernels with it.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import json
import os
import signal
import sys

# The modules every kernel imports anyway, before its first cell: kernel_setup.py imports numpy and torch,
# ipykernel its shell, debugger and magics. Imported once here, they cost a kernel nothing, and a page sees the
# same modules as in a kernel started from scratch (tests/test_zygote.py).
PRELOAD = ("numpy", "torch", "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell",
           "ipykernel.debugger", "IPython.core.magics", "IPython.core.completerlib", "IPython.extensions.storemagic")
# Not matplotlib: its import reads the backend (MPLBACKEND, which ipykernel sets when it starts) and the page
# folder's matplotlibrc, and most pages never import it (kernel_setup.py configures it when a page does).
# What torch imports itself when a page first steps an optimizer or calls torch.func (900 modules, a second;
# two in five pages here). It draws no random number and reads nothing of the page: the outputs are the same
# bytes (tests/test_zygote.py). Imported on request, by builds with pages enough to repay it (scheduler.py).
PRELOAD_FOR_TORCH = ("torch._dynamo",)


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _reap(*_) -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        return


def _child(request: dict, answer_fd: int) -> None:
    """In the forked child: become the kernel. Never returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the kernel waits for its own subprocesses
        os.setpgid(0, 0)
        os.close(answer_fd)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)  # the zygote's stdout is its answer pipe; kernel chatter goes where a kernel's would
        os.environ.clear()
        os.environ.update(request["env"])
        # The kernel's parent is the zygote: ipykernel's parent poll and kernel_setup's parent-death signal
        # watch it, and the zygote dies with the build.
        os.environ["JPY_PARENT_PID"] = os.environ["TORCHNOTES_BUILD_PID"] = str(os.getppid())
        os.chdir(request["cwd"])
        # IPKernelApp read JPY_PARENT_PID when the zygote imported it: name the parent on the command line.
        sys.argv = ["ipykernel_launcher", *request["argv"], f"--IPKernelApp.parent_handle={os.getppid()}"]
        if sys.path and sys.path[0] in ("", os.getcwd()):
            del sys.path[0]  # as ipykernel_launcher does
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _settle() -> None:
    """After imports, do once what each kernel would otherwise redo, with the same results.

    - inspect's index of module files: IPython looks up the module of every traceback frame (inspect.getmodule),
      whose first call walks every loaded module, 4,000 with PRELOAD_FOR_TORCH (0.2 s a kernel). Built here, a
      kernel indexes only the modules it imports itself.
    - The collector skips what is imported (gc.freeze): a kernel's collections do not walk these objects again,
      nor touch, and so copy, the memory pages it shares with the zygote.
    """
    inspect.getmodule(sys._getframe())
    gc.freeze()


def folder_states(folders: list[str]) -> list[list]:
    """Each folder with its modification time (None where it is missing): installing or removing a package in a
    folder changes its time. The engine compares them again before it forks from this zygote (zygote.py)."""
    states = []
    for folder in folders:
        try:
            states.append([folder, os.stat(folder or ".").st_mtime_ns])
        except OSError:
            states.append([folder, None])
    return states


def serve() -> None:
    _die_with_parent()
    # The folders the kernels import from, taken before the imports: the first, the working folder that `-m` put
    # there, is dropped by each kernel (_child), as ipykernel_launcher drops it.
    imports_from = folder_states(sys.path[1:] if sys.path and sys.path[0] in ("", os.getcwd()) else sys.path)
    for name in PRELOAD:
        importlib.import_module(name)
    _settle()
    signal.signal(signal.SIGCHLD, _reap)
    out = sys.stdout
    out.write(json.dumps({"ready": True, "imports_from": imports_from}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            if "import" in request:
                answer = {"imported": [importlib.import_module(name).__name__ for name in request["import"]]}
                _settle()
            elif (pid := os.fork()) == 0:
                _child(request, out.fileno())
            else:
                answer = {"pid": pid}
                try:
                    os.setpgid(pid, pid)  # also done by the child: whichever runs first, the group exists now
                except (ProcessLookupError, PermissionError):
                    pass
        except (ValueError, OSError, ImportError) as error:
            answer = {"error": f"{error.__class__.__name__}: {error}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
