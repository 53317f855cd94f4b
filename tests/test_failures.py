"""The failure suite, through the command line as CI runs it: exit status, a message naming the page, the cell
and the cause, and a following good build that is correct. Tiny sites in tmp_path."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from helpers import code, page

from torchnotes.engine.cache import Cache
from torchnotes.publish.paired import sync_pairs

CONFIG = "site_name: t\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n      memory_limit_mb: 4096\n"
GOOD = code("print('fixed')")


def site(tmp_path, body, extra="", config=CONFIG):
    (tmp_path / "mkdocs.yml").write_text(config)
    for lang in ("en", "zh"):
        page(tmp_path / "docs", f"{lang}/p.md", body, extra=extra)
    synced(tmp_path)
    return tmp_path


def synced(root):
    """Notebooks written from the pages, as after 'torchnotes sync': execute checks the pairs first."""
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    return root


def cli(root, *args, **kwargs):
    return subprocess.run([sys.executable, "-m", "torchnotes", *args], cwd=root, capture_output=True, text=True,
                          timeout=300, **kwargs)


def fix_and_rebuild(root):
    for lang in ("en", "zh"):
        page(root / "docs", f"{lang}/p.md", GOOD)
    synced(root)
    done = cli(root, "execute")
    assert done.returncode == 0, done.stderr
    report = json.loads((root / ".cache/torchnotes/report.json").read_text())
    assert [p["status"] for p in report["pages"]] == ["run", "cached"]
    entry = Cache(root / ".cache/torchnotes").get(report["pages"][0]["key"])
    assert list(entry["outputs"].values()) == [[{"output_type": "stream", "name": "stdout", "text": "fixed\n"}]]


# Each way a page can fail at run time, as (page, body, front matter extra, words its message must hold). They
# all go into one build: the engine runs every page and reports every failure, each against its own file.
RUNTIME_FAILURES = [
    # unexpected exception: the cause and the traceback
    ("raises", code("x = 1") + code("import torch\ntorch.ones(2) @ torch.ones(3)"), "",
     ["(code cell 2)", "RuntimeError", "raises-exception"]),
    ("missing", code("x = 1", 'tags=["raises-exception"] raises="ValueError"'), "",
     ["(code cell 1)", "expected ValueError, but the cell raised nothing"]),
    ("wrong-type", code("[][0]", 'tags=["raises-exception"] raises="ValueError"'), "",
     ["(code cell 1)", "expected ValueError, got IndexError"]),
    ("timeout", code("import time\ntime.sleep(60)"), "timeout: 2\n", ["(code cell 1)", "did not finish within 2 s"]),
    ("death", code("import os\nos._exit(1)"), "", ["(code cell 1)", "kernel died"]),
    # memory blow-up under the cap (4096 MB in CONFIG): 6 GiB of address space is refused only by the cap
    ("memory", code("import torch\nx = torch.empty(6 * 2**30, dtype=torch.uint8)"), "",
     ["(code cell 1)", "can't allocate memory"]),
    ("syntax", code("for i in range(3) print(i)"), "", ["(code cell 1)", "SyntaxError"]),
    # a package the environment lacks: the fix is requirements.txt or dropping the import, not a tag
    ("module", code("x = 1") + code("import torchnotes_no_such_package"), "",
     ["(code cell 2)", "ModuleNotFoundError", "requirements.txt", "drop the import"]),
]
# Pages that cannot be read stop the build before any kernel starts, every one of them reported.
STATIC_FAILURES = [
    ("front-matter", code("x = 1"), "timeout: -5\n", ["'timeout' must be a positive number"]),
    ("tags", code("x = 1", 'tags=["needs-gpu"]'), "", ["(code cell 1)", "unknown tag 'needs-gpu'"]),
]


def message_for(stderr: str, rel: str) -> str:
    """The error block of one page: from the line naming it to the next line naming a page."""
    lines = stderr.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(rel)), None)
    assert start is not None, f"no error names {rel}:\n{stderr}"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("docs/")), len(lines))
    return "\n".join(lines[start:end])


def broken_site(tmp_path, cases):
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    for name, body, extra, _ in cases:
        for lang in ("en", "zh"):
            page(tmp_path / "docs", f"{lang}/{name}.md", body, extra=extra)
    return synced(tmp_path)


def failing_build(tmp_path, cases) -> Path:
    """Build a site of broken pages: the build fails and each page's message holds its words."""
    root = broken_site(tmp_path, cases)
    done = cli(root, "execute")
    assert done.returncode == 1
    for name, _, _, words in cases:
        message = message_for(done.stderr, f"docs/en/{name}.md")
        missing = [word for word in words if word not in message]
        assert not missing, f"{name}: {missing} not in its message:\n{message}"
    return root


