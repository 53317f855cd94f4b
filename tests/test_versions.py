"""The version axis with two real torch releases: this environment's (the site's) and 2.13.0's CPU wheel.

One small site in tmp_path has a page whose cells print the same in both releases, print something else in
2.13 (an error message PyTorch reworded), vary from run to run (an address, a timing, the version string, masked
before comparing; the clock, tagged volatile) and use an API 2.13 does not have yet. `python -m torchnotes versions` executes it under
2.13.0 in an environment of its own; both generators then show the markers.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, code, cpu_wheel, fixture_copy, page

from torchnotes.errors import InvalidTags, VersionsInvalid
from torchnotes.pages.read import read_page
from torchnotes.versions.drift import compare_page, normalise
from torchnotes.versions.envs import env_name
from torchnotes.versions.run import load_versions, pinned_torch

SLOW_FIXTURES = {"envs"}  # tests/slow.py: torch 2.13 installed, the fixture site run under it

# 2.13.0's CPU wheel where one lies on disk (these machines keep it in a pip find-links folder: a small, fast
# install); PyPI's own 2.13.0 wheel elsewhere. Either way a real release, really installed and executed.
CPU_WHEEL = cpu_wheel("2.13.0")
OLD = "2.13.0+cpu" if CPU_WHEEL else "2.13.0"
PRIMARY = pinned_torch(ROOT / "requirements.txt")
MINOR = ".".join(PRIMARY.split("+")[0].split(".")[:2])  # how the pills name a release

LONG_WARNING = ("this call is going away in a later release, together with every one of its keyword "
                "arguments, so each page that uses it should move to the replacement described in the notes "
                "before the next upgrade")
CELLS = [
    ("same", code("import torch\nprint(torch.ones(3).sum().item())")),
    # 2.15: "mm: self must be a matrix, got 3-D tensor"; 2.13: "self must be a matrix".
    ("differs", code("try:\n    torch.mm(torch.ones(2, 2, 2), torch.ones(2, 2))\nexcept RuntimeError as error:\n"
                     "    print(error)")),
    # The version and the build are what a release says about itself, not a change (drift's version masks).
    ("masked", code("import time\nstart = time.perf_counter()\nprint(object())\n"
                    "print(f'took {time.perf_counter() - start:.6f} s')\nprint('PyTorch:', torch.__version__)")),
    ("volatile", code("print(time.time_ns())", 'tags=["volatile"] reason="prints the clock"')),
    ("raises", code("print(torch.foreach.__name__)")),  # torch.foreach is new since 2.14
    # After the cell that raises under 2.13: not compared there. Warnings under the site's release: one Python
    # reports (to look at, long enough to be folded), one the page catches and prints on purpose.
    # (Named so that the text beside it, "Cell deprecated.", does not say that it warns: the page does not explain it.)
    ("deprecated", code(f"import warnings\nwarnings.warn({LONG_WARNING!r}, FutureWarning)")),
    ("caught", code("with warnings.catch_warnings(record=True) as caught:\n    warnings.simplefilter('always')\n"
                    "    warnings.warn('shown on purpose', UserWarning)\n"
                    "print(caught[0].category.__name__ + ':', caught[0].message)")),
]
PAGE_BODY = ("Built with PyTorch {{ torch_version }} ({{ torch_release }}); `{{ torch_version }}` is code.\n\n"
             + "".join(f"Cell {name}.\n\n{fence}" for name, fence in CELLS))
CHANGES = "---\ntitle: {title}\ndescription: Changes.\n---\n\n# {title}\n\n<!-- torchnotes:version-changes -->\n"


def run(site: Path, *args: str, envs: Path, no_index: bool = False) -> subprocess.CompletedProcess:
    # PYTHONDONTWRITEBYTECODE as many container images set it (this machine's among them): the compared
    # environment must still keep torch's bytecode (test_a_deleted_environment_is_made_again_with_a_message).
    env = {**os.environ, "TORCHNOTES_ENVS": str(envs), "NO_MKDOCS_2_WARNING": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    if no_index:  # a release that does not exist: pip fails the same way without reading PyPI's list of torch files
        env["PIP_NO_INDEX"] = "1"
    if CPU_WHEEL:
        env["PIP_FIND_LINKS"] = str(CPU_WHEEL.parent)
    return subprocess.run([sys.executable, *args], cwd=site, capture_output=True, text=True, check=False, env=env)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("versions")
    site = fixture_copy(root, "site", synced=False)
    # This repository's requirements: an older release's environment is keyed by them (torchnotes/versions/envs.py),
    # so the site shares the one the documented commands and the deploy workflow use.
    shutil.copyfile(ROOT / "requirements.txt", site / "requirements.txt")
    (site / "versions.yml").write_text(f'versions:\n  - "{PRIMARY}"\n  - "{OLD}"\n')
    page(site / "docs", "en/drift.md", PAGE_BODY, title="Drift")
    page(site / "docs", "zh/drift.md", PAGE_BODY.replace("Cell", "单元"), title="漂移")
    (site / "docs" / "en" / "versions.md").write_text(CHANGES.format(title="Changes"))
    (site / "docs" / "zh" / "versions.md").write_text(CHANGES.format(title="版本变化"))
    config = site / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - report.md\n", "  - report.md\n  - drift.md\n  - versions.md\n"))
    return site


@pytest.fixture(scope="module")
def envs(version_envs) -> Path:
    """The compared releases' environments the whole run shares (conftest's version_envs: the documented commands'
    and the deploy workflow's clones use the same one), kept in pytest's cache folder between runs as a site keeps
    them in ~/.cache/torchnotes. The fixture site has this repository's requirements, so its torch 2.13 is theirs:
    installed once a run at most. test_a_deleted_environment_is_made_again_with_a_message deletes and makes again a
    copy of it, never the shared one the others may be reading."""
    return version_envs


@pytest.fixture(scope="module")
def compared(site, envs) -> subprocess.CompletedProcess:
    done = run(site, "-m", "torchnotes", "versions", "--report", "drift.md", envs=envs)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def built(site, compared, envs) -> Path:
    done = run(site, "-m", "mkdocs", "build", "--strict", "--site-dir", "out", envs=envs)
    assert done.returncode == 0, done.stderr[-3000:]
    return site / "out"


def drift_blocks(html: str) -> dict[str, str]:
    """Each cell's markers, by the cell's number (its id is cell-<number>-<hash>)."""
    return {int(m.group(1)): m.group(0) for m in re.finditer(r'<div class="nb-drifts" id="drift-code-(\d+)-[^"]*".*?</div>', html, re.S)}


def test_a_real_difference_is_marked_and_opens_on_a_diff(built):
    blocks = drift_blocks((built / "drift" / "index.html").read_text())
    differs = blocks[2]
    assert "differs in 2.13" in differs
    # Old above new, each line labelled with its release; no '+'/'-' signs, no hunk header.
    old = differs.index('<span class="nb-drift-release">2.13</span>self must be a matrix')
    new = differs.index(f'<span class="nb-drift-release">{MINOR}</span>mm: self must be a matrix')
    assert old < new and "@@" not in differs


def test_identical_masked_and_volatile_outputs_show_nothing(built):
    blocks = drift_blocks((built / "drift" / "index.html").read_text())
    assert set(blocks) == {2, 5}, f"markers under cells {sorted(blocks)}; only 2 (a message) and 5 (new API) differ"


def test_an_older_release_raising_is_shown_as_such(built):
    raised = drift_blocks((built / "drift" / "index.html").read_text())[5]
    assert "raises in 2.13" in raised
    assert "AttributeError" in raised and "foreach" in raised


def test_chinese_page_and_provenance_name_the_compared_release(built):
    zh = (built / "zh" / "drift" / "index.html").read_text()
    assert "在 2.13 中不同" in drift_blocks(zh)[2] and "在 2.13 中报错" in drift_blocks(zh)[5]
    assert "compared with PyTorch 2.13" in (built / "drift" / "index.html").read_text()
    assert "已与 PyTorch 2.13 对比" in zh


def test_changes_page_lists_each_differing_cell_with_a_link_and_the_volatile_reason(built):
    html = (built / "versions" / "index.html").read_text()
    assert "PyTorch 2.13: 2 cell(s) differ" in html and f"Compared with PyTorch {OLD} on" in html
    # To the cell's number, above its code (not to the pills under its output).
    links = re.findall(r'<li><a href="\.\./drift/#(cell-\d+)"', html)
    assert links == ["cell-2", "cell-5"], links
    page_html = (built / "drift" / "index.html").read_text()
    assert all(f'id="{link}"' in page_html for link in links)
    assert "prints the clock" in html
    raises = re.search(r"PyTorch 2\.13 raises on 1 page\(s\): (.*?)\.</p>", html)
    assert raises and 'href="../drift/#cell-5"' in raises.group(1), html


def test_nothing_changed_runs_nothing(site, compared, envs):
    again = run(site, "-m", "torchnotes", "versions", envs=envs)
    assert again.returncode == 0, again.stderr[-2000:]
    assert re.search(rf"torch {re.escape(OLD)}: \d+ pages: 0 run", again.stdout), again.stdout
    assert "0 kernels" in again.stdout


def test_the_drift_report_names_cells_and_failing_pages(site, compared):
    report = (site / "drift.md").read_text()
    # Two cells on each language's page; both pages raise at cell 5; no cell changed since.
    assert re.search(rf"\| {re.escape(OLD)} \| \d+ of \d+ \| \d+ \| 4 \| 2 \| 0 \|", report), report


def test_zensical_shows_the_same_markers(site, built, envs):
    done = run(site, "-m", "torchnotes", "zensical", "--site-dir", "out-zensical", envs=envs)
    assert done.returncode == 0, done.stderr[-3000:]
    release = PRIMARY.split("+")[0]
    for html in ((built / "drift" / "index.html").read_text(), (site / "out-zensical" / "drift" / "index.html").read_text()):
        # {{ torch_version }} in prose: the build's number, in both generators; in code it stays as written.
        assert f"Built with PyTorch {release.rsplit('.', 1)[0]} ({release})" in html
        assert "<code>{{ torch_version }}</code>" in html
    ours = drift_blocks((built / "drift" / "index.html").read_text())
    theirs = drift_blocks((site / "out-zensical" / "drift" / "index.html").read_text())
    assert set(theirs) == set(ours) == {2, 5}
    assert "differs in 2.13" in theirs[2]


def test_two_builds_of_one_release_report_no_drift(tmp_path, make_engine):
    path = page(tmp_path, "en/a.md", PAGE_BODY.split("Cell raises.")[0])
    first = make_engine(mode="force").run([path]).results[0]
    second = make_engine(mode="force").run([path]).results[0]
    assert first.outputs != second.outputs  # the address, the timing and the clock did change
    assert compare_page(read_page(path), first.outputs, PRIMARY, {"outputs": second.outputs}) == []


def test_masks_keep_real_changes():
    logged = "W1124 11:04:12.255000 9019 torch/_dynamo/x.py:12] recompiling\n<object at 0x7f3a2c1b5e10> 0.25 ms"
    assert normalise(logged) == "recompiling\n<object at 0x…> <time>"
    assert normalise('File "/opt/x/site-packages/torch/nn.py", line 42') == 'File "torch/nn.py", line N'
    assert normalise("tensor([1., 2.])") != normalise("tensor([1., 3.])")


def test_a_version_listed_twice_is_refused(tmp_path):
    (tmp_path / "requirements.txt").write_text(f"torch=={PRIMARY}\n")
    (tmp_path / "versions.yml").write_text(f'versions: ["{PRIMARY}", "2.13.0", "2.13.0"]\n')
    with pytest.raises(VersionsInvalid, match=r"2\.13\.0 is listed twice \(entries 2 and 3\)"):
        load_versions(tmp_path, tmp_path / "requirements.txt")


def test_volatile_without_a_reason_is_refused(tmp_path):
    path = page(tmp_path, "en/a.md", code("print(1)", 'tags=["volatile"]'))
    with pytest.raises(InvalidTags, match=r"tag 'volatile' needs reason="):
        read_page(path)


def test_a_version_pip_cannot_install_leaves_nothing_behind(site, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(site, bad, ignore=shutil.ignore_patterns("out*", ".cache"))
    (bad / "versions.yml").write_text(f'versions:\n  - "{PRIMARY}"\n  - "2.13.99"\n')
    done = run(bad, "-m", "torchnotes", "versions", envs=tmp_path / "envs", no_index=True)
    assert done.returncode == 1
    assert "pip cannot install torch 2.13.99" in done.stderr
    assert not any((tmp_path / "envs").glob("torch-2.13.99*")), "a half-made environment was left"


def test_a_deleted_environment_is_made_again_with_a_message(site, compared, envs, tmp_path):
    """Made again by pip with --no-compile, under PYTHONDONTWRITEBYTECODE (run()): the first probe still writes
    what importing torch compiled, so the environment's kernels import torch without compiling it again.

    On a copy of the site with an environments folder of its own, holding the shared environment as hard links:
    the site's build records that copy as its environment, which this test then deletes."""
    shared = envs / env_name(OLD, site / "requirements.txt")
    own, copy = tmp_path / "envs", tmp_path / "site"
    own.mkdir()
    subprocess.run(["cp", "-al", str(shared), str(own / shared.name)], check=True)
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("out*"))
    first = run(copy, "-m", "torchnotes", "versions", envs=own)
    assert first.returncode == 0 and "creating" not in first.stdout, first.stdout[-2000:] + first.stderr[-2000:]
    made = own / shared.name
    shutil.rmtree(made)
    again = run(copy, "-m", "torchnotes", "versions", envs=own)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"the environment {made} was deleted since the last build; creating it again" in again.stdout
    assert made.is_dir() and shared.is_dir()
    torch = next(made.glob("lib/python*/site-packages/torch"))
    assert list((torch / "__pycache__").glob("__init__.*.pyc")) and list((torch / "nn" / "__pycache__").glob("*.pyc"))
    assert re.search(rf"torch {re.escape(OLD)}: \d+ pages: 0 run", again.stdout)  # same key: the cache still serves


