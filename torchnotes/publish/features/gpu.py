"""GPU recordings: the outputs of needs-cuda cells recorded on a GPU machine (recorded/), shown by a CPU build under
their cells, named in the provenance line and listed on the report page (torchnotes.gpu does the work)."""

from __future__ import annotations

import html
from pathlib import Path

from torchnotes import gpu as recorded
from torchnotes.errors import FileDamaged, NotebookError
from torchnotes.log import logger
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.publish.kept_pages import stat_tree
from torchnotes.storage import digest


class GpuRecordings(Feature):
    def __init__(self, build):
        super().__init__(build)
        self.store = recorded.Store(build.settings.root / recorded.STORE_DIR, build.settings.docs_dir)
        self.warnings: list[NotebookError] = []

    def check(self, pages: list[Path]) -> list[NotebookError]:
        reader = self.build.reader
        # What the check reads: every file of the store, and each page's code cells with their tags; not the prose.
        key = digest([stat_tree(self.store.folder), [[str(path), [[c.source, c.metadata] for c in reader.page(path).code_cells]]
                                                     for path in pages]])
        warnings, errors = self.build.memo.get("gpu.check", key,
                                               lambda: recorded.check(self.store, pages, reader=reader))
        warnings, errors = list(warnings), list(errors)
        if self.build.checking:
            # A build reads a damaged recording as absent (its cells show as not recorded); a pull request that
            # commits one is stopped by the reviewer's check.
            errors += [w for w in warnings if isinstance(w, FileDamaged)]
            warnings = [w for w in warnings if not isinstance(w, FileDamaged)]
        self.warnings = warnings
        if self.build.strict_gpu:
            return errors + warnings
        for warning in warnings:
            # A build names each in a line; the reviewer's check gives the whole message with what to do.
            logger.warning(warning.message if self.build.checking else warning.message.splitlines()[0])
        return errors

    def context(self, out: PageOut) -> dict:
        return {"recorded": {} if self.build.env.cuda else self.store.states(out.page)}

    def provenance(self, out: PageOut) -> str:
        if self.build.env.cuda:
            return ""
        # Each cell number links to its cell's anchor (#cell-N, torchnotes/publish/render.py).
        return recorded.provenance_text(self.store, out.page, out.lang,
                                        cells_as=lambda cells: ", ".join(f"[{n}](#cell-{n})" for n in cells),
                                        escape=html.escape)

    def report(self, lang: str) -> str:
        """The GPU section of the report page."""
        rows = recorded.report_rows(self.store, self.build.settings.docs_dir, lang, reader=self.build.reader)
        return recorded.report_markdown(rows, lang)