def test_every_runtime_failure_names_its_page_cell_and_cause_and_is_never_cached(tmp_path):
    root = failing_build(tmp_path, RUNTIME_FAILURES)
    assert not Cache(root / ".cache/torchnotes").keys()  # a failure is never cached
    # Fixed, the next build runs and caches the page.
    for name, *_ in RUNTIME_FAILURES:
        for lang in ("en", "zh"):
            (root / "docs" / lang / f"{name}.md").unlink()
    for stale in (root / "notebooks").rglob("*.ipynb"):
        stale.unlink()
    fix_and_rebuild(root)


def test_every_unreadable_page_stops_the_build_before_any_kernel(tmp_path):
    root = failing_build(tmp_path, STATIC_FAILURES)
    report = json.loads((root / ".cache/torchnotes/report.json").read_text())
    assert report["status"] == "failed" and report["kernels"] == 0


def test_missing_translation_then_fixed(tmp_path):
    root = site(tmp_path, GOOD)
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    (root / "docs/zh/p.md").unlink()
    done = cli(root, "check")
    assert done.returncode == 1 and "docs/zh/p.md: missing" in done.stderr
    page(root / "docs", "zh/p.md", GOOD)
    assert cli(root, "check").returncode == 0


def test_pair_out_of_sync_then_resynced(tmp_path):
    root = site(tmp_path, GOOD)
    sync_pairs(root / "docs", root / "notebooks", ["en", "zh"])
    page(root / "docs", "en/p.md", code("print('changed')"))
    done = cli(root, "check")
    assert done.returncode == 1 and "docs/en/p.md: page and notebooks/en/p.ipynb differ" in done.stderr
    assert cli(root, "sync").returncode == 0
    assert cli(root, "check").returncode == 0