def test_check_lists_every_volatile_cell_with_its_reason(site, built, envs):
    done = run(site, "-m", "torchnotes", "check", envs=envs)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "volatile: docs/en/drift.md (code cell 4): prints the clock" in done.stdout
    assert "volatile: docs/zh/drift.md (code cell 4): prints the clock" in done.stdout


def test_the_pr_summary_includes_drift(site, built, envs):
    done = run(site, "-m", "torchnotes", "summary", envs=envs)
    assert done.returncode == 0, done.stderr
    assert "Outputs across PyTorch releases" in done.stdout
    assert re.search(rf"\| {re.escape(OLD)} \| \d+ of \d+ \| \d+ \| 4 \| 2 \| 0 \|", done.stdout), done.stdout


@pytest.mark.parametrize("new, expected", [
    ("2.16.0", ["2.16.0", "2.15.0", "2.14.1", "2.13.0"]),  # a new minor: the oldest minor drops out
    ("2.15.1", ["2.15.1", "2.14.1", "2.13.0", "2.12.1"]),  # a patch release replaces its minor's
])
def test_upgrade_keeps_the_newest_and_three_minors_before_it(new, expected):
    from torchnotes.versions.upgrade import next_versions

    assert next_versions(new, ("2.15.0", "2.14.1", "2.13.0", "2.12.1")) == expected


