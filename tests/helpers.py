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


ROOT = Path(__file__).resolve().parent.parent


def site_search_options(lang: str) -> dict:
    """The options this site's mkdocs.yml gives Material's search (one definition of the separator), for lang,
    with jieba's user dictionary of the torchnotes plugin (search_words) for Chinese."""
    from torchnotes.settings import read_config

    plugins = {name: options for p in read_config(ROOT / "mkdocs.yml")["plugins"] if isinstance(p, dict)
               for name, options in p.items()}
    options = {"lang": [lang], "separator": plugins["search"]["separator"]}
    if lang == "zh":
        options["jieba_dict_user"] = plugins["torchnotes"]["search_words"]
    return options


SEPARATOR = site_search_options("en")["separator"]


def header_links(html_file: Path, css: str) -> set[str]:
    """The href of each link that `css` selects in a built page's header (Material's <header>, which comes before
    the content): parsing the header alone keeps a check of every page of the site fast."""
    from bs4 import BeautifulSoup

    text = html_file.read_text(encoding="utf-8")
    end = text.find("</header>")
    assert end > 0, f"{html_file}: no <header>"
    return {a["href"] for a in BeautifulSoup(text[:end + len("</header>")], "html.parser").select(css)}


def clone_worktree(target: Path, *, link: tuple[str, ...] = ("node_modules",)) -> Path:
    """A snapshot of this checkout at target (scripts/run_workflow.py's: a git clone with the working tree's
    uncommitted, new and deleted files laid over it), whose .venv is layered over this checkout's
    (scripts/layered_venv.py: every package, and its own editable install of the clone's torchnotes); the ignored
    folders in link (npm's packages) are linked."""
    import subprocess
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from run_workflow import snapshot

    snapshot(ROOT, target)
    for name in link:
        if (ROOT / name).exists():
            (target / name).symlink_to(ROOT / name)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "layered_venv.py"), str(ROOT / ".venv"),
                    str(target / ".venv")], check=True, capture_output=True)
    subprocess.run([str(target / ".venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "-e", "."], cwd=target, check=True, capture_output=True)
    return target


def settings_at(root: Path, **options):
    """The site's settings for a project in root (docs/ under it), its cache in root/cache unless options say."""
    from dataclasses import replace

    from torchnotes.settings import DEFAULTS

    options.setdefault("cache_dir", "cache")
    return replace(DEFAULTS, root=Path(root), docs_dir=Path(root) / "docs", **options)
