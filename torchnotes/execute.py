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

from .environment import kernel_variables
from .errors import (
    BuildTimeout,
    CellFailed,
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
from .fonts import missing_glyphs
from .inputs import RECORD_CELL, RecordMissing, parse_record
from .locks import temp_folder
from .outputs import PAGE_LIMIT, cap_cell, normalise, over_page_limit
from .pages import Page
from .zygote import Zygote, ZygoteFailed

SETUP_FILE = Path(__file__).parent / "kernel_setup.py"


@dataclass
class Execution:
    outputs: dict[str, list[dict]] = field(default_factory=dict)  # by cell id
    cell_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: NotebookError | None = None
    record: dict | None = None  # files and packages the kernel used (torchnotes.inputs)


@dataclass
class Options:
    kernel: str = "python3"
    timeout: int = 300  # seconds per cell (a page's front matter may say otherwise)
    memory_limit_mb: int = 0
    cuda: bool = False
    page_timeout: float = 900  # seconds for a whole page; 0: no limit
    root: Path | None = None  # the project: files under it that a page reads are recorded
    zygote: Zygote | None = None  # forks the kernels (torchnotes.zygote); None: each kernel starts from scratch
    extensions_dir: Path | None = None  # torch's JIT extension cache, kept with the execution cache
    fonts: str = ""  # fonts.font_fingerprint: a kernel rescans matplotlib's fonts when it changes


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
    if options.extensions_dir is not None:
        # Compiled extensions (load_inline) outlive the kernel: one compile serves both languages and later
        # builds. torch keys each on its name and sources; the folder is per torch build and Python.
        env["TORCH_EXTENSIONS_DIR"] = str(Path(options.extensions_dir).resolve())
    return env


def runnable(cell, cuda: bool) -> bool:
    tags = cell.metadata.get("tags", [])
    return "skip-execution" not in tags and (cuda or "needs-cuda" not in tags)


async def execute_page(page: Page, options: Options, display_path: str | None = None,
                       deadline: float | None = None) -> Execution:
    """deadline: time.monotonic() by which the whole build must be done (BuildTimeout past it)."""
    shown = display_path or str(page.path)
    cells = page.code_cells
    lines = page.lines
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": options.kernel, "display_name": "Python 3", "language": "python"}})
    for cell in cells:
        tags = list(cell.metadata.get("tags", []))
        if not runnable(cell, options.cuda) and "skip-execution" not in tags:
            tags.append("skip-execution")
        notebook.cells.append(nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags}, id=cell.id))
    notebook.cells.append(nbformat.v4.new_code_cell(RECORD_CELL, id="torchnotes-record"))

    started: dict[int, float] = {}
    seconds = [0.0] * len(cells)
    current = {"index": None}

    def on_start(cell, cell_index):
        current["index"] = cell_index
        started[cell_index] = time.perf_counter()

    def on_complete(cell, cell_index, execute_reply=None):
        if cell_index < len(seconds):
            seconds[cell_index] = round(time.perf_counter() - started.get(cell_index, time.perf_counter()), 3)

    env = kernel_env(options)
    # IPC sockets in a private folder: no TCP ports to collide on, and no plaintext-TCP warning per kernel.
    sockets = temp_folder()
    config = Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}})
    # nbclient shuts down only the kernels of managers it made itself: hand it the class, not an instance.
    managers = {} if options.zygote is None else {"kernel_manager_class": options.zygote.kernel_manager_class}
    client = NotebookClient(
        notebook,
        **managers,
        config=config,
        kernel_name=options.kernel,
        timeout=page.timeout or options.timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(page.path.parent.resolve())}},
        extra_arguments=[f"--IPKernelApp.exec_files={[str(SETUP_FILE)]}", "--HistoryManager.enabled=False"],
        # The clock runs from the execute request to its reply: on_cell_complete fires before the cell has run.
        on_cell_execute=on_start,
        on_cell_executed=on_complete,
    )
    result = Execution()

    def fail(kind, reason, details=""):
        index = current["index"]
        cell = None if index is None or index >= len(cells) else index + 1
        line = lines[index] if cell is not None and index < len(lines) else None
        return kind(shown, reason, cell=cell, line=line, details=details)

    limit, build_limited = options.page_timeout or None, False
    if deadline is not None:
        left = max(deadline - time.monotonic(), 0.001)
        if limit is None or left < limit:
            limit, build_limited = left, True
    begin = time.perf_counter()
    try:
        await _within(client.async_execute(env=env), limit)
    except CellTimeoutError:
        result.error = fail(CellTimeout, f"cell did not finish within {page.timeout or options.timeout} s")
    except DeadKernelError as error:
        result.error = fail(KernelDied, f"the kernel died while running this cell ({error})")
    except CellExecutionError as error:
        result.error = fail(CellFailed, f"{error.ename}: {strip_ansi(error.evalue)}", _tail(error.traceback))
    except (TimeoutError, asyncio.TimeoutError):
        spent = time.perf_counter() - begin
        if build_limited:
            result.error = fail(BuildTimeout, f"the build's time limit ran out while this page ran ({spent:.0f} s)")
        else:
            result.error = fail(PageTimeout, f"page did not finish within {options.page_timeout:g} s "
                                             f"(stopped in code cell {(current['index'] or 0) + 1})")
    except (NoSuchKernel, ZygoteFailed, RuntimeError) as error:
        if current["index"] is not None:
            raise
        result.error = KernelStartFailed(shown, f"kernel '{options.kernel}' did not start: "
                                                f"{error.__class__.__name__}: {error}")
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    result.seconds = round(time.perf_counter() - begin, 3)
    result.cell_seconds = seconds
    record_outputs = notebook.cells.pop().get("outputs", [])
    result.outputs = {cell.id: cap_cell(normalise([dict(o) for o in cell.get("outputs", [])])) for cell in notebook.cells}
    if result.error is None:
        result.error = _check_expected_errors(shown, cells, result.outputs, lines, options.cuda)
    if result.error is None:
        result.error = missing_glyphs(shown, cells, result.outputs, lines)
    if result.error is None:
        over = over_page_limit([result.outputs[cell.id] for cell in cells])
        if over is not None:
            index, total = over
            result.error = OutputTooLarge(
                shown, f"the page's outputs reach {total:,} bytes at this cell, over the limit of {PAGE_LIMIT:,}",
                cell=index + 1, line=lines[index] if index < len(lines) else None)
    if result.error is None:
        try:
            result.record = parse_record([dict(o) for o in record_outputs])
        except RecordMissing as error:
            result.error = InputsUnrecorded(shown, str(error))
    return result


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
        if "raises-exception" not in tags or not runnable(cell, cuda):
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