def test_an_upgrade_pip_cannot_install_leaves_both_files_as_they_were(site, tmp_path, envs):
    bad = tmp_path / "bad"
    shutil.copytree(site, bad, ignore=shutil.ignore_patterns("out*", ".cache"))
    before = {name: (bad / name).read_text() for name in ("requirements.txt", "versions.yml")}
    done = run(bad, "-m", "torchnotes", "upgrade", "2.13.99", envs=envs, no_index=True)
    assert done.returncode == 3  # NOT_INSTALLED: the workflow fails on it
    assert "pip cannot install torch 2.13.99; requirements.txt and versions.yml are as they were" in done.stderr
    assert {name: (bad / name).read_text() for name in before} == before


def test_upgrade_rewrites_the_pin_and_the_list_then_runs_every_version(site, tmp_path, monkeypatch):
    """pip and the versions run are stood in for: installing another torch into this environment is not a test."""
    import torchnotes.cli.versions as versions_commands
    import torchnotes.versions.upgrade as upgrade_module
    from torchnotes.settings import load

    copy = tmp_path / "copy"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("out*", ".cache"))
    (copy / "versions.yml").write_text(f'# the list\nversions:\n  - "{PRIMARY}"\n  - "2.14.1"\n  - "2.13.0"\n  - "2.12.1"\n')
    commands = []

    def fake_run(command, **kwargs):
        commands.append(command)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(upgrade_module.subprocess, "run", fake_run)
    monkeypatch.chdir(copy)
    args = argparse.Namespace(version="2.16.0", report=Path("report.md"), config_file=Path("mkdocs.yml"))
    code_ = versions_commands.upgrade(load(Path("mkdocs.yml")), args)
    assert code_ == 0
    # The pin, and nothing else, rewritten.
    assert (copy / "requirements.txt").read_text() == (site / "requirements.txt").read_text().replace(
        f"torch=={PRIMARY}\n", "torch==2.16.0\n")
    assert "torch==2.16.0\n" in (copy / "requirements.txt").read_text()
    listed = load_versions(Path("."), Path("requirements.txt"))
    assert listed.all == ("2.16.0", PRIMARY, "2.14.1", "2.13.0")
    assert (copy / "versions.yml").read_text().startswith("# the list\n")
    assert "install" in commands[0] and "requirements.txt" in commands[0][-1]
    assert commands[1][-3:] == ["versions", "--report", "report.md"]


