"""Run one page's code cells in a fresh kernel with nbclient; return a record instead of raising half-way."""

from __future__ import annotations

import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbconvert.filters import strip_ansi
from traitlets.config import Config

from .errors import CellFailed, CellTimeout, ExpectedErrorMismatch, ExpectedErrorMissing, KernelDied, NotebookError
from .pages import Page

SETUP_FILE = Path(__file__).parent / "kernel_setup.py"


@dataclass
class Execution:
    outputs: dict[str, list[dict]] = field(default_factory=dict)  # by cell id
    cell_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: NotebookError | None = None


@dataclass
class Options:
    kernel: str = "python3"
    timeout: int = 300
    memory_limit_mb: int = 0
    cuda: bool = False


def runnable(cell, cuda: bool) -> bool:
    tags = cell.metadata.get("tags", [])
    return "skip-execution" not in tags and (cuda or "needs-cuda" not in tags)


async def execute_page(page: Page, options: Options, display_path: str | None = None) -> Execution:
    shown = display_path or str(page.path)
    cells = page.code_cells
    lines = page.lines
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": options.kernel, "display_name": "Python 3", "language": "python"}})
    for cell in cells:
        tags = list(cell.metadata.get("tags", []))
        if not runnable(cell, options.cuda) and "skip-execution" not in tags:
            tags.append("skip-execution")
        notebook.cells.append(nbformat.v4.new_code_cell(cell.source, metadata={"tags": tags}, id=cell.id))

    started: dict[int, float] = {}
    seconds = [0.0] * len(cells)
    current = {"index": None}

    def on_start(cell, cell_index):
        current["index"] = cell_index
        started[cell_index] = time.perf_counter()

    def on_complete(cell, cell_index):
        seconds[cell_index] = round(time.perf_counter() - started.get(cell_index, time.perf_counter()), 3)

    env = dict(os.environ)
    env.update({
        "PYTHONHASHSEED": "0",
        # One thread per kernel: kernels run side by side, and float sums stay in one order.
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "TORCHNOTES_MEMORY_LIMIT_MB": str(options.memory_limit_mb),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    })
    # IPC sockets in a private folder: no TCP ports to collide on, and no plaintext-TCP warning per kernel.
    sockets = tempfile.TemporaryDirectory(prefix="torchnotes-")
    client = NotebookClient(
        notebook,
        config=Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets.name, "kernel")}}),
        kernel_name=options.kernel,
        timeout=page.timeout or options.timeout,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(page.path.parent.resolve())}},
        extra_arguments=[f"--IPKernelApp.exec_files={[str(SETUP_FILE)]}", "--HistoryManager.enabled=False"],
        on_cell_start=on_start,
        on_cell_complete=on_complete,
    )
    result = Execution()

    def fail(kind, reason, details=""):
        index = current["index"]
        cell = None if index is None else index + 1
        line = lines[index] if index is not None and index < len(lines) else None
        return kind(shown, reason, cell=cell, line=line, details=details)

    begin = time.perf_counter()
    try:
        await client.async_execute(env=env)
    except CellTimeoutError:
        result.error = fail(CellTimeout, f"cell did not finish within {page.timeout or options.timeout} s")
    except DeadKernelError as error:
        result.error = fail(KernelDied, f"the kernel died while running this cell ({error})")
    except CellExecutionError as error:
        result.error = fail(CellFailed, f"{error.ename}: {strip_ansi(error.evalue)}", _tail(error.traceback))
    finally:
        sockets.cleanup()
    result.seconds = round(time.perf_counter() - begin, 3)
    result.cell_seconds = seconds
    result.outputs = {cell.id: normalise([dict(o) for o in cell.get("outputs", [])]) for cell in notebook.cells}
    if result.error is None:
        result.error = _check_expected_errors(shown, cells, result.outputs, lines, options.cuda)
    return result


# Warnings name the cell by a file the kernel wrote under its own PID: /tmp/ipykernel_4242/1234567.py:2
_KERNEL_FILE = re.compile(r"[^\s'\"]*ipykernel_\d+[/\\]\d+\.py")


def normalise(outputs: list[dict]) -> list[dict]:
    """Make two executions give the same bytes: one stream output per run of prints (how the kernel chunks
    them depends on timing), and no PID-named temporary files in warnings."""
    merged: list[dict] = []
    for out in outputs:
        if out.get("output_type") == "stream":
            out = dict(out, text=_KERNEL_FILE.sub("<cell>", "".join(out["text"]) if isinstance(out["text"], list) else out["text"]))
            if merged and merged[-1].get("output_type") == "stream" and merged[-1]["name"] == out["name"]:
                merged[-1] = dict(merged[-1], text=merged[-1]["text"] + out["text"])
                continue
        elif out.get("output_type") == "error":
            out = dict(out, traceback=[_KERNEL_FILE.sub("<cell>", line) for line in out["traceback"]])
        merged.append(out)
    return merged


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
