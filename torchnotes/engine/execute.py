"""Run one page's code cells in a fresh kernel with nbclient; return a record instead of raising half-way."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import NoSuchKernel
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbconvert.filters import strip_ansi
from traitlets.config import Config

from torchnotes.engine.blame import bound_names, error_kind, solution_named
from torchnotes.engine.environment import kernel_variables
from torchnotes.engine.fonts import missing_glyphs
from torchnotes.engine.inputs import RECORD_CELL, RecordMissing, parse_record
from torchnotes.engine.locks import temp_folder
from torchnotes.engine.outputs import PAGE_LIMIT, cap_cell, normalise, over_page_limit
from torchnotes.engine.zygote import Zygote, ZygoteFailed
from torchnotes.errors import (
    BuildTimeout,
    CellFailed,
    CellsFailed,
    CellTimeout,
    ExpectedErrorMismatch,
    ExpectedErrorMissing,
    InputsUnrecorded,
    KernelDied,
    KernelStartFailed,
    NotebookError,
    OutputTooLarge,
    PageTimeout,
)
from torchnotes.pages.cells import new_cell
from torchnotes.pages.read import Page
from torchnotes.pages.tags import NEEDS_CUDA, RAISES, SKIP_EXECUTION

SETUP_FILE = Path(__file__).parent / "kernel_setup.py"


@dataclass
class Execution:
    outputs: dict[str, list[dict]] = field(default_factory=dict)  # by cell id
    cell_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: NotebookError | None = None
    record: dict | None = None  # files and packages the kernel used (torchnotes.engine.inputs)


@dataclass
class Options:
    kernel: str = "python3"
    timeout: int = 300  # seconds per cell (a page's front matter may say otherwise)
    memory_limit_mb: int = 0
    cuda: bool = False
    page_timeout: float = 900  # seconds for a whole page; 0: no limit
    root: Path | None = None  # the project: files under it that a page reads are recorded
    zygote: Zygote | None = None  # forks the kernels (torchnotes.engine.zygote); None: each kernel starts from scratch
    extensions_dir: Path | None = None  # torch's JIT extension cache, kept with the execution cache
    fonts: str = ""  # fonts.font_fingerprint: a kernel rescans matplotlib's fonts when it changes
    keep_going: bool = False  # run every cell past a failing one and report them all (CellsFailed)
    protected: Path | None = None  # the pages' folder (docs/): no kernel may write into it (kernel_setup._guard_pages)


def kernel_env(options: Options) -> dict[str, str]:
    """The environment every kernel of a build gets (and the zygote that forks them)."""
    env = kernel_variables()
    env.update({
        "TORCHNOTES_MEMORY_LIMIT_MB": str(options.memory_limit_mb),
        "TORCHNOTES_ROOT": str(Path(options.root or Path.cwd()).resolve()),
        # The kernel asks to be killed when this process dies (kernel_setup.py).
        "TORCHNOTES_BUILD_PID": str(os.getpid()),
        "TORCHNOTES_FONTS": options.fonts,
    })
    if options.protected is not None:
        env["TORCHNOTES_PROTECTED"] = str(Path(options.protected).resolve())
    if options.extensions_dir is not None:
        # Compiled extensions (load_inline) outlive the kernel: one compile serves both languages and later
        # builds. torch keys each on its name and sources; the folder is per torch build and Python.
        env["TORCH_EXTENSIONS_DIR"] = str(Path(options.extensions_dir).resolve())
    return env


def work_folder(folder: Path) -> str:
    """The folder a page's kernel runs in: its own, holding a link to each file and folder beside the page, so that
    the page reads its data by a relative path as before, and what it writes (torch.save("model.pt")) lands here,
    never beside the page, where the site would publish it (issue 45)."""
    work = temp_folder("page-")
    for entry in sorted(Path(folder).resolve().iterdir()):
        os.symlink(entry, os.path.join(work, entry.name))
    return work


def runnable(cell, cuda: bool) -> bool:
    tags = cell.metadata.get("tags", [])
    return SKIP_EXECUTION not in tags and (cuda or NEEDS_CUDA not in tags)


async def execute_page(page: Page, options: Options, display_path: str | None = None,
                       deadline: float | None = None) -> Execution:
    """deadline: time.monotonic() by which the whole build must be done (BuildTimeout past it)."""
    run = _PageRun(page, options, display_path or str(page.path))
    sockets = temp_folder()  # IPC sockets in a private folder: no TCP ports to collide on, no plaintext-TCP warning
    work = work_folder(page.path.parent)
    result = Execution()
    begin = time.perf_counter()
    try:
        result.error = await run.execute(run.client(sockets, work), deadline)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)  # the links go, never what they point to
    result.seconds = round(time.perf_counter() - begin, 3)
    result.cell_seconds = run.seconds
    record_outputs = run.notebook.cells.pop().get("outputs", [])
    result.outputs = {c.id: cap_cell(normalise([dict(o) for o in c.get("outputs", [])])) for c in run.notebook.cells}
    if result.error is None and options.keep_going:
        result.error = run.failed_cells(result.outputs)
    if result.error is None:
        result.error = run.check_outputs(result.outputs)
    if result.error is None:
        try:
            result.record = parse_record([dict(o) for o in record_outputs])
        except RecordMissing as error:
            result.error = InputsUnrecorded(run.shown, str(error))
    return result


class _PageRun:
    """One page in one kernel: the notebook nbclient runs, the clock of each cell, and what failed where."""

    def __init__(self, page: Page, options: Options, shown: str):
        self.page, self.options, self.shown = page, options, shown
        self.cells, self.lines = page.code_cells, page.lines
        kernelspec = {"name": options.kernel, "display_name": "Python 3", "language": "python"}
        self.notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernelspec})
        for cell in self.cells:
            tags = list(cell.metadata.get("tags", []))
            if not runnable(cell, options.cuda) and SKIP_EXECUTION not in tags:
                tags.append(SKIP_EXECUTION)
            self.notebook.cells.append(new_cell("code", cell.source, cell.id, {"tags": tags}))
        self.notebook.cells.append(new_cell("code", RECORD_CELL, "torchnotes-record"))
        self.current: int | None = None
        self.started: dict[int, float] = {}
        self.seconds = [0.0] * len(self.cells)

    def on_start(self, cell, cell_index):
        self.current = cell_index
        self.started[cell_index] = time.perf_counter()

    def on_complete(self, cell, cell_index, execute_reply=None):
        if cell_index < len(self.seconds):
            self.seconds[cell_index] = round(time.perf_counter() - self.started.get(cell_index, time.perf_counter()), 3)

    def client(self, sockets: str, work: str) -> NotebookClient:
        options = self.options
        config = Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}})
        # nbclient shuts down only the kernels of managers it made itself: hand it the class, not an instance.
        managers = {} if options.zygote is None else {"kernel_manager_class": options.zygote.kernel_manager_class}
        return NotebookClient(
            self.notebook, **managers, config=config, kernel_name=options.kernel,
            timeout=self.page.timeout or options.timeout, allow_errors=options.keep_going, record_timing=False,
            resources={"metadata": {"path": work}},
            extra_arguments=[f"--IPKernelApp.exec_files={[str(SETUP_FILE)]}", "--HistoryManager.enabled=False"],
            # The clock runs from the execute request to its reply: on_cell_complete fires before the cell has run.
            on_cell_execute=self.on_start, on_cell_executed=self.on_complete,
        )

    def fail(self, kind, reason, details=""):
        index = self.current
        cell = None if index is None or index >= len(self.cells) else index + 1
        line = self.lines[index] if cell is not None and index < len(self.lines) else None
        if cell is not None and issubclass(kind, CellFailed):
            kind, reason = solution_named(self.cells, index, kind, reason)
        return kind(self.shown, reason, cell=cell, line=line, details=details)

    async def execute(self, client: NotebookClient, deadline: float | None) -> NotebookError | None:
        options = self.options
        limit, build_limited = options.page_timeout or None, False
        if deadline is not None:
            left = max(deadline - time.monotonic(), 0.001)
            if limit is None or left < limit:
                limit, build_limited = left, True
        begin = time.perf_counter()
        try:
            await _within(client.async_execute(env=kernel_env(options)), limit)
        except CellTimeoutError:
            return self.fail(CellTimeout, f"cell did not finish within {self.page.timeout or options.timeout} s")
        except DeadKernelError as error:
            return self.fail(KernelDied, f"the kernel died while running this cell ({error})")
        except CellExecutionError as error:
            return self.fail(error_kind(error.ename, strip_ansi(error.evalue)), f"{error.ename}: {strip_ansi(error.evalue)}",
                             _tail(error.traceback))
        except (TimeoutError, asyncio.TimeoutError):
            spent = time.perf_counter() - begin
            if build_limited:
                return self.fail(BuildTimeout, f"the build's time limit ran out while this page ran ({spent:.0f} s)")
            return self.fail(PageTimeout, f"page did not finish within {options.page_timeout:g} s "
                                          f"(stopped in code cell {(self.current or 0) + 1})")
        except (NoSuchKernel, ZygoteFailed, RuntimeError) as error:
            if self.current is not None:
                raise
            return KernelStartFailed(self.shown, f"kernel '{options.kernel}' did not start: "
                                                 f"{error.__class__.__name__}: {error}")
        return None

    def failed_cells(self, outputs: dict) -> NotebookError | None:
        """Under keep_going: one error for every cell that raised without a raises-exception tag, or None."""
        found, first, failed = [], None, []
        for index, cell in enumerate(self.cells):
            errors = [o for o in outputs.get(cell.id, []) if o.get("output_type") == "error"]
            if not errors or RAISES in cell.metadata.get("tags", []):
                continue
            ename, evalue = errors[0]["ename"], strip_ansi(errors[0]["evalue"])
            kind = error_kind(ename, evalue)
            evalue = evalue.strip().split("\n", 1)[0]  # the rest is in the traceback's tail
            missing = re.search(r"name '(\w+)' is not defined", evalue)
            if first is not None and ename in ("NameError", "UnboundLocalError") and missing:
                # Blamed on an earlier failure only where that cell binds the name: a sketch's undefined name is
                # its own failure, with its own fix.
                culprit = next((n for n in failed if missing.group(1) in bound_names(self.cells[n - 1].source)), None)
                if culprit is not None:
                    kind, evalue = CellFailed, f"{evalue} (probably because code cell {culprit} failed)"
            line = self.lines[index] if index < len(self.lines) else None
            kind, evalue = solution_named(self.cells, index, kind, evalue)
            found.append(kind(self.shown, f"{ename}: {evalue}", cell=index + 1, line=line,
                              details=_tail("\n".join(errors[0].get("traceback", [])), 8)))
            first = first or index + 1
            failed.append(index + 1)
        if not found:
            return None
        return CellsFailed(self.shown, f"{len(found)} code cell(s) fail: " + ", ".join(str(e.cell) for e in found),
                           details="\n".join(e.message for e in found))

    def check_outputs(self, outputs: dict) -> NotebookError | None:
        """What the cells printed, checked: expected errors, missing glyphs, the page's size limit."""
        error = _check_expected_errors(self.shown, self.cells, outputs, self.lines, self.options.cuda)
        error = error or missing_glyphs(self.shown, self.cells, outputs, self.lines)
        if error is None:
            over = over_page_limit([outputs[cell.id] for cell in self.cells])
            if over is not None:
                index, total = over
                error = OutputTooLarge(
                    self.shown, f"the page's outputs reach {total:,} bytes at this cell, over the limit of {PAGE_LIMIT:,}",
                    cell=index + 1, line=self.lines[index] if index < len(self.lines) else None)
        return error