def test_warnings_are_found_on_stderr_and_where_a_cell_prints_what_it_caught(tmp_path):
    from torchnotes.versions.drift import Warned, warnings_in

    path = page(tmp_path, "en/a.md", code("x = 1") + code("y = 2"))
    cells = read_page(path).code_cells
    outputs = {
        cells[0].id: [{"output_type": "stream", "name": "stderr",
                       "text": "/x/torch/a.py:3: FutureWarning: torch.jit.script is deprecated.\n  y = f()\n"}],
        cells[1].id: [{"output_type": "stream", "name": "stdout",
                       "text": "UserWarning: None of the inputs have requires_grad=True.\nno UserWarning: here\n"}],
    }
    assert warnings_in(read_page(path), outputs) == [
        Warned(1, "FutureWarning", "torch.jit.script is deprecated.", on_purpose=False),  # Python reported it
        Warned(2, "UserWarning", "None of the inputs have requires_grad=True.", on_purpose=True),  # the cell printed it
    ]


# ---------------------------------------------------------------------------------------------------------------
# The committed record (compared/): what every build shows, without running any older release.

def article(html: str) -> str:
    return re.search(r"<article.*?</article>", html, re.S).group(0)


def test_the_record_is_pretty_checksummed_and_keyed_by_the_code(site, compared):
    from torchnotes.gpu.store import prefix_hashes
    from torchnotes.storage import read_checked

    path = site / "compared" / OLD / "en" / "drift.json"
    body = read_checked(path, "version record")
    page_ = read_page(site / "docs" / "en" / "drift.md")
    assert [c["code"] for c in body["cells"]] == [h[:16] for h in prefix_hashes(page_)]
    states = [c["state"] for c in body["cells"]]
    assert states == ["same", "differs", "same", "skipped", "raises", "not-run", "not-run"], states
    differs = body["cells"][1]
    assert differs["other"] == ["self must be a matrix"]
    assert differs["shown"] == ["mm: self must be a matrix, got 3-D tensor"]
    # One output line per JSON line: a pull request's diff shows the line that changed.
    assert re.search(r'\n\s+"self must be a matrix"\n', path.read_text())
    # The raise is PyTorch's (a missing API), not the page's own check failing.
    assert body["cells"][4]["origin"] == "library"


