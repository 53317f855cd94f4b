"""The version axis's two jobs: run every compared release, and move the site to a new release (the commands
`versions` and `upgrade`, torchnotes/cli/versions.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from torchnotes.engine.cache import Hit
from torchnotes.engine.environment import probe
from torchnotes.engine.results import PageResult
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import NotebookError, VersionInstallFailed, VersionRecordIncomplete, VersionsInvalid
from torchnotes.log import logger
from torchnotes.settings import Settings
from torchnotes.versions.changes import compare, drift_report
from torchnotes.versions.record import RECORD_DIR, Record
from torchnotes.versions.run import CONFIG, PIN, compared_engine, failures, load_versions, read_state, run_version

KEPT_MINORS = 4  # the newest release and the three minor releases before it


def run_versions(settings: Settings, pages: list[Path], only: list[str] | None) -> tuple[str, list[NotebookError]]:
    """Run each compared release (pages that raise there are results), then the site's own; returns the drift
    report and the problems: releases that could not be installed, pages that fail under the site's release."""
    listed = load_versions(settings.root, settings.path("requirements"))
    unknown = sorted(set(only or ()) - set(listed.compared))
    if unknown:
        raise VersionsInvalid(settings.root / CONFIG, f"--only {', '.join(unknown)}: not a compared release "
                                                      f"(compared: {', '.join(listed.compared)})")
    problems: list[NotebookError] = []
    ran = []
    for version in only or listed.compared:
        try:
            report = run_version(settings, version, pages)
        except VersionInstallFailed as error:
            problems.append(error)
            logger.error(error.message)
            continue
        ran.append(version)
        logger.info(f"torch {version}: {report.summary_line()} ({report.count('failed')} raise there: kept as results)")
    env = probe(settings.path("requirements"))
    own = Engine(settings, env, run=Run(mode="auto")).run(pages)
    logger.info(f"torch {env.torch} (the site's): {own.summary_line()}")
    written = write_records(settings, ran, own.results)
    logger.info(f"{RECORD_DIR}/: {written} page record(s) written for {', '.join(ran) or 'no release'}")
    text = drift_report(compare(settings, own.results), settings.site_url, tuple(settings.languages))
    if own.failures:
        text += "\n### Pages that fail with the site's release\n\n" + "\n".join(
            f"- `{e.where}`: {e.reason}" for e in own.failures) + "\n"
        problems += own.failures
    return text, problems


def write_records(settings: Settings, versions: list[str], results: list[PageResult]) -> int:
    """The committed record (compared/) of each release that ran, from what it executed (its cache entries, and
    the failed/ cache for pages that raise there), for the pages the site's release executed."""
    record = Record(settings.root, settings.docs_dir)
    kept_failures = failures(settings)
    written = 0
    for version in versions:
        state = read_state(settings, version)
        engine = compared_engine(settings, state)
        engine.entries.begin()
        for result in results:
            if result.source is None or not result.source.code_cells or result.status not in ("run", "cached"):
                continue
            hit = engine.lookup(result.source)
            other = {"outputs": hit.body["outputs"]} if isinstance(hit, Hit) else kept_failures.load(hit.key)
            if other is None:
                raise VersionRecordIncomplete(result.page, f"torch {version} has no outputs of this page after "
                                                           "running it", hint="run `python -m torchnotes versions` again")
            record.write(version, result.source, result.outputs, other, torch=state["env"]["torch"],
                         page_name=result.page)
            written += 1
    record.prune(list(load_versions(settings.root, settings.path("requirements")).compared))
    return written


def pin(settings: Settings, version: str) -> list[str]:
    """Pin the release in requirements.txt and versions.yml and install it; returns the releases now listed. A
    failed install restores both files and raises VersionInstallFailed."""
    requirements = settings.path("requirements")
    listing = settings.root / CONFIG
    listed = load_versions(settings.root, requirements)
    before = {path: path.read_text(encoding="utf-8") for path in (requirements, listing)}
    releases = next_versions(version, listed.all)
    requirements.write_text(PIN.sub(f"torch=={version}", before[requirements], count=1), encoding="utf-8")
    listing.write_text(_with_versions(before[listing], releases), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                           "-r", str(requirements)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        for path, text in before.items():
            path.write_text(text, encoding="utf-8")
        raise VersionInstallFailed(requirements, f"pip cannot install torch {version}; requirements.txt and "
                                                 f"{CONFIG} are as they were", details=done.stderr[-1500:])
    return releases


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
