"""Every repository path README.md and ARCHITECTURE.md name exists, every link between the repository's files
resolves (its #anchor too, as GitHub makes a heading's anchor), and the README stays short.

What counts as a path, outside fenced blocks (a fenced block is a picture or an example, not a reference) but in
```console blocks (commands, as a reader types them):
- a Markdown link's target, unless it is a URL (`scheme:`) or an anchor of the same document (checked as one);
- a code span without spaces, or a word of a code span with spaces, that contains a "/" or ends in one of
  EXTENSIONS after at least one character of name; not an absolute path (`/zh/`, a place on the site or the
  machine), not one under `~`, not a URL;
- of a command (a console line before its `  # comment`, or a code span that starts as the documented commands'
  do, helpers.COMMAND_STARTS), only the program and the script it runs (`bash scripts/serve.sh`,
  `.venv/bin/python scripts/new_page.py`): its arguments are what it reads or makes (`--site site`, `shard1/`,
  `main-report.json`), and tests/test_documented_commands.py runs the command, which fails on a missing input.
How it is checked, relative to the repository root:
- a part with a placeholder (`<lang>`, `…`, `*`, `X.Y.Z`) and every part after it are left out: the parts before
  it are checked (`docs/<lang>/` checks `docs`); nothing before it, nothing is checked;
- a bare file name (no "/", `kernel_setup.py`): some file of the checkout has that name;
- an output, something the build or a command makes, is not looked for: a path git ignores (`site/`,
  `build/publish/…`, `.cache/torchnotes/report.json`, `.venv/bin/python`) and the GPU recordings' folder
  (torchnotes.gpu.store.STORE_DIR, `recorded/`: written by scripts/record_gpu.sh on a GPU machine, committed from
  there, absent until then);
- anything else must exist.
So `torchnotes/engine.py` (a module that became the folder torchnotes/engine/) fails, and so does a bare
`engine.py`.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from helpers import COMMAND_STARTS as STARTS
from helpers import ROOT

DOCUMENTS = ("README.md", "ARCHITECTURE.md")
README_WORDS = 700
EXTENSIONS = ("py", "md", "yml", "yaml", "sh", "txt", "json", "js", "toml", "html", "css", "ipynb", "cfg", "lock")
PATHLIKE = re.compile(r"(?:.*/.*|[\w-][\w.-]*\.(?:" + "|".join(EXTENSIONS) + r"))")
PLACEHOLDER = re.compile(r"<[^<>]*>|…|\*|\b[A-Z]\.[A-Z]\b|\{")
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.S | re.M)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^()\s]+)\)")


def outside_fences(text: str) -> str:
    """The text with every fenced block blanked (line numbers kept)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def named_paths(text: str) -> list[tuple[str, int]]:
    """(path as written, line) for every path the document names (the rule in the module's docstring)."""
    commands = [(line.split("  # ")[0], text.count("\n", 0, block.start()) + 1 + offset)
                for block in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M)
                for offset, line in enumerate(block.group(1).splitlines(), 1)]
    text = outside_fences(text)
    spans = [(span.group(1), text.count("\n", 0, span.start()) + 1) for span in SPAN.finditer(text)]
    found = []
    for words, line in sorted(spans + commands, key=lambda item: item[1]):
        for word in _checked_words(words):
            word = word.strip(",;:()")
            if (PATHLIKE.fullmatch(word) and not word.startswith(("/", "~")) and "://" not in word
                    and not word.startswith("-")):
                found.append((word, line))
    for link in LINK.finditer(text):
        target = link.group(1)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):
            found.append((target, text.count("\n", 0, link.start()) + 1))
    return found


