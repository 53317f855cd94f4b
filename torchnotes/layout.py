"""Every path under the build's cache folder (`cache_dir` in mkdocs.yml, .cache/torchnotes by default), in one place.

    <key>.entry.json               executed outputs of one page's code (torchnotes.engine.cache)
    .locks/<key>.lock              one build executes a key at a time (torchnotes.engine.locks)
    report.json                    the last whole build's report; shards/report-<k>-of-<n>.json a shard's
    parsed/                        pages parsed once, kept across builds (torchnotes.pages.read)
    extensions/torch-<v>-py<v>/    C++ extensions the pages compile, per torch and Python
    scripts/                       the .py downloads, kept (torchnotes.publish.script)
    drift.md                       what the compared torch releases print differently (for the PR summary)
    versions/<release>.json        each compared release's environment when it ran (torchnotes.versions)
    failed/                        pages that raise under a compared release: results, not errors
    mkdocs/<config>/, search/<config>/, jinja/   what the MkDocs adapter keeps (HTML, search entries, templates)
    books/                         PDF books kept by a digest of what they were printed from (generators/pdf/keep.py)

Everything here can be deleted: the next build makes it again.
"""

from __future__ import annotations

from pathlib import Path


class CacheFolder:
    def __init__(self, root: Path | str):
        self.root = Path(root)

    @property
    def locks(self) -> Path:
        return self.root / ".locks"

    @property
    def report(self) -> Path:
        return self.root / "report.json"

    def shard_report(self, k: int, n: int) -> Path:
        return self.root / "shards" / f"report-{k}-of-{n}.json"

    @property
    def parsed(self) -> Path:
        return self.root / "parsed"

    def extensions(self, torch: str, python: str) -> Path:
        return self.root / "extensions" / f"torch-{torch}-py{python}"

    @property
    def scripts(self) -> Path:
        return self.root / "scripts"

    @property
    def drift(self) -> Path:
        return self.root / "drift.md"

    @property
    def states(self) -> Path:
        return self.root / "versions"

    @property
    def failed(self) -> Path:
        return self.root / "failed"

    def kept_html(self, config: str) -> Path:
        return self.root / "mkdocs" / config

    def kept_search(self, config: str) -> Path:
        return self.root / "search" / config

    @property
    def jinja(self) -> Path:
        return self.root / "jinja"

    @property
    def books(self) -> Path:
        return self.root / "books"
