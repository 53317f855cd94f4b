"""The axis of torch releases: a pill under each cell whose output differs in an older release, the changes page,
the releases each page was compared with (provenance), and the drift report for the PR summary. Reads the
committed record that `python -m torchnotes versions` writes (compared/, torchnotes.versions.record), never the
cache of an older release: every build shows the same; runs nothing."""

from __future__ import annotations

from pathlib import Path

from torchnotes.errors import NotebookError
from torchnotes.log import logger
from torchnotes.pages.tags import VOLATILE
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.publish.kept_pages import EXECUTED, stat_inputs
from torchnotes.storage import digest, write_if_changed
from torchnotes.strings import strings
from torchnotes.versions.changes import CHANGES_MARKER, Comparison, changes_markdown, compare, drift_report
from torchnotes.versions.drift import release_label


class VersionChanges(Feature):
    def __init__(self, build):
        super().__init__(build)
        self.comparison = Comparison()

    def check(self, pages: list[Path]) -> list[NotebookError]:
        if self.build.checking:
            # Every cell left out of the comparison, with its reason, for review.
            for path in pages:
                for number, cell in enumerate(self.build.reader.page(path).code_cells, 1):
                    if VOLATILE in cell.metadata.get("tags", []):
                        logger.info(f"{VOLATILE}: {path} (code cell {number}): {cell.metadata['reason']}")
        return []

    def start(self) -> None:
        settings, results = self.build.settings, self.build.report.results
        # What compare reads: the record and versions.yml (stat_inputs), and each page's code cells, which its key
        # and its cells' ids name; not the prose, nor whether this build ran a page or the cache served it.
        key = digest([repr(settings), stat_inputs(settings),
                      [[r.page, EXECUTED.get(r.status, r.status), r.key, [c.id for c in r.source.code_cells] if r.source else None]
                       for r in results]])
        self.comparison = self.build.memo.get("versions.compare", key, lambda: compare(settings, results))
        # For the PR summary (python -m torchnotes summary), which reads the cache folder, not the pages.
        settings = self.build.settings
        report = drift_report(self.comparison, settings.site_url, tuple(settings.languages))
        write_if_changed(self.build.folder.drift, report.encode())

    def context(self, out: PageOut) -> dict:
        return {"drift": self.comparison.by_cell(out.result.page), "primary": self.comparison.primary}

    def page(self, out: PageOut, body: str) -> str:
        if CHANGES_MARKER not in body:
            return body
        settings = self.build.settings
        repo = f"https://github.com/{settings.github_repo}" if settings.github_repo else ""
        return body.replace(CHANGES_MARKER, changes_markdown(self.comparison, self.build.report.results, out.lang,
                                                             settings.docs_dir, settings.root, repo))

    def provenance(self, out: PageOut) -> str:
        compared = self.comparison.compared.get(out.result.page)
        # Named as the pills and the changes page name them ("2.14"), not as pip does ("2.14.1+cu130").
        labels = ", ".join(release_label(version) for version in compared or [])
        return strings(out.lang)["compared"].format(versions=labels) if compared else ""