def test_a_fresh_clone_shows_what_versions_showed(site, built, tmp_path):
    """The committed files alone: no cache folder at all, no environment of an older release."""
    fresh = tmp_path / "fresh"
    shutil.copytree(site, fresh, ignore=shutil.ignore_patterns("out*", ".cache"))
    done = run(fresh, "-m", "mkdocs", "build", "--strict", "--site-dir", "out", envs=tmp_path / "no-envs")
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (tmp_path / "no-envs").exists()
    for rel in ("drift", "zh/drift"):
        ours = (fresh / "out" / rel / "index.html").read_text()
        theirs = (built / rel / "index.html").read_text()
        assert drift_blocks(ours) == drift_blocks(theirs) and set(drift_blocks(ours)) == {2, 5}
        assert "PyTorch 2.13" in ours
    for rel in ("versions", "zh/versions"):
        ours = article((fresh / "out" / rel / "index.html").read_text())
        assert ours == article((built / rel / "index.html").read_text())
        assert "2 cell(s) differ" in ours or "2 个代码单元格的输出不同" in ours


def changes_numbers(html: str) -> dict[str, int]:
    text = re.sub(r"<[^>]+>", "", html)
    found = re.search(r"Compared with PyTorch \S+ on (\d+) of (\d+) pages: (\d+) of (\d+) code cells", text)
    parts = {"pages": found.group(1), "total_pages": found.group(2), "compared": found.group(3),
             "total_cells": found.group(4)}
    for key, words in (("changed", "changed since they were compared"), ("not-run", "after a cell that stopped the page"),
                       ("skipped", "never compared"), ("unrecorded", "on pages this release has not run")):
        match = re.search(rf"(\d+) {words}", text)
        parts[key] = match.group(1) if match else "0"
    return {key: int(value) for key, value in parts.items()}


