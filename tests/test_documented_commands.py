"""Every command README.md and CONTRIBUTING.md (and its Chinese twin) give, run as written, in document order, in a
clone of this checkout that shares the suite's environment and execution cache.

The commands are read from the documents, never listed here: a command added to a document is run by the next
test run. A command is a line of a ```console block (its `$ ` lines, when it has any) or an inline code span that
starts with a command (`bash `, `.venv/bin/`, `python `, `mkdocs `, `cp `). `python` and `mkdocs` are this
project's (`.venv/bin/`), as in an activated environment. `[optional parts]` are left out. A placeholder (`PAGE`,
`X.Y.Z`, `<name>`) takes the value that a concrete command of the same form has in the documents. Left out, as
the issue that asked for this test says: the two main commands (CI runs `bash scripts/test.sh`, and with it
`pytest`). Run differently, and checked for what they promise:
- servers (`serve.sh`, `lab.sh`, `mkdocs serve`): started, asked for their page (HTTP 200), stopped;
- the GPU recorder: on a machine without a GPU it must say so, exit non-zero, without a traceback, installing
  nothing;
- benchmarks: `--help`, then started: their first line of progress, then stopped;
- `upgrade`: with pip refused (installing another torch into the shared environment is not a test): it must exit
  3, name the release, and leave requirements.txt and versions.yml as they were.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from documented_builds import selected_commands
from helpers import COMMAND_STARTS as STARTS
from helpers import ROOT, clone_worktree, release_builds

SLOW_FIXTURES = {"ran"}  # tests/slow.py: every documented command, run in a clone

DOCUMENTS = ("README.md", "CONTRIBUTING.md", "CONTRIBUTING.zh.md")
MAIN = (re.compile(r"^bash scripts/test\.sh\b"), re.compile(r"^\.venv/bin/python -m pytest\b"))
SERVERS = re.compile(r"^(bash scripts/(serve|lab)\.sh|\.venv/bin/mkdocs serve)\b")
PLACEHOLDER = re.compile(r"<[^<>\s]+>|\b[A-Z][A-Z0-9_]*(?:\.[A-Z]+)*\b")
URL = re.compile(r"https?://(?:127\.0\.0\.1|localhost):\d+[^\s\"'<>]*")


@dataclass
class Command:
    text: str  # as it runs: placeholders filled, optional parts left out
    where: str  # the first document and line that gives it
    kind: str = "plain"
    result: dict = field(default_factory=dict)


def documented(root: Path = ROOT) -> list[tuple[str, str]]:
    """(command as written, "FILE:LINE"), in document order."""
    found = []
    for name in DOCUMENTS:
        text = (root / name).read_text(encoding="utf-8")
        for block in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
            lines = block.group(1).splitlines()
            prompted = any(line.startswith("$ ") for line in lines)
            for offset, line in enumerate(lines, 1):
                if prompted and not line.startswith("$ "):
                    continue  # output shown under a command
                line = _uncomment(line.removeprefix("$ ").strip())
                if line:
                    found.append((line, f"{name}:{text.count(chr(10), 0, block.start()) + 1 + offset}"))
        for span in re.finditer(r"(?<![`\w])`([^`\n]+)`(?!`)", text):
            if span.group(1).startswith(STARTS):
                found.append((span.group(1), f"{name}:{text.count(chr(10), 0, span.start()) + 1}"))
    return sorted(found, key=lambda item: (DOCUMENTS.index(item[1].split(":")[0]), int(item[1].split(":")[1])))


def _uncomment(line: str) -> str:
    return re.split(r"\s+#\s", line, maxsplit=1)[0].strip()


def normalise(text: str) -> str:
    text = re.sub(r"\s*\[[^\[\]]*\]", "", text)  # optional parts
    return re.sub(r"^(python3?|mkdocs) ", lambda m: f".venv/bin/{m.group(1).removesuffix('3')} ", text).strip()


def fill(text: str, concrete: list[str]) -> str | None:
    """text with its placeholders taken from a concrete command of the same form, or None when none has it."""
    words = text.split()
    if not any(PLACEHOLDER.search(word) for word in words):
        return text
    patterns = [_pattern(word) if PLACEHOLDER.search(word) else None for word in words]
    for other in concrete:
        theirs = other.split()
        if len(theirs) >= len(words) and all((p.match(t) if p else t == w) for w, p, t in zip(words, patterns, theirs)):
            return " ".join(theirs[: len(words)])
    return None


def _pattern(word: str) -> re.Pattern:
    """A placeholder word matches any word; one inside a path (`docs/en/<section>/<name>.md`), one path part."""
    if PLACEHOLDER.fullmatch(word):
        return re.compile(r"^\S+$")
    parts = PLACEHOLDER.split(word)
    return re.compile("^" + r"[^\s/]+".join(re.escape(part) for part in parts) + "$")


def commands(root: Path = ROOT) -> list[Command]:
    written = [(normalise(text), where) for text, where in documented(root)]
    concrete = [text for text, _ in written if not any(PLACEHOLDER.search(w) for w in text.split())]
    result: dict[str, Command] = {}
    for text, where in written:
        filled = fill(text, concrete)
        if filled is None:
            result.setdefault(text, Command(text, where, "unfilled"))
            continue
        if any(pattern.search(filled) for pattern in MAIN):
            continue
        kind = ("server" if SERVERS.search(filled) else "gpu" if "scripts/record_gpu.sh" in filled
                else "benchmark" if re.search(r"scripts/benchmark\w*\.py", filled)
                else "upgrade" if " -m torchnotes upgrade " in filled else "plain")
        result.setdefault(filled, Command(filled, where, kind))
    return list(result.values())


COMMANDS = commands()


# ------------------------------------------------------------------------------------------------ running them

def _environment(envs: Path, books: Path) -> dict:
    # The older release CONTRIBUTING's `versions` command names, as PyTorch's CPU build where it is on disk.
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TORCHNOTES_ENVS": str(envs), "TORCHNOTES_BOOKS": str(books),
            "PYTHONDONTWRITEBYTECODE": "1", **release_builds("2.13.0")}


def _where_it_runs(clone: Path, text: str) -> Path:
    """The folder a command runs in: the clone, or for a script the reader downloads from the site (`python
    views-page.py`), the built site's folder that offers it."""
    words = shlex.split(text)
    if len(words) == 2 and words[0].endswith("python") and words[1].endswith(".py") and not (clone / words[1]).exists():
        offered = sorted((clone / "site").rglob(words[1]))
        assert offered, f"{words[1]}: neither in the clone nor offered by its built site"
        return offered[0].parent
    return clone


