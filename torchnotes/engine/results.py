"""What a build gives back: one result per page, and the report of the whole build (report.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path

from torchnotes.engine.environment import Environment
from torchnotes.errors import NotebookError
from torchnotes.pages.read import Page
from torchnotes.storage import write_atomically


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

    def fill(self, body: dict, status: str) -> None:
        """This page's outputs and times from a cache entry's body; status "run" when this build executed it."""
        self.status = status
        self.outputs = body["outputs"]
        self.cell_seconds = body["cell_seconds"]
        self.seconds = body["seconds"] if status == "run" else 0.0
        self.run_seconds = body["seconds"]
        self.date = body["date"]

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
        write_atomically(path, (json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n").encode())
