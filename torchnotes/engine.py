"""Execute many pages: cache look-up, one kernel per distinct key, in parallel, with a progress line each."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from .cache import Cache, full_source_hash, key_from_parts, key_parts, variant_key
from .environment import Environment
from .errors import BuildTimeout, CacheCorrupted, NotebookError, NotExecuted
from .execute import Execution, Options, execute_page, kernel_env
from .inputs import changes, snapshot
from .locks import clean_leftovers, entry_lock
from .pages import Page, keep_parsed_in, read_page
from .zygote import Zygote, ZygoteFailed


@dataclass
class PageResult:
    page: str
    status: str  # "run", "cached", "failed", "static" (no code cells) or "skipped" (the build stopped first)
    key: str = ""
    seconds: float = 0.0
    date: str = ""
    outputs: dict = field(default_factory=dict, repr=False)  # cell id -> outputs
    cell_seconds: list = field(default_factory=list, repr=False)
    error: NotebookError | None = None
    note: str = ""
    run_seconds: float = 0.0  # how long the execution that produced these outputs took
    source: Page | None = field(default=None, repr=False)  # the parsed page, for renderers

    def cell_outputs(self) -> list[list[dict]]:
        """The outputs in the page's code-cell order, each looked up by its cell's id (for printing and tests)."""
        return [self.outputs.get(cell.id, []) for cell in self.source.code_cells] if self.source else []

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
    used_keys: set = field(default_factory=set, repr=False)  # every entry this build read or wrote

    @property
    def failures(self) -> list[NotebookError]:
        return [r.error for r in self.results if r.error is not None]

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def summary_line(self) -> str:
        line = (f"{len(self.results)} pages: {self.count('run')} run, {self.count('cached')} cached, "
                f"{self.count('failed')} failed, {self.count('static')} without code; "
                f"{self.kernels} kernels, {self.seconds:.1f} s")
        if self.count("skipped"):
            line += f"; stopped before running {self.count('skipped')} page(s)"
        return line

    def to_json(self) -> dict:
        return {"status": "failed" if self.failures else "ok", "failed": len(self.failures),
                "env": self.env.key(), "seconds": self.seconds, "kernels": self.kernels,
                "pages": [r.summary() for r in self.results]}

    def write(self, path: Path) -> None:
        """Atomically: a reader (the PR summary) sees the previous report or this one, never half of one."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def quotes_source(outputs: dict[str, list[dict]]) -> bool:
    """Outputs that can show source lines: tracebacks, and stderr (warnings print the offending line)."""
    return any(o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")
               for cell in outputs.values() for o in cell)


