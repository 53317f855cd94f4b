"""Fresh kernels without the start-up tax: a zygote process imports torch once and forks a kernel per page.

Every page still runs in a process of its own, started for it and discarded after it: a fork of a process
that has imported numpy, torch and IPython and done nothing else (no thread pool started, no seed drawn,
no cell run). The child then starts ipykernel exactly as `python -m ipykernel_launcher` would, in the page's
folder, with the kernel's environment; kernel_setup.py seeds everything before the first cell as before.

This is the engine's side: Zygote (start, fork, close) and Zygotes (kept for a session); forked.py holds
ForkedKernelManager, a jupyter_client kernel manager whose kernels come from the zygote. Kernels whose command is
not this interpreter's ipykernel (another kernelspec) are launched as usual. The zygote process itself is
zygote_server.py.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import sys
import threading

from torchnotes.engine.environment import keyed_variables
from torchnotes.engine.forked import ForkedKernelManager, ForkedProcess
from torchnotes.engine.zygote_server import PRELOAD_FOR_TORCH, folder_states


class ZygoteFailed(RuntimeError):
    pass


class Zygote:
    """The engine's handle on one zygote process: fork() gives a kernel process running `argv`."""

    def __init__(self, env: dict[str, str], python: str = sys.executable, *, wait: bool = True):
        """wait: until the zygote has imported torch (without, the first use of it waits: started())."""
        # The zygote's environment is the kernels' environment: OMP_NUM_THREADS and friends are read once,
        # when torch's libraries load, which happens in the zygote.
        self.process = subprocess.Popen(
            [python, "-m", "torchnotes.engine.zygote_server"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True, start_new_session=True)
        self.python = python
        self.for_torch = False  # PRELOAD_FOR_TORCH imported
        self.for_torch_failed: ZygoteFailed | None = None  # said once: a session's later builds are not slowed to retry
        self._preload_asked = False  # asked ahead (ask_preload), its answer not read yet
        self._lock = threading.Lock()
        # What nbclient instantiates for each page: a kernel manager bound to this zygote.
        self.kernel_manager_class = type("ZygoteKernelManager", (ForkedKernelManager,), {"zygote": self})
        self.imports_from: list[list] | None = None  # its sys.path, each folder with its time, once it is ready
        if wait:
            self.started()

    def started(self) -> None:
        """Wait until the zygote is ready to fork (it has imported torch); ZygoteFailed if it never will be."""
        if self.imports_from is not None:
            return
        ready = json.loads(self.process.stdout.readline() or "{}")
        if ready.get("ready") is not True:
            self.close()
            raise ZygoteFailed(f"the zygote did not start (exit {self.process.poll()})")
        self.imports_from = ready["imports_from"]

    def outdated(self) -> bool:
        """A package was installed or removed where this zygote imports from, since it started: the kernels it
        would fork hold what it imported before."""
        return folder_states([folder for folder, _ in self.imports_from]) != self.imports_from

    def fork(self, argv: list[str], env: dict[str, str], cwd: str) -> ForkedProcess:
        with self._lock:
            self.started()
            if self._preload_asked:
                self._preloaded(self._answer())  # the answers come in the order of the questions
            answer = self._ask({"argv": argv, "env": env, "cwd": cwd})
        if "pid" not in answer:
            raise ZygoteFailed(f"the zygote could not fork a kernel: {answer.get('error', 'no answer')}")
        return ForkedProcess(answer["pid"])

    def preload_for_torch(self) -> None:
        """Import PRELOAD_FOR_TORCH, once: the kernels forked after it have those modules already. An import that
        failed is not tried again in this zygote; its error is raised again."""
        with self._lock:
            self.started()
            if self._preload_asked:
                self._preloaded(self._answer())
            if self.for_torch_failed is not None:
                raise self.for_torch_failed
            if not self.for_torch:
                self._preloaded(self._ask({"import": list(PRELOAD_FOR_TORCH)}))
                if self.for_torch_failed is not None:
                    raise self.for_torch_failed

    def ask_preload(self) -> None:
        """Ask for PRELOAD_FOR_TORCH now, without waiting: the zygote imports it right after torch, while this
        process goes on; preload_for_torch (or the first fork) reads the answer."""
        with self._lock:
            if not (self.for_torch or self._preload_asked or self.for_torch_failed):
                self._send({"import": list(PRELOAD_FOR_TORCH)})
                self._preload_asked = True

    def _preloaded(self, answer: dict) -> None:
        self._preload_asked = False
        if "imported" in answer:
            self.for_torch = True
        else:
            self.for_torch_failed = ZygoteFailed(
                f"the zygote could not import {PRELOAD_FOR_TORCH}: {answer.get('error', 'no answer')}")

    def _ask(self, request: dict) -> dict:
        self._send(request)
        return self._answer()

    def _send(self, request: dict) -> None:
        if self.process.poll() is not None:
            raise ZygoteFailed(f"the zygote has exited ({self.process.returncode})")
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError as error:
            raise ZygoteFailed(f"the zygote has exited ({error})") from error

    def _answer(self) -> dict:
        return json.loads(self.process.stdout.readline() or "{}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()


class Zygotes:
    """Zygotes kept for a session (a `mkdocs serve`, a test run) instead of one per build: the next build's
    kernels fork at once instead of waiting for torch to import again.

    One per interpreter, working folder, PYTHONPATH and keyed variables (the allow-list the cache key holds: other
    variables do not change what a page prints, so neither does the zygote that saw them). Each kernel still gets
    its own build's environment with the fork. A zygote is started again when it died, or when a folder it imports
    from changed (a package installed or removed: a zygote that imported before it must not fork the kernels
    after it). Only its own sys.path counts: this process's (pytest's rootdir, a script's folder) is not the
    kernels', and files written there by a build or a test do not change what a kernel imports.
    """

    def __init__(self, *, ahead: bool = False):
        """ahead: start a zygote ahead of every build, whatever its cache holds (Engine.start_early): a preview's
        first build finds every page in the cache, and its first code edit then waited for torch to import."""
        self.ahead = ahead
        self.started: dict[tuple, Zygote] = {}
        self.starting: dict[tuple, concurrent.futures.Future] = {}  # started ahead (start), not asked for yet
        # A zygote dies with the thread that started it (PR_SET_PDEATHSIG), and a build may run on a thread
        # of its own (Engine.run inside an event loop): zygotes kept past a build start on this pool's thread.
        self.starter = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="zygotes")

    def start(self, env: dict[str, str], python: str = sys.executable, *, preload: bool = False) -> None:
        """Start the zygote `get` will return, on the starter's thread, without waiting for it; preload: import
        PRELOAD_FOR_TORCH in it too. A failure is raised by `get`."""
        key = _key(env, python)
        if key not in self.starting and key not in self.started:
            self.starting[key] = self.starter.submit(_started, env, python, preload)

    def get(self, env: dict[str, str], python: str = sys.executable) -> Zygote:
        key = _key(env, python)
        ahead = self.starting.pop(key, None)
        if ahead is not None:
            self.started[key] = ahead.result()
        zygote = self.started.get(key)
        if zygote is not None and (zygote.process.poll() is not None or zygote.outdated()):
            zygote.close()  # it died (killed, out of memory) or is out of date: its pipes go, a new one starts
            zygote = None
        if zygote is None:
            zygote = self.started[key] = self.starter.submit(Zygote, env, python=python).result()
        return zygote

    def close(self) -> None:
        for ahead in self.starting.values():
            try:
                ahead.result().close()
            except ZygoteFailed:
                pass  # nothing to close: a zygote that did not start closed itself
        self.starting.clear()
        for zygote in self.started.values():
            zygote.close()
        self.started.clear()
        self.starter.shutdown()


def _key(env: dict[str, str], python: str) -> tuple:
    return (python, os.getcwd(), env.get("PYTHONPATH", ""), keyed_variables(env))


def _started(env: dict[str, str], python: str, preload: bool) -> Zygote:
    zygote = Zygote(env, python=python)
    if preload:
        try:
            zygote.preload_for_torch()
        except ZygoteFailed:
            pass  # kept in the zygote, and said by the build that asks for the preload
    return zygote