@pytest.mark.slow  # two whole builds of the fixture site at once
def test_two_builds_at_once_on_one_cache(tmp_path):
    root = site(tmp_path, code("import time\ntime.sleep(1)\nprint('same')"))
    page(root / "docs", "en/q.md", code("print('q')"))
    page(root / "docs", "zh/q.md", code("print('q')"))
    synced(root)
    runs = [subprocess.Popen([sys.executable, "-m", "torchnotes", "execute", "--report", f"r{i}.json"], cwd=root,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    outcomes = [r.communicate(timeout=300) for r in runs]
    assert [r.returncode for r in runs] == [0, 0], outcomes
    # A lock per entry: the second build waits for the first and reuses its entries instead of running them again.
    kernels = [int(re.search(r"(\d+) kernels", out).group(1)) for out, _ in outcomes]
    assert sum(kernels) == 2, outcomes
    cache = Cache(root / ".cache/torchnotes")
    keys = cache.keys()
    assert len(keys) == 2
    for key in keys:
        assert cache.get(key)["outputs"]  # whole, checksummed entries
    assert not list(cache.folder.glob(".*.tmp"))
    again = cli(root, "execute")
    assert "0 kernels" in again.stdout


def _kernels_of(build: int) -> list[int]:
    """PIDs of live kernels started by the build process (they carry TORCHNOTES_BUILD_PID)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if f"TORCHNOTES_BUILD_PID={build}".encode() in environ and state != "Z":
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the parent-death signal is Linux's")
def test_kill_9_of_the_build_kills_its_kernel_and_the_next_build_cleans_up(tmp_path):
    marker = tmp_path / "started"  # outside docs/, which no page may write into
    root = site(tmp_path, code(f"open({str(marker)!r}, 'w').close()\nimport time\ntime.sleep(60)") + code("print('end')"))
    temp = Path(tempfile.mkdtemp(prefix="tn"))  # short: IPC socket paths have a length limit
    env = dict(os.environ, TMPDIR=str(temp))
    run = subprocess.Popen([sys.executable, "-m", "torchnotes", "execute"], cwd=root, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = marker
    for _ in range(600):
        if started.exists():
            break
        time.sleep(0.1)
    assert started.exists(), "the kernel never reached the sleeping cell"
    kernels = _kernels_of(run.pid)
    assert kernels and list(temp.glob(f"torchnotes-{run.pid}-*"))
    os.kill(run.pid, signal.SIGKILL)  # kill -9 of the build process alone
    run.wait(timeout=30)
    time.sleep(0.5)
    assert not _kernels_of(run.pid), "the kernel outlived its build"
    assert list(temp.glob(f"torchnotes-{run.pid}-*"))  # left behind: the next build clears it
    cache = root / ".cache/torchnotes"
    assert not Cache(cache).keys()  # nothing half-written became an entry
    # A write cut short leaves at most a temporary file, which is never read as an entry.
    cache.mkdir(parents=True, exist_ok=True)
    (cache / ".deadbeef.partial.tmp").write_text('{"sha256": "x", "bo')
    for lang in ("en", "zh"):
        page(root / "docs", f"{lang}/p.md", code("print('start')") + code("print('end')"))
    synced(root)
    done = cli(root, "execute", env=env)
    assert done.returncode == 0 and "1 run" in done.stdout, done.stderr
    assert not list(temp.glob("torchnotes-*"))
    shutil.rmtree(temp)


def test_run_prints_each_cell_with_its_time(tmp_path):
    root = site(tmp_path, GOOD)
    page(root / "docs", "en/t.md", code("print('fast')") + code("import time\ntime.sleep(0.6)\nprint('slow')"))
    done = cli(root, "run", "docs/en/t.md")
    assert done.returncode == 0, done.stderr
    times = [float(t) for t in re.findall(r"----- code cell \d \[\]  \((\d+\.\d\d) s\)", done.stdout)]
    assert len(times) == 2 and times[1] >= 0.6 > times[0], done.stdout
    assert "slow" in done.stdout and done.stdout.rstrip().endswith("OK")


def test_run_reports_every_failure_and_blames_an_earlier_cell_only_for_a_name_it_binds(tmp_path):
    """Issue 45 §4: `run` stopped at the first failure and printed no output; a NameError was always blamed on the
    first failing cell, also for a sketch's name that no cell defines."""
    body = (code("import torch\nx = torch.ones(2)\nprint('first ran')") + code("y = x @ torch.ones(3)")
            + code("print(model(x))") + code("z = y + 1") + code("print('last ran')"))
    root = site(tmp_path, body)
    done = cli(root, "run", "docs/en/p.md")
    assert done.returncode == 1
    assert "first ran" in done.stdout and "last ran" in done.stdout  # every cell ran, and is shown with its output
    assert "3 code cell(s) fail: 2, 3, 4" in done.stderr
    assert re.search(r"\(code cell 3\): NameError: name 'model' is not defined\n", done.stderr), done.stderr
    assert "(code cell 4): NameError: name 'y' is not defined (probably because code cell 2 failed)" in done.stderr
    assert 'tags=["skip-execution"]' in done.stderr  # the hint offers it for sketches
