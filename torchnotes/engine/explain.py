"""`python -m torchnotes execute --explain PAGE`: why a page is a cache hit or a miss, part by part."""

from __future__ import annotations

import json
from pathlib import Path

from torchnotes.engine.cache import Hit
from torchnotes.engine.scheduler import Engine
from torchnotes.errors import NotebookError

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
        page = engine.reader.page(path)
    except NotebookError as error:
        return f"{shown}: cannot be executed: {error.message}"
    if not page.code_cells:
        return f"{shown}: no code cells, nothing to execute"
    found = engine.lookup(page)
    key = found.key
    if isinstance(found, Hit):
        return f"{shown}: hit: entry {key[:12]} (executed {found.body['date']}); its code, engine, environment, files, packages and fonts are unchanged"
    if engine.mode == "force":
        return f"{shown}: miss: {found.reason}"
    if found.reason != "no entry":
        return f"{shown}: miss: entry {key[:12]} exists, but {found.reason}"
    previous = _previous_entry(engine, shown)
    if previous is None:
        return f"{shown}: miss: no entry {key[:12]}, and the last report has no entry of this page to compare with"
    reasons = _changed_parts(previous, engine.key_parts(page), engine.env.key())
    return f"{shown}: miss: no entry {key[:12]}; since the last build " + ("; ".join(reasons) or "nothing in the key changed")


def _changed_parts(previous: dict, parts: dict, env_now: dict) -> list[str]:
    before = previous.get("key_parts", {})
    reasons = []
    for name, text in _PARTS.items():
        if before.get(name) == parts[name]:
            continue
        if name == "environment":
            old = previous.get("env", {})
            fields_ = [f"{k} {old.get(k)!r} -> {env_now.get(k)!r}" for k in sorted(env_now)
                       if k not in ("variables", "fonts") and old.get(k) != env_now.get(k)]
            text += f" ({'; '.join(fields_)})" if fields_ else ""
        elif name == "variables":
            old, new = json.loads(before.get(name) or "{}"), json.loads(parts[name])
            text += " (" + "; ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(set(old) | set(new))
                                     if old.get(k) != new.get(k)) + ")"
        elif name in ("engine", "kernel"):
            text += f" ({before.get(name)} -> {parts[name]})"
        reasons.append(text)
    return reasons


def _previous_entry(engine: Engine, shown: str) -> dict | None:
    report = engine.folder.report
    if not report.exists():
        return None
    rows = json.loads(report.read_text(encoding="utf-8")).get("pages", [])
    key = next((row.get("key") for row in rows if row.get("page") == shown), None)
    return engine.entries.read(key) if key else None
