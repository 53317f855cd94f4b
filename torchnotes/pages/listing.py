"""The pages of a language: every Markdown file under docs/<lang>/, in a stable order."""

from __future__ import annotations

from pathlib import Path


def page_paths(docs_dir: Path, lang: str) -> list[Path]:
    return sorted((Path(docs_dir) / lang).rglob("*.md"))
