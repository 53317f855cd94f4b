"""The GitHub workflows hold only the permissions they need, and every action is pinned by commit SHA."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
FLOWS = ROOT / ".github" / "workflows"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def load(path):
    # yaml reads the key `on` as True.
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_pinned_by_sha(path):
    uses = re.findall(r"uses:\s*(\S+)", path.read_text())
    assert uses
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned by commit SHA"


def test_pull_requests_run_read_only_without_secrets():
    flow = load(Path(WORKFLOWS[0]).parent / "pr.yml")
    assert "pull_request" in flow[True] and "pull_request_target" not in flow[True]
    assert flow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in flow["jobs"].values())
    assert "secrets." not in (Path(WORKFLOWS[0]).parent / "pr.yml").read_text()


def test_deploy_holds_only_pages_permissions():
    flow = load(Path(WORKFLOWS[0]).parent / "deploy.yml")
    assert flow["permissions"] == {"contents": "read"}
    granted = {name: job.get("permissions") for name, job in flow["jobs"].items() if job.get("permissions")}
    assert granted == {"deploy": {"pages": "write", "id-token": "write"}}


def test_deploy_merges_shards_before_building():
    flow = load(Path(WORKFLOWS[0]).parent / "deploy.yml")
    steps = [s.get("run", "") for s in flow["jobs"]["build"]["steps"]]
    merge = next(i for i, s in enumerate(steps) if "torchnotes merge" in s)
    build = next(i for i, s in enumerate(steps) if "mkdocs build" in s)
    assert merge < build


def test_shards_planned_once_and_passed_on():
    """The split is computed in one job from one number, and every shard executes the pages it was given."""
    flow = load(FLOWS / "deploy.yml")
    plan, execute = flow["jobs"]["plan"], flow["jobs"]["execute"]
    assert execute["needs"] == "plan" or "plan" in execute["needs"]
    assert execute["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert plan["outputs"]["matrix"] == "${{ steps.plan.outputs.matrix }}"
    step = next(s for s in plan["steps"] if s.get("id") == "plan")
    count = step["env"]["SHARDS"]
    assert int(count) >= 1
    assert 'shards --count "$SHARDS" --json' in step["run"] and '>> "$GITHUB_OUTPUT"' in step["run"]
    runs = [s.get("run", "") for s in execute["steps"]]
    shard_run = next(r for r in runs if "torchnotes execute" in r)
    assert "--shard" not in shard_run and "$PAGES" in shard_run  # no shard computes its own split
    assert any(s.get("env", {}).get("PAGES") == "${{ matrix.pages }}" for s in execute["steps"])
    assert "${{ matrix.count }}" in execute["name"]


JOBS_ON_CPU = [("pr.yml", "test"), ("deploy.yml", "plan"), ("deploy.yml", "execute"), ("deploy.yml", "build")]


@pytest.mark.parametrize("workflow, job", JOBS_ON_CPU, ids=lambda v: v)
def test_torch_comes_from_the_cpu_index(workflow, job):
    """PyPI's Linux torch wheel pulls in the multi-GB CUDA build; CPU jobs install torch from PyTorch's CPU index
    before setup.sh (whose pip then finds torch==X satisfied by X+cpu)."""
    steps = load(FLOWS / workflow)["jobs"][job]["steps"]
    runs = [s.get("run", "") for s in steps]
    setup = next(i for i, r in enumerate(runs) if "scripts/setup.sh" in r or ".ci/run" in r)
    torch = [i for i, r in enumerate(runs) if "pip install" in r and f"--index-url {CPU_INDEX}" in r]
    assert torch and torch[0] < setup, f"{workflow}/{job}: no torch install from {CPU_INDEX} before setup.sh"
    pin = re.search(r"grep -E '(\^torch==)' requirements.txt", runs[torch[0]])
    assert pin, runs[torch[0]]
    requirements = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^torch==\S+$", requirements, re.M)  # what the grep picks up
    assert "index-url" not in requirements  # the index is the workflows' business, not every machine's
