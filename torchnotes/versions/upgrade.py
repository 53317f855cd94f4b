"""The two commands of the version axis: run every compared release, and move the site to a new release."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from torchnotes.engine.environment import probe
from torchnotes.engine.scheduler import Engine
from torchnotes.errors import NotebookError, VersionInstallFailed, VersionsInvalid
from torchnotes.settings import Settings
from torchnotes.versions.changes import compare, drift_report
from torchnotes.versions.run import CONFIG, PIN, load_versions, run_version

KEPT_MINORS = 4  # the newest release and the three minor releases before it
NOT_INSTALLED = 3  # upgrade's exit status when pip cannot install the release: nothing changed, no report


def versions_command(settings: Settings, pages: list[Path], only: list[str] | None, report_file: Path | None) -> int:
    """Exit 0 when every release ran (pages that raise under an older release are results); 1 when a release
    could not be installed or a page fails under the site's own release; 2 for a bad versions.yml."""
    try:
        listed = load_versions(settings.root, settings.path("requirements"))
        unknown = sorted(set(only or ()) - set(listed.compared))
        if unknown:
            raise VersionsInvalid(settings.root / CONFIG, f"--only {', '.join(unknown)}: not a compared release "
                                                          f"(compared: {', '.join(listed.compared)})")
    except VersionsInvalid as error:
        print(error.message, file=sys.stderr)
        return 2
    problems: list[NotebookError] = []
    for version in only or listed.compared:
        try:
            report = run_version(settings, version, pages)
        except VersionInstallFailed as error:
            problems.append(error)
            print(error.message, file=sys.stderr)
            continue
        print(f"torch {version}: {report.summary_line()} ({report.count('failed')} raise there: kept as results)")
    env = probe(settings.path("requirements"))
    primary = Engine.from_settings(settings, env, mode="auto")
    own = primary.run(pages)
    print(f"torch {env.torch} (the site's): {own.summary_line()}")
    text = drift_report(compare(settings, own.results))
    if own.failures:
        text += "\n### Pages that fail with the site's release\n\n" + "\n".join(
            f"- `{e.where}`: {e.reason}" for e in own.failures) + "\n"
        problems += own.failures
    print(text)
    if report_file is not None:
        report_file.parent.mkdir(parents=True, exist_ok=True)
        report_file.write_text(text, encoding="utf-8")
    return 1 if problems else 0


def print_matrix(settings: Settings) -> int:
    try:
        listed = load_versions(settings.root, settings.path("requirements"))
    except VersionsInvalid as error:
        print(error.message, file=sys.stderr)
        return 2
    print(json.dumps(list(listed.compared)))
    return 0


def upgrade(settings: Settings, version: str, report_file: Path, config_file: Path) -> int:
    """Pin the release, install it, run every release, write the report. A failed install restores both files and
    exits NOT_INSTALLED; 1 means the report was written and lists pages that fail."""
    requirements = settings.path("requirements")
    listing = settings.root / CONFIG
    try:
        listed = load_versions(settings.root, requirements)
    except VersionsInvalid as error:
        print(error.message, file=sys.stderr)
        return 2
    before = {path: path.read_text(encoding="utf-8") for path in (requirements, listing)}
    releases = next_versions(version, listed.all)
    requirements.write_text(PIN.sub(f"torch=={version}", before[requirements], count=1), encoding="utf-8")
    listing.write_text(_with_versions(before[listing], releases), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                           "-r", str(requirements)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        for path, text in before.items():
            path.write_text(text, encoding="utf-8")
        error = VersionInstallFailed(requirements, f"pip cannot install torch {version}; requirements.txt and "
                                                   f"{CONFIG} are as they were", details=done.stderr[-1500:])
        print(error.message, file=sys.stderr)
        return NOT_INSTALLED
    print(f"pinned torch=={version}; compared releases: {', '.join(releases[1:])}")
    # A new interpreter: this one may have read the old torch's metadata.
    return subprocess.run([sys.executable, "-m", "torchnotes", "-f", str(config_file), "versions",
                           "--report", str(report_file)], check=False).returncode


def next_versions(version: str, current: tuple[str, ...]) -> list[str]:
    """The new release first, then the newest release of each earlier minor, KEPT_MINORS minors in all."""
    minor = _minor(version)
    kept, seen = [version], {minor}
    for release in current:
        if _minor(release) not in seen and len(kept) < KEPT_MINORS:
            kept.append(release)
            seen.add(_minor(release))
    return kept


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("+")[0].split(".")[:2])


def _with_versions(text: str, releases: list[str]) -> str:
    head = text.split("versions:")[0]
    return head + yaml.safe_dump({"versions": releases}, default_style=None, sort_keys=False).replace(
        "- ", "  - ", len(releases))
