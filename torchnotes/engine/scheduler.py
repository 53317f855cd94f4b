"""Execute many pages: cache look-up, one kernel per distinct key, in parallel, with a progress line each."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from dataclasses import replace
from pathlib import Path

from torchnotes.engine.blame import relocated
from torchnotes.engine.cache import Cache, Hit, Miss, PageCache, quotes_source  # noqa: F401  (quotes_source: re-exported)
from torchnotes.engine.environment import Environment
from torchnotes.engine.execute import Options, execute_page, kernel_env
from torchnotes.engine.locks import clean_leftovers, entry_lock
from torchnotes.engine.results import PageResult, Report
from torchnotes.engine.run import Run
from torchnotes.engine.zygote import Zygote, ZygoteFailed, Zygotes
from torchnotes.errors import BuildTimeout, NotebookError, NotExecuted
from torchnotes.layout import CacheFolder
from torchnotes.log import logger
from torchnotes.pages.fences import has_code_cell
from torchnotes.pages.read import Page, Reader
from torchnotes.settings import Settings

# Kernels in a build from which the zygote imports torch's compiler for them (PRELOAD_FOR_TORCH): it costs
# about a second once and saves one in each page that steps an optimizer, two in five here.
PRELOAD_FOR_TORCH_FROM = 3


class Engine:
    """Schedules pages: which to execute, how many at once, in what order, and what it reports.

    Whether an entry holds is the cache's business (cache.PageCache.lookup / store). Modes: "auto" executes
    on a miss, "force" always executes, "off" never executes (cache only).
    """

    def __init__(self, settings: Settings, env: Environment, *, reader: Reader | None = None,
                 zygotes: Zygotes | None = None, run: Run | None = None):
        """settings: mkdocs.yml's options (the cache folder, kernel, timeouts, jobs, execution mode); run: what one
        command changes for its own run; reader, zygotes: what a preview session keeps across its builds."""
        run = run or Run()
        mode = run.mode or settings.execute
        if mode not in ("auto", "force", "off"):
            raise ValueError(f"execution mode must be auto, force or off, not {mode!r}")
        kernel = run.kernel or settings.kernel
        self.folder = CacheFolder(settings.path("cache_dir"))
        self.cache = Cache(self.folder.root)
        self.env = env
        self.reader = reader or Reader(self.folder.parsed)  # pages parsed once per build, kept across builds
        self.root = Path(settings.root).resolve()
        self.entries = PageCache(self.cache, env, kernel, self.root, packages=run.packages)
        self.jobs = run.jobs or settings.jobs or os.cpu_count() or 1
        # An address-space limit (RLIMIT_AS) stops CUDA from starting: its runtime reserves virtual address space of
        # the size of the GPU's and the host's memory ("cudaGetDeviceCount ... Error 2: out of memory", seen on an H200).
        memory_limit_mb = 0 if env.cuda else settings.memory_limit_mb
        self.options = Options(kernel=kernel, timeout=settings.timeout, memory_limit_mb=memory_limit_mb,
                               cuda=env.cuda, page_timeout=run.page_timeout, root=self.root,
                               extensions_dir=self.folder.extensions(env.torch, env.python), fonts=env.fonts,
                               keep_going=run.keep_going, protected=Path(settings.root) / settings.docs_dir)
        self.build_timeout = run.build_timeout
        self.fork = run.fork  # kernels forked from a zygote that has imported torch (torchnotes.engine.zygote)
        self.zygotes = zygotes  # a session's (kept across its builds); without, one zygote per build
        self.python = run.python  # the kernels' interpreter: the zygote is started with it
        self.mode = mode
        self.early: Zygote | None = None  # started before the pages were read (start_early)

    def shown(self, path: Path) -> str:
        path = Path(path).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def key(self, page: Page) -> str:
        return self.entries.key(page)

    def key_parts(self, page: Page) -> dict[str, str]:
        return self.entries.key_parts(page)

    def lookup(self, page: Page, key: str | None = None) -> Hit | Miss:
        """key: the page's, when the caller has it already (it hashes every code cell and the environment)."""
        if self.mode == "force":
            return Miss(key or self.key(page), "--force executes every page")
        return self.entries.lookup(page, key)

    def start_early(self, pages: list[Path]) -> None:
        """On a cold cache (no entry: a fresh clone, CI) start the zygote now, so that torch imports while the pages
        are read and checked, not after with a core idle (six seconds), with torch's compiler when PRELOAD_FOR_TORCH_FROM
        pages have code (counted on a cold cache only). The next run takes it, or closes it. A session's zygotes that
        start ahead (a preview's) start on a warm cache too, without the compiler."""
        if self.early is not None or self.mode == "off" or not self._forks():
            return
        cold = not self.cache.keys()
        preload = cold and sum(has_code_cell(page) for page in pages) >= PRELOAD_FOR_TORCH_FROM
        if self.zygotes is not None:  # a session's: kept by it, whatever this build does
            if cold or self.zygotes.ahead:
                self.zygotes.start(kernel_env(self.options), python=self.python, preload=preload)
        elif cold:
            self.early = Zygote(kernel_env(self.options), python=self.python, wait=False)
            if preload:
                try:
                    self.early.ask_preload()
                except ZygoteFailed:
                    self.close_early()  # it died at once: the build starts its own, and says why

    def close_early(self) -> None:
        if self.early is not None:
            self.early.close()
            self.early = None

    def _forks(self) -> bool:
        return self.fork and os.environ.get("TORCHNOTES_FORK", "1") != "0"

    def run(self, paths: list[Path]) -> Report:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.run_async(paths))
        # Called from inside a running event loop (a notebook, Playwright's sync API): run on a thread of its own.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.run_async(paths)).result()

    async def _run_async(self, paths: list[Path]) -> Report:
        build = _Build(self, paths)
        self.entries.begin()
        for leftover in clean_leftovers():
            logger.info(f"removed {leftover}, left by a build that was killed")
        todo = build.read()
        if build.unreadable():
            # A broken page stops the build before any kernel starts: its error comes first, not last.
            build.skip_all("the build stopped at a page that cannot be read")
            return build.finish()
        pending = build.serve(todo)
        if self.mode == "off":
            # Publishing from merged shard caches: a page the cache cannot serve is an error, never a run.
            build.not_executed(pending)
            return build.finish()
        zygote = self._start_zygote(len(pending)) if pending else None
        options = self.options if zygote is None else replace(self.options, zygote=zygote)
        try:
            await asyncio.gather(*(build.execute(key, group, options) for key, group in pending))
        finally:
            if zygote is not None and self.zygotes is None:
                zygote.close()
        return build.finish()

    async def run_async(self, paths: list[Path]) -> Report:
        try:
            return await self._run_async(paths)
        finally:
            self.close_early()  # not taken: nothing ran, or the build stopped before its kernels

    def _start_zygote(self, kernels: int) -> Zygote | None:
        """The build's zygote, when this interpreter's ipykernel is the kernel (TORCHNOTES_FORK=0: never)."""
        if not self._forks():
            return None
        try:
            if self.early is not None:
                zygote, self.early = self.early, None
                zygote.started()
            elif self.zygotes is not None:
                zygote = self.zygotes.get(kernel_env(self.options), python=self.python)
            else:
                zygote = Zygote(kernel_env(self.options), python=self.python)
        except ZygoteFailed as error:
            logger.info(f"kernels start from scratch: {error}")
            return None
        if kernels >= PRELOAD_FOR_TORCH_FROM:
            try:
                zygote.preload_for_torch()
            except ZygoteFailed as error:
                logger.info(f"kernels import torch's compiler themselves: {error}")
        return zygote