def test_every_number_on_the_changes_page_is_counted_from_the_record(site, built):
    from torchnotes.storage import read_checked

    records = [read_checked(p) for p in sorted((site / "compared" / OLD / "en").rglob("*.json"))]
    states = [c["state"] for r in records for c in r["cells"]]
    numbers = changes_numbers((built / "versions" / "index.html").read_text())
    assert numbers == {"pages": len(records), "total_pages": len(records),
                       "compared": sum(s in ("same", "differs", "raises") for s in states),
                       "total_cells": len(states), "changed": 0, "not-run": states.count("not-run"),
                       "skipped": states.count("skipped"), "unrecorded": 0}
    assert numbers["not-run"] == 2 and numbers["skipped"] >= 1  # the drift page: cells 6 and 7; the clock
    assert f"{len(records)} pages with {len(states)} code cells" in (built / "versions" / "index.html").read_text()


def test_an_edited_cell_says_it_was_not_compared_since(site, built, tmp_path):
    edited = tmp_path / "edited"
    shutil.copytree(site, edited, ignore=shutil.ignore_patterns("out*"))
    drift = edited / "docs" / "en" / "drift.md"
    drift.write_text(drift.read_text().replace("    print(error)\n", "    print(error, end='\\n')\n"))
    # A release listed and never run: the changes page says so, with nothing to count.
    (edited / "versions.yml").write_text(f'versions:\n  - "{PRIMARY}"\n  - "{OLD}"\n  - "2.12.1"\n')
    done = run(edited, "-m", "mkdocs", "build", "--strict", "--site-dir", "out", envs=tmp_path / "no-envs")
    assert done.returncode == 0, done.stderr[-3000:]
    blocks = drift_blocks((edited / "out" / "drift" / "index.html").read_text())
    # Cell 2 and every cell after it (their output may depend on it); never an old diff.
    assert set(blocks) == {2, 3, 5, 6, 7}, sorted(blocks)
    assert all("not compared since this cell changed" in b and "nb-drift-diff" not in b for b in blocks.values())
    zh = drift_blocks((edited / "out" / "zh" / "drift" / "index.html").read_text())
    assert "在 2.13 中不同" in zh[2] and "此代码单元格改动后尚未比较" not in "".join(zh.values())
    changes = (edited / "out" / "versions" / "index.html").read_text()
    assert changes_numbers(changes)["changed"] == len(blocks)
    assert "PyTorch 2.13: 0 cell(s) differ" in changes
    assert "Not compared: the repository holds no record of this release" in changes and "compared/2.12.1/" in changes


def test_warnings_to_look_at_are_apart_from_those_provoked_on_purpose(built):
    import html as html_

    page_html = article((built / "versions" / "index.html").read_text())
    attention, on_purpose = page_html.split("Warnings the page provokes to explain them")
    assert "Warnings the page does not explain" in attention and "FutureWarning" in attention and "shown on purpose" not in attention
    assert 'href="../drift/#cell-6"' in attention
    # Long: folded under its first words, with an ellipsis; the whole message inside.
    folded = re.search(r'<details class="nb-warning-text">\s*<summary>(.*?)</summary>\s*<p>(.*?)</p>', attention, re.S)
    assert folded.group(1).endswith("…") and LONG_WARNING.startswith(folded.group(1)[:-1])
    assert html_.unescape(folded.group(2)) == LONG_WARNING
    assert "shown on purpose" in on_purpose and 'href="../drift/#cell-7"' in on_purpose
    assert "UserWarning" in on_purpose
    css = (ROOT / "docs" / "assets" / "stylesheets" / "extra.css").read_text()
    assert "break-all" not in css
