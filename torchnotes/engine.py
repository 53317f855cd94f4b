"""Execute many pages: cache look-up, one kernel per distinct key, in parallel, with a progress line each."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from .cache import Cache, cache_key
from .environment import Environment
from .errors import CacheCorrupted, NotebookError, NotExecuted
from .execute import Options, execute_page
from .pages import Page, read_page


@dataclass
class PageResult:
    page: str
    status: str  # "run", "cached", "failed" or "static" (no code cells)
    key: str = ""
    seconds: float = 0.0
    date: str = ""
    outputs: dict = field(default_factory=dict, repr=False)  # cell id -> outputs
    cell_seconds: list = field(default_factory=list, repr=False)
    error: NotebookError | None = None
    note: str = ""
    run_seconds: float = 0.0  # how long the execution that produced these outputs took
    source: Page | None = field(default=None, repr=False)  # the parsed page, for renderers

    def summary(self) -> dict:
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("outputs", "error", "source")}
        row["error"] = self.error.message if self.error else None
        return row


@dataclass
class Report:
    env: Environment
    results: list[PageResult]
    seconds: float
    kernels: int

    @property
    def failures(self) -> list[NotebookError]:
        return [r.error for r in self.results if r.error is not None]

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def summary_line(self) -> str:
        return (f"{len(self.results)} pages: {self.count('run')} run, {self.count('cached')} cached, "
                f"{self.count('failed')} failed, {self.count('static')} without code; "
                f"{self.kernels} kernels, {self.seconds:.1f} s")

    def to_json(self) -> dict:
        return {"env": self.env.key(), "seconds": self.seconds, "kernels": self.kernels,
                "pages": [r.summary() for r in self.results]}

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


class Engine:
    """Modes: "auto" executes on a cache miss, "force" always executes, "off" never executes (cache only)."""

    def __init__(self, cache: Cache, env: Environment, *, root: Path | None = None, jobs: int | None = None,
                 timeout: int = 300, kernel: str = "python3", memory_limit_mb: int = 0, mode: str = "auto",
                 log: Callable[[str], None] = print):
        if mode not in ("auto", "force", "off"):
            raise ValueError(f"execution mode must be auto, force or off, not {mode!r}")
        self.cache = cache
        self.env = env
        self.root = Path(root or Path.cwd()).resolve()
        self.jobs = jobs or os.cpu_count() or 1
        self.options = Options(kernel=kernel, timeout=timeout, memory_limit_mb=memory_limit_mb, cuda=env.cuda)
        self.mode = mode
        self.log = log

    def shown(self, path: Path) -> str:
        path = Path(path).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def key(self, page: Page) -> str:
        return cache_key(page.code_cells, self.options.kernel, self.env)

    def run(self, paths: list[Path]) -> Report:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run_async(paths))
        # Called from inside a running event loop (a notebook, Playwright's sync API): run on a thread of its own.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.run_async(paths)).result()

    async def run_async(self, paths: list[Path]) -> Report:
        begin = time.perf_counter()
        results: dict[str, PageResult] = {}
        todo: dict[str, list[tuple[str, Page]]] = {}
        for path in paths:
            shown = self.shown(path)
            try:
                page = read_page(path)
            except NotebookError as error:
                results[shown] = PageResult(shown, "failed", error=error)
                continue
            if not page.code_cells:
                results[shown] = PageResult(shown, "static", source=page)
                continue
            key = self.key(page)
            results[shown] = PageResult(shown, "cached", key=key, source=page)
            todo.setdefault(key, []).append((shown, page))

        total = len(paths)
        done = 0

        def report(result: PageResult) -> None:
            nonlocal done
            done += 1
            state = result.status + (f" ({result.note})" if result.note else "")
            self.log(f"[{done}/{total}] {result.page}  {result.seconds:.1f} s  {state}")

        for result in results.values():
            if result.status in ("failed", "static"):
                report(result)

        to_run: list[tuple[str, list[tuple[str, Page]]]] = []
        for key, group in todo.items():
            body, note = self._lookup(key)
            if body is None and self.mode == "off":
                for shown, _ in group:
                    results[shown].status = "failed"
                    results[shown].error = NotExecuted(shown, f"no cached outputs (key {key[:12]})")
                    report(results[shown])
                continue
            if body is None:
                to_run.append((key, group))
                for shown, _ in group:
                    results[shown].note = note
                continue
            for shown, _ in group:
                self._fill(results[shown], body, "cached")
                report(results[shown])

        limit = asyncio.Semaphore(self.jobs)

        async def one(key: str, group: list[tuple[str, Page]]) -> None:
            first, page = group[0]
            async with limit:
                execution = await execute_page(page, self.options, first)
            if execution.error is not None:
                for shown, _ in group:
                    result = results[shown]
                    result.status, result.error, result.seconds = "failed", execution.error, execution.seconds
                    report(result)
                return
            body = {
                "outputs": execution.outputs,
                "cell_seconds": execution.cell_seconds,
                "seconds": execution.seconds,
                "date": datetime.date.today().isoformat(),
                "env": self.env.key(),
            }
            self.cache.put(key, body)
            for index, (shown, _) in enumerate(group):
                # Same code in another language: one kernel, the other page reads the stored result.
                self._fill(results[shown], body, "run" if index == 0 else "cached")
                report(results[shown])

        await asyncio.gather(*(one(key, group) for key, group in to_run))
        ordered = [results[self.shown(p)] for p in paths]
        return Report(self.env, ordered, round(time.perf_counter() - begin, 3), kernels=len(to_run))

    def _lookup(self, key: str) -> tuple[dict | None, str]:
        if self.mode == "force":
            return None, ""
        try:
            body = self.cache.get(key)
        except CacheCorrupted as error:
            self.log(f"warning: {error.message}")
            self.cache.discard(key)
            return None, "corrupt cache entry replaced"
        return body, ""

    @staticmethod
    def _fill(result: PageResult, body: dict, status: str) -> None:
        result.status = status
        result.outputs = body["outputs"]
        result.cell_seconds = body["cell_seconds"]
        result.seconds = body["seconds"] if status == "run" else 0.0
        result.run_seconds = body["seconds"]
        result.date = body["date"]