async def _within(coroutine, limit: float | None):
    """Like asyncio.wait_for, but the error is always TimeoutError: nbclient turns a cancelled cell into
    DeadKernelError, which would blame the kernel for the page's time limit."""
    task = asyncio.ensure_future(coroutine)
    done, _ = await asyncio.wait({task}, timeout=limit)
    if done:
        return task.result()
    task.cancel()
    await asyncio.wait({task})  # nbclient shuts the kernel down on the way out
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it: the time limit is the error reported
    raise TimeoutError


def _check_expected_errors(shown, cells, outputs, lines, cuda) -> NotebookError | None:
    for index, cell in enumerate(cells):
        outs = outputs.get(cell.id, [])
        tags = cell.metadata.get("tags", [])
        if RAISES not in tags or not runnable(cell, cuda):
            continue
        where = {"cell": index + 1, "line": lines[index] if index < len(lines) else None}
        want = cell.metadata["raises"]
        errors = [o for o in outs if o.get("output_type") == "error"]
        if not errors:
            return ExpectedErrorMissing(shown, f"expected {want}, but the cell raised nothing", **where)
        got = errors[0]
        if got["ename"].rsplit(".", 1)[-1] != want:
            return ExpectedErrorMismatch(shown, f"expected {want}, got {got['ename']}: {strip_ansi(got['evalue'])}", **where)
        pattern = cell.metadata.get("match")
        if pattern and not re.search(pattern, strip_ansi(got["evalue"])):
            return ExpectedErrorMismatch(shown, f"{want} message does not match {pattern!r}: {strip_ansi(got['evalue'])}", **where)
    return None


def _tail(traceback: str, lines: int = 25) -> str:
    text = strip_ansi(traceback).rstrip().splitlines()
    return "\n".join(text[-lines:])
