"""The build's options, read from the `torchnotes` block of mkdocs.yml without importing MkDocs.

The MkDocs plugin declares the same options with these defaults (torchnotes/generators/mkdocs/config.py), so the CLI,
the publish step and every generator agree on one set of values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Settings:
    execute: str = "auto"
    cache_dir: str = ".cache/torchnotes"
    publish_dir: str = "build/publish"
    timeout: int = 300
    jobs: int = 0
    kernel: str = "python3"
    memory_limit_mb: int = 0
    languages: list = field(default_factory=lambda: ["en", "zh"])
    notebooks_dir: str = "notebooks"
    requirements: str = "requirements.txt"
    github_repo: str = ""
    branch: str = "main"
    search_words: str = ""
    search_synonyms: str = ""  # the search's synonym file (torchnotes/publish/search_expand.py); "": the glossary alone
    # Where mkdocs.yml lives, its docs_dir and site_url (the published site, which the PR summary links to); not
    # plugin options.
    root: Path = Path(".")
    docs_dir: Path = Path("docs")
    site_url: str = ""

    @property
    def options(self) -> tuple[str, ...]:
        return tuple(f.name for f in fields(self) if f.name not in ("root", "docs_dir", "site_url"))

    def path(self, name: str) -> Path:
        """An option that names a folder, resolved against mkdocs.yml's folder."""
        return self.root / getattr(self, name)


DEFAULTS = Settings()


class _Loader(yaml.SafeLoader):
    pass


# mkdocs.yml may carry !ENV or !!python tags for other plugins; only plain values matter here.
_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def read_config(config_file: Path) -> dict:
    return yaml.load(Path(config_file).read_text(encoding="utf-8"), Loader=_Loader) or {}


def load(config_file: Path | str = "mkdocs.yml") -> Settings:
    config_file = Path(config_file)
    data = read_config(config_file)
    found: dict = {}
    for plugin in data.get("plugins", []):
        if isinstance(plugin, dict) and "torchnotes" in plugin:
            found = dict(plugin["torchnotes"] or {})
            found.pop("enabled", None)  # the MkDocs switch, not a build option
    unknown = set(found) - set(DEFAULTS.options)
    if unknown:
        raise ValueError(f"{config_file}: unknown torchnotes option(s) {sorted(unknown)}; known: {', '.join(DEFAULTS.options)}")
    # Relative to where the command runs, so messages name files as the contributor types them.
    root = Path(os.path.relpath(config_file.resolve().parent))
    return replace(DEFAULTS, root=root, docs_dir=root / data.get("docs_dir", "docs"), site_url=data.get("site_url") or "",
                   **found)
