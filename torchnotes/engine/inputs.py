"""What a page read besides its code: project files it opened or imported, and the packages it used.

The kernel records them (kernel_setup.py: an audit hook on open, and sys.modules at the end), and whether the
page drew text with matplotlib; the engine stores each file's content hash, each package's version and, for a
page that drew text, the fonts in the cache entry, and serves the entry only while they are unchanged.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

# The last, hidden cell of every execution: prints the record as one JSON line.
RECORD_CELL = '__import__("_torchnotes_inputs").dump()'


def parse_record(outputs: list[dict]) -> dict:
    """The record printed by RECORD_CELL; RecordMissing when the kernel printed none."""
    for out in outputs:
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
            for line in reversed(text.strip().splitlines()):
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if isinstance(data, dict) and "files" in data and "packages" in data:
                    return data
    raise RecordMissing("the kernel did not report which files and packages the page used (kernel_setup.py did not run?)")


class RecordMissing(RuntimeError):
    pass


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def snapshot(root: Path, record: dict, fonts: str = "") -> dict:
    """The entry's 'inputs': {"files": {path relative to root: sha256}, "packages": {name: version}}, and
    "fonts" (fonts.font_fingerprint) when the page drew text with matplotlib: its entry holds only while
    the fonts are the same. Keying every page on fonts would re-run the pages without figures for nothing."""
    engine = Path(__file__).resolve().parents[1]  # the package: its source is in the key already (sources.ENGINE_VERSION)
    # Package metadata that `pip install -e .` writes (importlib.metadata scans it): not a file the page uses,
    # and absent from a checkout that has not installed the project.
    files = [rel for rel in record["files"] if not (Path(root) / rel).resolve().is_relative_to(engine)
             and not any(part.endswith((".egg-info", ".dist-info")) for part in Path(rel).parts)]
    inputs = {
        "files": {rel: file_hash(Path(root) / rel) for rel in files},
        "packages": dict(record["packages"]),
    }
    if record.get("draws_text"):
        inputs["fonts"] = fonts
    return inputs


def installed_version(name: str, known: dict[str, str | None] | None = None) -> str | None:
    """The version the next kernel would import: it inherits PYTHONPATH, which this process may not have read.

    `known`: versions already looked up in this build (a lookup scans sys.path; pages share most packages)."""
    if known is not None and name in known:
        return known[name]
    version = _installed_version(name)
    if known is not None:
        known[name] = version
    return version


def _installed_version(name: str) -> str | None:
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for dist in importlib.metadata.distributions(name=name, path=extra + sys.path):
        return dist.version
    return None


def changes(root: Path, inputs: dict | None, known_versions: dict[str, str | None] | None = None,
            fonts: str = "") -> list[str]:
    """Why a stored entry no longer holds: each changed file, package or font set, in words. Empty when all is
    the same. fonts: the build's fonts.font_fingerprint."""
    if inputs is None:
        return ["the entry does not say which files and packages the page used"]
    found = []
    for rel, digest in sorted(inputs.get("files", {}).items()):
        now = file_hash(Path(root) / rel)
        if now != digest:
            found.append(f"file {rel} {'was removed' if now is None else 'changed'}")
    for name, version in sorted(inputs.get("packages", {}).items()):
        now = installed_version(name, known_versions)
        if now != version:
            found.append(f"package {name} {version} -> {now or 'not installed'}")
    if "fonts" in inputs and inputs["fonts"] != fonts:
        found.append(f"fonts changed ({inputs['fonts']} -> {fonts}): the page draws text with matplotlib")
    return found
