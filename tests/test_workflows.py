"""The GitHub workflows hold only the permissions they need, and every action is pinned by commit SHA."""

import re
from pathlib import Path

import pytest
import yaml

WORKFLOWS = sorted((Path(__file__).resolve().parent.parent / ".github" / "workflows").glob("*.yml"))


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
    assert flow["jobs"]["execute"]["strategy"]["matrix"]["shard"] == [1, 2]
    steps = [s.get("run", "") for s in flow["jobs"]["build"]["steps"]]
    merge = next(i for i, s in enumerate(steps) if "torchnotes merge" in s)
    build = next(i for i, s in enumerate(steps) if "mkdocs build" in s)
    assert merge < build