def _checked_words(text: str) -> list[str]:
    words = text.split()
    if not text.startswith(STARTS):
        return words
    runs_a_script = words[0] in ("bash", "python", "python3") or words[0].endswith("/python")
    return words[:2] if runs_a_script and len(words) > 1 and not words[1].startswith("-") else words[:1]


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the document's headings: lower case, punctuation dropped (letters of any script,
    digits, "-" and "_" kept), spaces as "-", a repeated one numbered."""
    anchors: set[str] = set()
    for heading in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", outside_fences(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


class Checkout:
    """What a path is checked against: the files of a git checkout (tracked, and new ones git does not ignore)
    and its ignore rules."""

    def __init__(self, root: Path, outputs: tuple[str, ...]):
        self.root = root
        self.outputs = outputs
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.splitlines()
        self.names = {Path(name).name for name in listed}

    def ignored(self, path: str) -> bool:
        parts = path.rstrip("/").split("/")
        # A folder that is not there yet matches a folder's pattern (`/site/`) only when asked as a folder.
        wanted = [path.rstrip("/"), path.rstrip("/") + "/"] + ["/".join(parts[:i]) + "/" for i in range(1, len(parts))]
        return any(subprocess.run(["git", "check-ignore", "-q", candidate], cwd=self.root,
                                  capture_output=True).returncode == 0 for candidate in wanted)

    def problem(self, path: str) -> str | None:
        """Why the path, as a document names it, does not hold; None when it does."""
        path, _, anchor = path.partition("#")
        if not path:
            return None  # an anchor of the document itself: checked by the caller
        parts = path.split("/")
        for i, part in enumerate(parts):
            if PLACEHOLDER.search(part):
                parts = parts[:i]
                break
        concrete = "/".join(parts)
        if not concrete.strip("/"):
            return None
        if "/" not in path and PATHLIKE.fullmatch(path) and not (self.root / path).exists():
            return None if path in self.names else f"no file of the checkout is named {path}"
        if any(concrete.rstrip("/") == out or concrete.startswith(out + "/") for out in self.outputs):
            return None
        if self.ignored(concrete):
            return None
        target = self.root / concrete
        if not target.exists():
            return f"{concrete} does not exist"
        if anchor and target.suffix == ".md" and anchor not in github_anchors(target.read_text(encoding="utf-8")):
            return f"{concrete} has no heading whose anchor is #{anchor}"
        return None


def problems(document: Path, checkout: Checkout) -> list[str]:
    text = document.read_text(encoding="utf-8")
    found = []
    own = github_anchors(text)
    for path, line in named_paths(text):
        if path.startswith("#"):
            why = None if path[1:] in own else f"no heading here has the anchor {path}"
        else:
            why = checkout.problem(path)
        if why:
            found.append(f"{document.name}:{line}: `{path}`: {why}")
    return found


def repository() -> Checkout:
    from torchnotes.gpu.store import STORE_DIR

    return Checkout(ROOT, outputs=(STORE_DIR,))


def test_every_path_the_readme_and_architecture_name_exists():
    checkout = repository()
    found = [problem for name in DOCUMENTS for problem in problems(ROOT / name, checkout)]
    assert not found, "\n".join(found)
    # The reading finds what the documents name: were it to find nothing, the assertion above would pass empty.
    named = {path for name in DOCUMENTS for path, _ in named_paths((ROOT / name).read_text(encoding="utf-8"))}
    assert {"scripts/serve.sh", "scripts/test.sh", "torchnotes/publish/features/__init__.py", "CONTRIBUTING.md",
            "CONTRIBUTING.md#commands"} <= named, sorted(named)


def test_the_readme_is_short():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= README_WORDS, (f"README.md has {words} words (at most {README_WORDS}): move what a contributor "
                                   "needs to CONTRIBUTING.md, how the build works to ARCHITECTURE.md")


def test_the_checker_finds_a_planted_missing_path(tmp_path):
    """A checkout with one module, an ignored output folder and a guide; a document that names them rightly and
    wrongly: exactly the wrong ones are reported."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("/site/\n.venv\n")
    (tmp_path / "torchnotes" / "engine").mkdir(parents=True)
    (tmp_path / "torchnotes" / "engine" / "cache.py").write_text("")
    (tmp_path / "GUIDE.md").write_text("# Guide\n\n## Set up and preview\n\n```text\n## Not a heading\n```\n")
    document = tmp_path / "ARCHITECTURE.md"
    document.write_text(
        "# Map\n\n"
        "- `torchnotes/engine/` and `torchnotes/engine/cache.py` (`cache.py`), run as `python -m torchnotes`\n"
        "- `torchnotes/engine.py`\n"
        "- a bare `engine.py`\n"
        "- `bash scripts/serve.sh`, `.venv/bin/python -m torchnotes merge shard1/ x.json`, `cp a.md b/c.md`\n"
        "- `site/index.html` and `site/<lang>/` are outputs; `docs/<lang>/` is not\n"
        "- [guide](GUIDE.md#set-up-and-preview), [gone](GUIDE.md#not-a-heading), [here](#map), [nowhere](#nope)\n"
        "- <https://example.org/a/b.py>, `/zh/`, `~/.cache/x.py`, `{{ torch_version }}`\n"
        "\n```console\nbash scripts/missing.sh  # a comment/with.py a slash\n```\n\n```text\ntools/gone.py\n```\n")
    found = problems(document, Checkout(tmp_path, outputs=()))
    assert [f.split(": ", 1)[1] for f in found] == [
        "`torchnotes/engine.py`: torchnotes/engine.py does not exist",
        "`engine.py`: no file of the checkout is named engine.py",
        "`scripts/serve.sh`: scripts/serve.sh does not exist",
        "`docs/<lang>/`: docs does not exist",
        "`scripts/missing.sh`: scripts/missing.sh does not exist",
        "`GUIDE.md#not-a-heading`: GUIDE.md has no heading whose anchor is #not-a-heading",
        "`#nope`: no heading here has the anchor #nope",
    ], found
    assert found[0].startswith("ARCHITECTURE.md:4: "), found[0]


def test_the_real_documents_would_fail_with_the_old_engine_module():
    """The rule is strict enough for the case that asked for it: the README once named engine.py, a module that
    became torchnotes/engine/."""
    checkout = repository()
    assert checkout.problem("torchnotes/engine.py") == "torchnotes/engine.py does not exist"
    assert checkout.problem("engine.py") == "no file of the checkout is named engine.py"
    assert checkout.problem("site/index.html") is None and checkout.problem("recorded/en/tensors/views.json") is None
