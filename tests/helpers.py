"""What the test modules share: this checkout's root, tiny pages written into tmp_path (so each test states exactly
the notebook it runs), the fixture site copied and built, the search box in the browser. A test module imports
from here (or uses conftest's fixtures), never from another test module (test_hygiene checks it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
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
# How a command begins in the documents (tests/test_documented_commands.py runs them, test_docs_paths checks the
# paths they name).
COMMAND_STARTS = ("bash ", ".venv/bin/", "python ", "python3 ", "mkdocs ", "cp ")
FIXTURE_SITE = ROOT / "tests" / "fixtures" / "site"


def fixture_copy(folder: Path, name: str = "site-src", *, synced: bool = True) -> Path:
    """A copy of the fixture site (both languages, every feature) in folder/name; synced: its notebooks paired
    with its pages (torchnotes.publish.paired.sync_pairs), ready to build. The one way a test copies the fixture."""
    src = Path(folder) / name
    shutil.copytree(FIXTURE_SITE, src)
    if synced:
        from torchnotes.publish.paired import sync_pairs

        sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    return src


def build(src: Path, site: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """mkdocs build --strict of the site at src into site; env: variables set for it."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(src / "mkdocs.yml"),
                           "-d", str(site), *extra], capture_output=True, text=True, cwd=src, timeout=600,
                          env=dict(os.environ, **(env or {})))


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


def __getattr__(name: str):
    # SEPARATOR is read from mkdocs.yml when a module asks for it, not when conftest imports this module (a copy
    # of conftest in a planted project, test_browser_support's, has no mkdocs.yml).
    if name == "SEPARATOR":
        return site_search_options("en")["separator"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def cpu_wheel(version: str) -> Path | None:
    """PyTorch's CPU build of a release where one lies in a pip find-links folder (these machines keep 2.13.0's:
    0.7 GB installed and nothing to download, where PyPI's CUDA build is a 3 GB download that installs as 4 GB)."""
    folders = [Path(p) for p in (os.environ.get("PIP_FIND_LINKS", "") + " /opt/wheels").split() if Path(p).is_dir()]
    return next((w for folder in folders for w in sorted(folder.glob(f"torch-{version}+cpu-*.whl"))), None)


def release_builds(version: str) -> dict[str, str]:
    """The variables under which `versions` installs a release as PyTorch's CPU build where its wheel is on disk
    (torchnotes/versions/envs.py, TORCHNOTES_TORCH_BUILD): a clone that runs the documented commands or the deploy
    workflow is then the disk of a small install; elsewhere none, and PyPI's wheel."""
    wheel = cpu_wheel(version)
    return {"TORCHNOTES_TORCH_BUILD": "cpu", "PIP_FIND_LINKS": str(wheel.parent)} if wheel else {}


SUITE_FILES = ("conftest.py", "helpers.py", "schedule.py", "slow.py")  # this suite's conftest and what it imports


def plant_suite(folder: Path, modules: dict[str, str]) -> Path:
    """A project at folder whose tests/ holds this suite's conftest (and what it imports) and the given modules
    ({name: source}), for tests of the conftest's own behaviour run in a child pytest."""
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    for name in SUITE_FILES:
        (folder / "tests" / name).write_text((ROOT / "tests" / name).read_text())
    for name, source in modules.items():
        (folder / "tests" / f"{name}.py").write_text(source)
    (folder / "pytest.ini").write_text("[pytest]\nmarkers =\n    browser: drives Chromium\n")
    return folder


def planted_pytest(folder: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """pytest run in a project plant_suite made, as a developer runs it: no CI or PYTEST_ADDOPTS of this run's."""
    environment = {**{k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")},
                   "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", *args, "tests"], cwd=folder,
                          env=environment, capture_output=True, text=True, timeout=300)


def settings_at(root: Path, **options):
    """The site's settings for a project in root (docs/ under it), its cache in root/cache unless options say."""
    from dataclasses import replace

    from torchnotes.settings import DEFAULTS

    options.setdefault("cache_dir", "cache")
    return replace(DEFAULTS, root=Path(root), docs_dir=Path(root) / "docs", **options)


# ------------------------------------------------------------------------------------------------ search in the browser

TOP = 3  # result pages read per query
VIEWPORT = {"width": 1280, "height": 900}
INPUT = "input.md-search__input"
META = ".md-search-result__meta"
RESULT_ITEMS = ".md-search-result__list > li"  # one item per page, its first link is the page itself
# Results are shown: items are listed, or Material says that nothing matched.
RESULTS_SHOWN = """([meta, items, none]) => document.querySelectorAll(items).length > 0
                    || document.querySelector(meta).textContent.trim() === none"""


class SearchBox:
    """Material's search box on one page: type a query, read the result pages in order."""

    def __init__(self, page, site_base: str):
        self.page = page
        self.site_base = site_base  # absolute URL of the language's site root
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)

    def open(self) -> None:
        self.page.goto(self.site_base, wait_until="domcontentloaded")
        self.page.click(INPUT)  # desktop layout: the box is in the header

    def search(self, query: str, timeout: float = 30.0, first: bool = False) -> tuple[list[str], float]:
        """The result pages (paths under the language's root), best first, and seconds from typing to results.

        `first`: type at once, while the index may still be on its way; otherwise clear the box first and wait
        for Material's empty-box message, so that the results read are this query's.
        """
        page = self.page
        texts = page.evaluate("JSON.parse(document.getElementById('__config').textContent).translations")
        if not first:
            page.fill(INPUT, "")
            page.press(INPUT, "End")  # Material reads the box on keyup
            page.wait_for_function("([sel, text]) => document.querySelector(sel).textContent.trim() === text",
                                   arg=[META, texts["search.result.placeholder"]], timeout=timeout * 1000)
        started = time.monotonic()
        page.fill(INPUT, query)
        page.press(INPUT, "End")
        page.wait_for_function(RESULTS_SHOWN, arg=[META, RESULT_ITEMS, texts["search.result.none"]],
                               timeout=timeout * 1000)
        elapsed = time.monotonic() - started
        hrefs = page.eval_on_selector_all(RESULT_ITEMS, "items => items.map(li => li.querySelector('a').href)")
        pages = []
        for href in hrefs:
            rel = href.split("#", 1)[0].split("?", 1)[0]
            assert rel.startswith(self.site_base), f"result {href} is outside {self.site_base}"
            rel = rel[len(self.site_base):]
            if rel not in pages:
                pages.append(rel)
        return pages, elapsed
