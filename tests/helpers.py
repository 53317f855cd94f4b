"""Tiny pages written into tmp_path, so each test states exactly the notebook it runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

FRONT = "---\ntitle: {title}\ndescription: A test page.\n{extra}---\n\n# {title}\n\n"


def page(folder: Path, rel: str, body: str, title: str = "Test", extra: str = "") -> Path:
    path = Path(folder) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FRONT.format(title=title, extra=extra) + textwrap.dedent(body).lstrip(), encoding="utf-8")
    return path


def code(source: str, options: str = "") -> str:
    """A ```python fence; options go on the fence line, e.g. 'tags=["needs-cuda"]'."""
    head = "```python" + (" " + options if options else "")
    return f"{head}\n{textwrap.dedent(source).strip()}\n```\n\n"
