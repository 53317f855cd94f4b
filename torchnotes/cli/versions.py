"""The commands of the version axis: run every compared torch release, and move the site to a new release."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from torchnotes.cli.common import all_pages
from torchnotes.errors import VersionInstallFailed
from torchnotes.settings import Settings
from torchnotes.versions.run import load_versions
from torchnotes.versions.upgrade import pin, run_versions

NOT_INSTALLED = 3  # upgrade's exit status when pip cannot install the release: nothing changed, no report


def versions(settings: Settings, args) -> int:
    """Exit 0 when every release ran (pages that raise under an older release are results); 1 when a release
    could not be installed or a page fails under the site's own release; 2 for a bad versions.yml."""
    if args.matrix:  # the deploy workflow's matrix
        print(json.dumps(list(load_versions(settings.root, settings.path("requirements")).compared)))
        return 0
    text, problems = run_versions(settings, args.pages or all_pages(settings), args.only)
    print(text)
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text, encoding="utf-8")
    return 1 if problems else 0


def upgrade(settings: Settings, args) -> int:
    """Pin the release, install it, run every release, write the report. A failed install restores both files and
    exits NOT_INSTALLED; 1 means the report was written and lists pages that fail."""
    try:
        releases = pin(settings, args.version)
    except VersionInstallFailed as error:
        error.exit_code = NOT_INSTALLED
        raise
    print(f"pinned torch=={args.version}; compared releases: {', '.join(releases[1:])}")
    # A new interpreter: this one may have read the old torch's metadata.
    return subprocess.run([sys.executable, "-m", "torchnotes", "-f", str(args.config_file), "versions",
                           "--report", str(args.report)], check=False).returncode


def versions_arguments(command) -> None:
    command.add_argument("pages", nargs="*", type=Path, help="only these pages (a shard of the deploy workflow)")
    command.add_argument("--only", action="append", metavar="VERSION", help="only this compared release (repeatable)")
    command.add_argument("--report", type=Path, help="also write the Markdown drift report to this file")
    command.add_argument("--matrix", action="store_true", help="print the compared releases as a JSON list and stop "
                                                               "(the deploy workflow's matrix)")


def upgrade_arguments(command) -> None:
    command.add_argument("version", help="the new release, e.g. 2.16.0")
    command.add_argument("--report", type=Path, default=Path("build/torch-upgrade.md"), help="where the report goes")