class Engine:
    """Modes: "auto" executes on a cache miss, "force" always executes, "off" never executes (cache only)."""

    def __init__(self, cache: Cache, env: Environment, *, root: Path | None = None, jobs: int | None = None,
                 timeout: int = 300, kernel: str = "python3", memory_limit_mb: int = 0, mode: str = "auto",
                 page_timeout: float = 900, build_timeout: float = 0, fork: bool = True,
                 log: Callable[[str], None] = print):
        if mode not in ("auto", "force", "off"):
            raise ValueError(f"execution mode must be auto, force or off, not {mode!r}")
        self.cache = cache
        self.env = env
        keep_parsed_in(cache.folder / "parsed")
        self.versions: dict[str, str | None] = {}  # package versions looked up by this run (inputs.changes)
        self.root = Path(root or Path.cwd()).resolve()
        self.jobs = jobs or os.cpu_count() or 1
        extensions = cache.folder / "extensions" / f"torch-{env.torch}-py{env.python}"
        self.options = Options(kernel=kernel, timeout=timeout, memory_limit_mb=memory_limit_mb, cuda=env.cuda,
                               page_timeout=page_timeout, root=self.root, extensions_dir=extensions,
                               fonts=env.fonts)
        self.build_timeout = build_timeout
        self.fork = fork  # kernels forked from a zygote that has imported torch (torchnotes.zygote)
        self.mode = mode
        self.log = log

    def shown(self, path: Path) -> str:
        path = Path(path).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def key(self, page: Page) -> str:
        return key_from_parts(self.key_parts(page))

    def key_parts(self, page: Page) -> dict[str, str]:
        return key_parts(page.code_cells, self.options.kernel, self.env)

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
        deadline = time.monotonic() + self.build_timeout if self.build_timeout else None
        self.versions = {}  # looked up afresh by every build: a package installed between builds counts
        for leftover in clean_leftovers():
            self.log(f"removed {leftover}, left by a build that was killed")
        results: dict[str, PageResult] = {}
        todo: dict[str, list[tuple[str, Page]]] = {}
        used: set[str] = set()
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

        def finish(kernels: int) -> Report:
            ordered = [results[self.shown(p)] for p in paths]
            return Report(self.env, ordered, round(time.perf_counter() - begin, 3), kernels=kernels, used_keys=used)

        if any(r.status == "failed" for r in results.values()):
            # A broken page stops the build before any kernel starts: its error comes first, not last.
            for result in results.values():
                if result.status != "failed":
                    result.status, result.note = "skipped", "the build stopped at a page that cannot be read"
                report(result)
            return finish(0)

        for result in results.values():
            if result.status == "static":
                report(result)

        pending: list[tuple[str, list[tuple[str, Page]]]] = []
        for key, group in todo.items():
            left = []
            for shown, page in group:
                if self._serve(key, shown, page, results, used):
                    report(results[shown])
                else:
                    left.append((shown, page))
            if left:
                pending.append((key, left))

        if self.mode == "off":
            # Publishing from merged shard caches: a page the cache cannot serve is an error, never a run.
            for _, group in pending:
                for shown, _page in group:
                    result = results[shown]
                    result.status, result.error = "failed", NotExecuted(
                        shown, f"execution is off and the cache cannot serve this page ({result.note or 'no entry'})")
                    report(result)
            return finish(0)

        limit = asyncio.Semaphore(self.jobs)
        kernels = 0

        def failed(group: list[tuple[str, Page]], error: NotebookError) -> None:
            names = [shown for shown, _ in group]
            for shown, page in group:
                result = results[shown]
                result.status, result.seconds = "failed", 0.0
                result.error = _relocated(error, shown, page, [n for n in names if n != shown])
                report(result)

        async def one(key: str, group: list[tuple[str, Page]]) -> None:
            nonlocal kernels
            async with entry_lock(self.cache.folder, key):
                # Another build may have written the entry while this one waited for the lock.
                if self.mode != "force":
                    waited = [(s, p) for s, p in group if self._serve(key, s, p, results, used, quiet=True)]
                    for shown, _ in waited:
                        report(results[shown])
                    group = [(s, p) for s, p in group if all(s != w for w, _ in waited)]
                while group:
                    first, page = group[0]
                    if deadline is not None and time.monotonic() >= deadline:
                        error = BuildTimeout(first, f"not started: the build passed its limit of {self.build_timeout:g} s")
                        failed(group, error)
                        return
                    async with limit:
                        execution = await execute_page(page, options, first, deadline=deadline)
                    kernels += 1
                    if execution.error is not None:
                        failed(group, execution.error)
                        return
                    body = self._store(key, page, execution, used)
                    served = {s for s, p in group
                              if s == first or not body["quotes_source"] or full_source_hash(p.code_cells) == body["source"]}
                    for shown, _ in group:
                        if shown in served:
                            # Same code in another language: one kernel, the other page reads the stored result.
                            self._fill(results[shown], body, "run" if shown == first else "cached")
                            report(results[shown])
                    # Outputs that quote source lines are not shared between pages whose comments differ.
                    group = [(s, p) for s, p in group if s not in served]

        options = self.options
        zygote = self._start_zygote() if pending else None
        if zygote is not None:
            options = replace(options, zygote=zygote)
        try:
            await asyncio.gather(*(one(key, group) for key, group in pending))
        finally:
            if zygote is not None:
                zygote.close()
        return finish(kernels)

    def _start_zygote(self) -> Zygote | None:
        """One zygote per build, when this interpreter's ipykernel is the kernel (TORCHNOTES_FORK=0: never)."""
        if os.environ.get("TORCHNOTES_FORK", "1") == "0" or not self.fork:
            return None
        try:
            return Zygote(kernel_env(self.options))
        except ZygoteFailed as error:
            self.log(f"kernels start from scratch: {error}")
            return None

    def _serve(self, key: str, shown: str, page: Page, results: dict, used: set, quiet: bool = False) -> bool:
        """Fill the page's result from the cache when an entry holds for it; otherwise note why not."""
        body, note = self._lookup(key, page)
        result = results[shown]
        if body is None:
            result.note = note
            return False
        self._fill(result, body, "cached")
        result.note = ""
        used.add(key)
        if body["source"] != full_source_hash(page.code_cells):
            used.add(variant_key(key, full_source_hash(page.code_cells)))
        if quiet:
            self.log(f"reused {shown}: another build executed it meanwhile")
        return True

    def _lookup(self, key: str, page: Page) -> tuple[dict | None, str]:
        """The entry that holds for this page, or None and the reason in words."""
        if self.mode == "force":
            return None, ""
        body = self._get(key)
        source = full_source_hash(page.code_cells)
        if body is not None and body.get("quotes_source") and body.get("source") != source:
            # Its outputs quote the twin's source lines (comments in another language): this page keeps its own.
            body = self._get(variant_key(key, source))
        if body is None:
            return None, "no entry"
        changed = changes(self.root, body.get("inputs"), self.versions, self.env.fonts)
        if changed:
            return None, "; ".join(changed)
        return body, ""

    def _get(self, key: str) -> dict | None:
        try:
            return self.cache.get(key)
        except CacheCorrupted as error:
            self.log(f"warning: {error.message}")
            self.cache.discard(key)
            return None

    def _store(self, key: str, page: Page, execution: Execution, used: set) -> dict:
        source = full_source_hash(page.code_cells)
        body = {
            "outputs": execution.outputs,
            "cell_seconds": execution.cell_seconds,
            "seconds": execution.seconds,
            "date": datetime.date.today().isoformat(),
            "env": self.env.key(),
            "key_parts": self.key_parts(page),
            "source": source,
            "quotes_source": quotes_source(execution.outputs),
            "inputs": snapshot(self.root, execution.record, self.env.fonts),
        }
        main = self._get(key)
        # The main entry is any page's whose outputs quote no source, else the first page's; twins with other
        # comments keep theirs under a variant key.
        if main is None or main.get("source") == source or not body["quotes_source"] or changes(self.root, main.get("inputs"), self.versions, self.env.fonts):
            self.cache.put(key, body)
            used.add(key)
        if body["quotes_source"]:
            self.cache.put(variant_key(key, source), body)
            used.add(variant_key(key, source))
        return body

    @staticmethod
    def _fill(result: PageResult, body: dict, status: str) -> None:
        result.status = status
        result.outputs = body["outputs"]
        result.cell_seconds = body["cell_seconds"]
        result.seconds = body["seconds"] if status == "run" else 0.0
        result.run_seconds = body["seconds"]
        result.date = body["date"]