def _run(command: Command, clone: Path, env: dict) -> None:
    started = time.perf_counter()
    if command.kind == "server":
        command.result = _serve(command.text, clone, env)
    elif command.kind == "benchmark":
        helped = subprocess.run(shlex.split(command.text)[:2] + ["--help"], cwd=clone, env=env, capture_output=True,
                                text=True, timeout=120)
        command.result = {"help": helped.returncode, **_start(command.text, clone, env)}
    else:
        if command.kind == "upgrade":
            env = {**env, "PIP_NO_INDEX": "1"}
            command.result["before"] = {n: (clone / n).read_text() for n in ("requirements.txt", "versions.yml")}
        folder = _where_it_runs(clone, command.text)
        # From another folder (a downloaded script), the same interpreter.
        text = f"{clone}/{command.text}" if folder != clone and command.text.startswith(".venv/") else command.text
        done = subprocess.run(["bash", "-c", text], cwd=folder, env=env, capture_output=True, text=True, timeout=900)
        command.result.update(returncode=done.returncode, stdout=done.stdout, stderr=done.stderr)
        if command.kind == "upgrade":
            command.result["after"] = {n: (clone / n).read_text() for n in ("requirements.txt", "versions.yml")}
    command.result["seconds"] = time.perf_counter() - started