Group = list[tuple[str, Page]]


class _Build:
    """One run of the engine over some pages: their results, the progress lines, the kernels started."""

    def __init__(self, engine: Engine, paths: list[Path]):
        self.engine = engine
        self.paths = paths
        self.results: dict[str, PageResult] = {}
        self.used: set[str] = set()
        self.kernels = 0
        self.done = 0
        self.begin = time.perf_counter()
        self.deadline = time.monotonic() + engine.build_timeout if engine.build_timeout else None
        self.limit = asyncio.Semaphore(engine.jobs)

    def read(self) -> dict[str, Group]:
        """Parse every page; pages with the same key (the same code in both languages) share one group."""
        todo: dict[str, Group] = {}
        for path in self.paths:
            shown = self.engine.shown(path)
            try:
                page = self.engine.reader.page(path)
            except NotebookError as error:
                self.results[shown] = PageResult(shown, "failed", error=error)
                continue
            if not page.code_cells:
                self.results[shown] = PageResult(shown, "static", source=page)
                continue
            key = self.engine.key(page)
            self.results[shown] = PageResult(shown, "cached", key=key, source=page)
            todo.setdefault(key, []).append((shown, page))
        return todo

    def unreadable(self) -> bool:
        return any(r.status == "failed" for r in self.results.values())

    def skip_all(self, why: str) -> None:
        for result in self.results.values():
            if result.status != "failed":
                result.status, result.note = "skipped", why
            self.report(result)

    def serve(self, todo: dict[str, Group]) -> list[tuple[str, Group]]:
        """Fill every page the cache holds; returns the groups left to execute."""
        for result in self.results.values():
            if result.status == "static":
                self.report(result)
        pending = []
        for key, group in todo.items():
            left = [(shown, page) for shown, page in group if not self.served(shown, page)]
            if left:
                pending.append((key, left))
        return pending

    def served(self, shown: str, page: Page, quiet: bool = True) -> bool:
        result = self.results[shown]
        found = self.engine.lookup(page, result.key)
        if isinstance(found, Miss):
            result.note = found.reason if self.engine.mode != "force" else ""
            return False
        result.fill(found.body, "cached")
        result.note = ""
        self.used |= found.used
        if not quiet:
            logger.info(f"reused {shown}: another build executed it meanwhile")
        self.report(result)
        return True

    def not_executed(self, pending: list[tuple[str, Group]]) -> None:
        for _, group in pending:
            for shown, _page in group:
                result = self.results[shown]
                result.status, result.error = "failed", NotExecuted(
                    shown, f"execution is off and the cache cannot serve this page ({result.note or 'no entry'})")
                self.report(result)

    async def execute(self, key: str, group: Group, options: Options) -> None:
        engine = self.engine
        async with entry_lock(engine.folder.locks, key):
            # Another build may have written the entry while this one waited for the lock.
            if engine.mode != "force":
                group = [(s, p) for s, p in group if not self.served(s, p, quiet=False)]
            while group:
                first, page = group[0]
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    limit = engine.build_timeout
                    self.failed(group, BuildTimeout(first, f"not started: the build passed its limit of {limit:g} s"))
                    return
                async with self.limit:
                    execution = await execute_page(page, options, first, deadline=self.deadline)
                self.kernels += 1
                if execution.error is not None:
                    self.failed(group, execution.error, execution.outputs)
                    return
                body, written = engine.entries.store(page, execution, key)
                self.used |= written
                # Same code in another language: one kernel, the other page reads the stored result, unless
                # its outputs quote source lines and the twin's comments differ.
                served = {s for s, p in group if s == first or PageCache.serves(body, p)}
                for shown, _ in group:
                    if shown in served:
                        self.results[shown].fill(body, "run" if shown == first else "cached")
                        self.report(self.results[shown])
                group = [(s, p) for s, p in group if s not in served]

    def failed(self, group: Group, error: NotebookError, outputs: dict | None = None) -> None:
        """outputs: what the cells printed up to the failure (a compared release keeps them as its result)."""
        names = [shown for shown, _ in group]
        for shown, page in group:
            result = self.results[shown]
            result.status, result.seconds, result.outputs = "failed", 0.0, outputs or {}
            result.error = relocated(error, shown, page, [n for n in names if n != shown])
            self.report(result)

    def report(self, result: PageResult) -> None:
        self.done += 1
        state = result.status + (f" ({result.note})" if result.note else "")
        logger.info(f"[{self.done}/{len(self.paths)}] {result.page}  {result.seconds:.1f} s  {state}")

    def finish(self) -> Report:
        ordered = [self.results[self.engine.shown(p)] for p in self.paths]
        return Report(self.engine.env, ordered, round(time.perf_counter() - self.begin, 3), kernels=self.kernels,
                      used_keys=self.used)
