"""The GitHub workflows hold only the permissions they need, and every action is pinned by commit SHA."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

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
    # The repository variable SHARDS, else a default: a whole number of at least 1.
    default = re.fullmatch(r"\$\{\{ vars\.SHARDS \|\| '(\d+)' \}\}", step["env"]["SHARDS"])
    assert default and int(default.group(1)) >= 1, step["env"]["SHARDS"]
    assert 'shards --count "$SHARDS" --json' in step["run"] and '>> "$GITHUB_OUTPUT"' in step["run"]
    runs = [s.get("run", "") for s in execute["steps"]]
    shard_run = next(r for r in runs if "torchnotes execute" in r)
    assert "--shard" not in shard_run and "$PAGES" in shard_run  # no shard computes its own split
    assert any(s.get("env", {}).get("PAGES") == "${{ matrix.pages }}" for s in execute["steps"])
    assert "${{ matrix.count }}" in execute["name"]


JOBS = [("pr.yml", "test"), ("deploy.yml", "plan"), ("deploy.yml", "execute"), ("deploy.yml", "versions"),
        ("deploy.yml", "build"), ("torch-upgrade.yml", "upgrade")]


@pytest.mark.parametrize("workflow, job", JOBS, ids=lambda v: v)
def test_torch_is_pypis_wheel_kept_in_pips_cache(workflow, job):
    """The site is built with the wheel readers get from `pip install torch` (PyPI's), wherever it is built;
    pip's cache keeps it between runs."""
    steps = load(FLOWS / workflow)["jobs"][job]["steps"]
    assert not any(CPU_INDEX in s.get("run", "") for s in steps), f"{workflow}/{job} installs torch from another index"
    python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"].get("cache") == "pip"
    assert "requirements" in python["with"]["cache-dependency-path"]


def test_the_version_matrix_runs_in_the_deploy_and_is_merged_before_the_build():
    flow = load(FLOWS / "deploy.yml")
    versions, build = flow["jobs"]["versions"], flow["jobs"]["build"]
    assert versions["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.versions) }}"  # versions x shards
    assert any('versions --only "$VERSION" $PAGES' in s.get("run", "") for s in versions["steps"])
    plan = next(s for s in flow["jobs"]["plan"]["steps"] if s.get("id") == "plan")["run"]
    assert "versions --matrix" in plan and "$v[] as $version" in plan
    assert "versions" in build["needs"]
    download = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["pattern"] == "cache-*"  # shards and releases alike
    # Each (release, shard) job's record of what the release prints (compared/) reaches the build and is laid
    # over the committed one before the site is built from it.
    uploads = [s["with"] for s in versions["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert {"name": "compared-${{ matrix.version }}-shard-${{ matrix.shard }}", "path": "compared/"} in [
        {k: u[k] for k in ("name", "path")} for u in uploads]
    names = [s.get("uses", "") + s.get("run", "") for s in build["steps"]]
    fetched = next(i for i, s in enumerate(build["steps"]) if s.get("with", {}).get("pattern") == "compared-*")
    laid = next(i for i, text in enumerate(names) if "cp -a" in text and "compared/" in text)
    built = next(i for i, text in enumerate(names) if "mkdocs build" in text)
    assert fetched < laid < built


def test_the_upgrade_workflow_asks_for_the_narrowest_permissions():
    flow = load(FLOWS / "torch-upgrade.yml")
    assert flow["permissions"] == {"contents": "read"}
    granted = {name: job.get("permissions") for name, job in flow["jobs"].items() if job.get("permissions")}
    assert granted == {"upgrade": {"contents": "write", "pull-requests": "write"}}
    assert "schedule" in flow[True]
    steps = flow["jobs"]["upgrade"]["steps"]
    assert any("torchnotes upgrade" in s.get("run", "") for s in steps)
    assert any("gh pr create" in s.get("run", "") and "--body-file" in s.get("run", "") for s in steps)
    # The pull request commits the record `upgrade` wrote: what each older release prints against the new one.
    opened = next(s["run"] for s in steps if "gh pr create" in s.get("run", ""))
    added = next(line.split()[2:] for line in opened.splitlines() if line.strip().startswith("git add"))
    assert "compared" in added and opened.index("git add") < opened.index("git commit")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_checkout_persists_credentials(path):
    for job in load(path)["jobs"].values():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, f"{path.name}: {step}"


@pytest.mark.parametrize("tool", [["actionlint"], ["zizmor", "--offline", ".github/workflows"]], ids=lambda t: t[0])
def test_workflow_linters_report_nothing(tool):
    """actionlint (self-hosted gpu label declared in .github/actionlint.yaml) and zizmor, offline."""
    binary = Path(sys.executable).parent / tool[0]
    done = subprocess.run([str(binary), *tool[1:]], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