def _relocated(error: NotebookError, shown: str, page: Page, twins: list[str]) -> NotebookError:
    """The same failure, named against this page (its own file and fence line), naming the pages that share the code."""
    line = page.lines[error.cell - 1] if error.cell is not None and error.cell - 1 < len(page.lines) else error.line
    reason = error.reason
    if twins:
        reason += f" (the same code as {', '.join(twins)})"
    return type(error)(shown, reason, cell=error.cell, line=line, hint=error.hint, details=error.details)


_PARTS = {
    "code": "its code cells or their options changed",
    "kernel": "the kernel changed",
    "engine": "the engine's source changed",
    "environment": "the environment changed",
    "variables": "the allow-listed environment variables changed",
}


def explain(engine: Engine, path: Path) -> str:
    """Why the page would be served from the cache or executed, in one line (python -m torchnotes execute --explain)."""
    shown = engine.shown(path)
    try:
        page = read_page(path)
    except NotebookError as error:
        return f"{shown}: cannot be executed: {error.message}"
    if not page.code_cells:
        return f"{shown}: no code cells, nothing to execute"
    parts = engine.key_parts(page)
    key = key_from_parts(parts)
    if engine.mode == "force":
        return f"{shown}: miss: --force executes every page"
    body, note = engine._lookup(key, page)
    if body is not None:
        return f"{shown}: hit: entry {key[:12]} (executed {body['date']}); its code, engine, environment, files, packages and fonts are unchanged"
    if note != "no entry":
        return f"{shown}: miss: entry {key[:12]} exists, but {note}"
    previous = _previous_entry(engine, shown)
    if previous is None:
        return f"{shown}: miss: no entry {key[:12]}, and the last report has no entry of this page to compare with"
    before = previous.get("key_parts", {})
    reasons = []
    for name, text in _PARTS.items():
        if before.get(name) == parts[name]:
            continue
        if name == "environment":
            old, new = previous.get("env", {}), engine.env.key()
            fields_ = [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(new) if k not in ("variables", "fonts") and old.get(k) != new.get(k)]
            text += f" ({'; '.join(fields_)})" if fields_ else ""
        elif name == "variables":
            old, new = json.loads(before.get(name) or "{}"), json.loads(parts[name])
            text += " (" + "; ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(set(old) | set(new))
                                     if old.get(k) != new.get(k)) + ")"
        elif name in ("engine", "kernel"):
            text += f" ({before.get(name)} -> {parts[name]})"
        reasons.append(text)
    return f"{shown}: miss: no entry {key[:12]}; since the last build " + ("; ".join(reasons) or "nothing in the key changed")


def _previous_entry(engine: Engine, shown: str) -> dict | None:
    report = engine.cache.folder / "report.json"
    if not report.exists():
        return None
    rows = json.loads(report.read_text(encoding="utf-8")).get("pages", [])
    key = next((row.get("key") for row in rows if row.get("page") == shown), None)
    return engine._get(key) if key else None


def current_keys(engine: Engine, paths: list[Path]) -> set[str]:
    """The entries the given pages use now (their key, and their own variant for outputs that quote source)."""
    keys = set()
    for path in paths:
        try:
            page = read_page(path)
        except NotebookError:
            continue
        if page.code_cells:
            key = engine.key(page)
            keys |= {key, variant_key(key, full_source_hash(page.code_cells))}
    return keys