def _reader(process: subprocess.Popen, lines: list[str]) -> threading.Thread:
    def read():
        for line in process.stdout:
            lines.append(line)
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _stop(process: subprocess.Popen, reader: threading.Thread) -> None:
    """The whole process group (a script's server is its child), then the pipe, once the reader has drained it."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    reader.join(timeout=20)
    process.stdout.close()


def _serve(text: str, clone: Path, env: dict, limit: float = 400) -> dict:
    """Start the server, wait for the address it announces, fetch it (and for serve.sh, the two language roots the
    README promises), stop it."""
    process = subprocess.Popen(text, shell=True, executable="/bin/bash", cwd=clone, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: list[str] = []
    reader = _reader(process, lines)
    statuses: dict[str, int | str] = {}
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline and process.poll() is None and not statuses:
            announced = [m.group(0) for line in lines for m in [URL.search(line)] if m]
            if announced:
                base = announced[-1]
                wanted, follow = [base], True  # the address a server announces may redirect (a login cookie)
                if "scripts/serve.sh" in text:  # the README's promise, as written: each language at its root
                    origin = re.match(r"https?://[^/]+", base).group(0)
                    wanted, follow = [origin + "/", origin + "/zh/"], False
                for url in wanted:
                    statuses[url] = _fetch(url, deadline, follow)
            time.sleep(0.5)
    finally:
        _stop(process, reader)
    return {"statuses": statuses, "output": "".join(lines)[-4000:], "returncode": process.returncode}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is an answer: "/ redirects to /pytorch-notes/" is not "the site at /"


def _fetch(url: str, deadline: float, follow: bool) -> int | str:
    """The page's HTTP status, asked again only while the server is not answering yet (still building)."""
    opener = urllib.request.build_opener(*(() if follow else (_NoRedirect,)))
    while True:
        try:
            with opener.open(url, timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError as error:  # refused or reset: the server is not listening yet
            if time.monotonic() > deadline:
                return repr(error)
            time.sleep(1)


def _start(text: str, clone: Path, env: dict, limit: float = 300) -> dict:
    """A benchmark started: its first line of output, then stopped (or its exit, if it ends first)."""
    process = subprocess.Popen(text, shell=True, executable="/bin/bash", cwd=clone, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    lines: list[str] = []
    reader = _reader(process, lines)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None and not lines:
        time.sleep(0.2)
    time.sleep(2)  # what follows the first line (an immediate failure) is seen too
    returncode = process.poll()
    _stop(process, reader)
    return {"first": lines[0] if lines else "", "output": "".join(lines)[-4000:], "exited": returncode}


@pytest.fixture(scope="module")
def ran(tmp_path_factory, built_site, version_envs, kept_books, documented_builds, request) -> dict[str, Command]:
    """Every command, in document order, in one clone (each sees what the ones before it made, as a reader's
    checkout would). built_site: this checkout's execution cache is full before the clone takes a copy.
    documented_builds: the Zensical site and the offline copy it builds are read by test_generators and test_offline."""
    documented_builds.start()
    try:
        return _ran_in_a_clone(tmp_path_factory, version_envs, kept_books, documented_builds, request)
    finally:
        documented_builds.finish()


def _ran_in_a_clone(tmp_path_factory, version_envs, kept_books, documented_builds, request) -> dict[str, Command]:
    clone = clone_worktree(tmp_path_factory.mktemp("documented") / "repo")
    shutil.copytree(ROOT / ".cache" / "torchnotes", clone / ".cache" / "torchnotes")
    # The older releases' environments and the printed books, shared with the other clones of the run (the deploy
    # workflow's) and kept between runs: a reader's ~/.cache/torchnotes/envs, a reader's build cache.
    env = _environment(version_envs, kept_books)
    # Only the commands of the selected tests (`-k build_pdf` runs that one), still in document order.
    selected = selected_commands(request.session)
    for command in COMMANDS:
        if command.kind != "unfilled" and command.text in selected:
            _run(command, clone, env)
            documented_builds.ran(command.text, clone, command.result)
    # What each command took, for whoever keeps CI's time in check (pytest's cache folder).
    request.config.cache.set("documented-commands/seconds", {c.where + " " + c.text: round(c.result["seconds"], 1)
                                                             for c in COMMANDS if "seconds" in c.result})
    return {"clone": clone, **{command.text: command for command in COMMANDS}}


def _ids(command: Command) -> str:
    return f"{command.where} {command.text}"[:120]


@pytest.mark.parametrize("command", COMMANDS, ids=_ids)
def test_documented_command_works_as_written(ran, command):
    done = ran[command.text].result
    clone = ran["clone"]
    said = f"{command.where}: `{command.text}`"
    if command.kind == "unfilled":
        pytest.fail(f"{said} has a placeholder that no concrete command in {', '.join(DOCUMENTS)} fills: give an "
                    "example of it with real values (the README's table of tasks)")
    elif command.kind == "server":
        assert done["statuses"], f"{said} announced no address:\n{done['output']}"
        assert all(status == 200 for status in done["statuses"].values()), f"{said}: {done['statuses']}\n{done['output']}"
    elif command.kind == "gpu":
        assert done["returncode"] != 0, f"{said} claims success on a machine without a GPU"
        assert "no NVIDIA GPU" in done["stderr"] and "Traceback" not in done["stderr"], said + "\n" + done["stderr"]
        assert not (clone / ".cache" / "gpu-venv").exists(), f"{said} made an environment before looking for a GPU"
    elif command.kind == "benchmark":
        assert done["help"] == 0, f"{said}: --help failed"
        assert done["first"] and not re.search(r"Traceback|error", done["output"], re.I), f"{said}:\n{done['output']}"
        assert done["exited"] in (None, 0), f"{said} stopped with {done['exited']}:\n{done['output']}"
    elif command.kind == "upgrade":
        assert done["returncode"] == 3, f"{said}: {done['returncode']}\n{done['stderr'][-2000:]}"
        assert "pip cannot install torch" in done["stderr"] and done["before"] == done["after"], done["stderr"][-2000:]
    else:
        assert done["returncode"] == 0, (f"{said} failed ({done['returncode']}):\n{done['stdout'][-2000:]}\n"
                                         f"{done['stderr'][-3000:]}")
        assert "Traceback" not in done["stderr"], f"{said}:\n{done['stderr'][-3000:]}"


def test_the_documents_give_commands_of_every_kind():
    """The reading finds what the documents hold: if it found nothing of a kind, the test above would pass empty."""
    kinds = {command.kind for command in COMMANDS}
    assert {"plain", "server", "gpu", "benchmark", "upgrade"} <= kinds, kinds
    texts = [command.text for command in COMMANDS]
    assert "bash scripts/build_pdf.sh" in texts and "bash scripts/serve.sh" in texts
    assert not any(pattern.search(text) for pattern in MAIN for text in texts)


def test_placeholders_take_the_values_of_a_concrete_command():
    concrete = [".venv/bin/python -m torchnotes run docs/en/tensors/views.md", ".venv/bin/python -m torchnotes upgrade 2.16.0 --report x.md"]
    assert fill(".venv/bin/python -m torchnotes run docs/en/<section>/<name>.md", concrete) == concrete[0]
    assert fill(".venv/bin/python -m torchnotes run PAGE", concrete) == concrete[0]
    assert fill(".venv/bin/python -m torchnotes upgrade X.Y.Z", concrete) == ".venv/bin/python -m torchnotes upgrade 2.16.0"
    assert fill(".venv/bin/python -m torchnotes explain PAGE", concrete) is None
    assert normalise("python -m torchnotes render [OUT] [--no-execute]") == ".venv/bin/python -m torchnotes render"
