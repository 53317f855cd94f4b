"""The workflows' steps, run as written: scripts/run_workflow.py runs each workflow with act in its self-hosted mode,
every `run:` step in order, the `uses:` steps stood in for (scripts/workflow_standins/: checkout is a clone, a cache
or an artifact is a folder, the Pages deploy is a check of the published folder). Matrices run one value each.

- deploy.yml: plan, one execute shard, one shard of one older release, the merge and the build, the PDF books,
  the offline copy; what it would publish holds the site, both books and both zips.
- pr.yml: every step, `bash .ci/run` included; pytest's own PYTEST_ADDOPTS narrows that step's suite to the
  workflow checks (the whole suite, run from inside itself, would never end).
- torch-upgrade.yml: PyPI offers a release pip cannot install: the job fails at the upgrade step, visibly, and
  no pull request is opened.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, release_builds

pytestmark = pytest.mark.slow  # runs the workflows with act, each job in a clone

RUNNER = ROOT / "scripts" / "run_workflow.py"
SHARDS = 24
FLOWS = ROOT / ".github" / "workflows"


def run_workflow(name: str, work: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, str(RUNNER), str(FLOWS / name), "--work", str(work), *args],
                          cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})},
                          capture_output=True, text=True, timeout=1500)
    (work / "act.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    return done


def jobs(log: str) -> dict[str, str]:
    """Each job act ran, by its name in the log, and how it ended."""
    return {m.group(1).strip(): m.group(2) for m in re.finditer(r"^\[[^/\]]+/([^\]]+)\]\s+🏁\s+Job (\w+)", log, re.M)}


def steps_run(log: str, job: str) -> list[str]:
    return re.findall(rf"^\[[^/\]]+/{re.escape(job)}\s*\]\s+⭐\s+Run Main (.+)$", log, re.M)


def test_the_deploy_workflow_publishes_the_site_both_books_and_both_offline_zips(tmp_path, built_site, version_envs, kept_books):
    # One older release: 2.13.0, as PyTorch's CPU build where its wheel is on disk (these machines keep it: a small
    # install and no download, where PyPI's CUDA build filled CI's disk).
    listed = yaml.safe_load((ROOT / "versions.yml").read_text())["versions"][1:]
    compared = "2.13.0" if "2.13.0" in listed else listed[0]
    # Many shards (the repository variable SHARDS), and the last of them: the plan hands the longest pages out first,
    # so the last shard is the three shortest pages (advanced/cpp, which compiles its extension under each release, is
    # in shard 1). What is checked is that a shard and an older release's shard run, come back and merge, not how
    # many pages they hold: every page under the older release would be most of this test's time.
    done = run_workflow("deploy.yml", tmp_path, "--var", f"SHARDS={SHARDS}", "--matrix", f"shard:{SHARDS}", "--matrix", f"version:{compared}",
                        "--seed-cache", str(ROOT / ".cache" / "torchnotes"),
                        env={"TORCHNOTES_ENVS": str(version_envs), "TORCHNOTES_BOOKS": str(kept_books),
                             **release_builds(compared)})
    log = done.stdout + done.stderr
    ended = jobs(log)
    assert done.returncode == 0, f"{ended}\n{log[-6000:]}"
    assert {name: ended.get(name) for name in ("Plan the shards", "Publish")} == {"Plan the shards": "succeeded",
                                                                                 "Publish": "succeeded"}, ended
    assert any(name.startswith(f"Execute shard {SHARDS}/{SHARDS}") and result == "succeeded" for name, result in ended.items())
    assert any(f"with torch {compared}" in name and result == "succeeded" for name, result in ended.items()), ended
    assert "Execute the needs-cuda pages on a GPU" not in ended  # no GPU runner: skipped, and the build goes on
    pages = tmp_path / "store" / "pages"
    for wanted in ("index.html", "404.html", "zh/index.html", "pdf/pytorch-notes-en.pdf", "pdf/pytorch-notes-zh.pdf",
                   "offline/pytorch-notes-en.zip", "offline/pytorch-notes-zh.zip"):
        assert (pages / wanted).stat().st_size > 0, wanted
    assert (pages / "pdf/pytorch-notes-zh.pdf").read_bytes().startswith(b"%PDF")
    # The shards and the older release came back as artifacts and were merged before the build.
    artifacts = sorted(p.name for p in (tmp_path / "store" / "artifacts").iterdir())
    assert f"cache-shard-{SHARDS}" in artifacts and f"cache-version-{compared}-shard-{SHARDS}" in artifacts, artifacts
    assert re.search(r"merged \d+ entries into \.cache/torchnotes; 0 damaged entries left out", log)
    build_steps = steps_run(log, "Merge the shards and build the site")
    assert any("build_pdf.sh" in s for s in build_steps) and any("build_offline.sh" in s for s in build_steps)


def test_the_pull_request_workflow_runs_the_ci_entry_point_and_writes_its_summary(tmp_path, built_site):
    done = run_workflow("pr.yml", tmp_path, "--seed-cache", str(ROOT / ".cache" / "torchnotes"),
                        env={"PYTEST_ADDOPTS": "tests/test_workflows.py"})
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"{jobs(log)}\n{log[-6000:]}"
    assert list(jobs(log).values()) == ["succeeded"]
    assert re.search(r"\d+ passed", log), "the CI entry point ran no test"
    assert "### Pages:" in log or (tmp_path / "store" / "artifacts" / "site" / "index.html").exists()
    assert (tmp_path / "store" / "artifacts" / "site" / "zh" / "index.html").exists()
    # The job's workspace was in the run's folder, and went with the run (not left in ~/.cache/act).
    assert re.search(rf"{re.escape(str(tmp_path / 'jobs'))}/\w+/hostexecutor", log), log[-3000:]
    assert not (tmp_path / "jobs").exists()


def test_an_upgrade_to_a_release_pip_cannot_install_fails_the_workflow_visibly(tmp_path):
    # An index that lists a newer torch whose file is not a wheel: `pip index versions` sees it, pip cannot install it.
    index = tmp_path / "index" / "torch"
    index.mkdir(parents=True)
    (index / "torch-99.0.0-py3-none-any.whl").write_bytes(b"not a wheel")
    (index / "index.html").write_text('<a href="torch-99.0.0-py3-none-any.whl">torch-99.0.0-py3-none-any.whl</a>\n')
    done = run_workflow("torch-upgrade.yml", tmp_path / "run",
                        env={"PIP_EXTRA_INDEX_URL": (tmp_path / "index").as_uri()})
    log = done.stdout + done.stderr
    ended = jobs(log)
    assert done.returncode != 0, log[-4000:]
    assert ended.get("Is there a newer torch on PyPI?") == "succeeded", ended
    assert any(name.startswith("Build with torch 99.0.0") and result == "failed" for name, result in ended.items()), ended
    assert "pip cannot install torch 99.0.0" in log and "the upgrade stopped (exit 3)" in log, log[-4000:]
    upgrade_job = next(name for name in ended if name.startswith("Build with torch"))
    assert not any("Open the pull request" in step for step in steps_run(log, upgrade_job))
    assert not (tmp_path / "run" / "store" / "pull-requests").exists()
    branches = subprocess.run(["git", "branch", "--list"], cwd=tmp_path / "run" / "store" / "pushed.git",
                              capture_output=True, text=True, check=True).stdout
    assert branches.strip() == "", branches
