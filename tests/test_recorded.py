"""GPU recordings: record -> replay -> stale, on CPU, through the code path a GPU machine uses.

No fake CUDA: the fixture page's recorded cells carry a test-only tag that runs on CPU, and the store is
written by the same record() that `execute --record` calls on a GPU machine.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, code, page, settings_at

from torchnotes import gpu as recorded
from torchnotes.cli import main as cli
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.errors import FileDamaged, RecordingNeedsCuda, RecordingOrphan
from torchnotes.gpu import TEST_TAG, Missing, Recorded, Stale, Store
from torchnotes.pages import read as pages
from torchnotes.pages.read import read_page

TAGGED = f'tags=["{TEST_TAG}"]'
CELLS = [("x = 2", ""), ("print('recorded', x * 21)", TAGGED), ("print('plain')", ""), ("print('second', x)", TAGGED)]


@pytest.fixture(autouse=True)
def test_tag(monkeypatch):
    # Only these tests accept the tag: a real page carrying it fails `check`.
    monkeypatch.setitem(pages.TAGS, TEST_TAG, "recorded on CPU by the tests")


@pytest.fixture(scope="module")
def machine():
    return recorded.probe_machine()


def write_page(docs: Path, cells=CELLS, lang="en") -> Path:
    return page(docs, f"{lang}/gpu/p.md", "".join(code(source, options) for source, options in cells))


def run_and_record(make_engine, machine, store, path):
    report = make_engine().run([path])
    assert not report.failures, report.failures
    return report, recorded.record(report.results, store, machine, tag=TEST_TAG)


@pytest.fixture(scope="module")
def template(tmp_path_factory, env, machine, zygotes):
    """The fixture page executed and recorded once; each test gets a copy to edit."""
    root = tmp_path_factory.mktemp("recorded")
    path = write_page(root / "docs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(pages.TAGS, TEST_TAG, "recorded on CPU by the tests")
        report = Engine(settings_at(root), env, zygotes=zygotes, run=Run(jobs=1)).run([path])
        assert not report.failures, report.failures
        written = recorded.record(report.results, Store(root / "recorded", root / "docs"), machine, tag=TEST_TAG)
    return root, report, written


@pytest.fixture
def recorded_page(tmp_path, template):
    root, report, written = template
    for folder in ("docs", "recorded"):
        shutil.copytree(root / folder, tmp_path / folder)
    return tmp_path / "docs/en/gpu/p.md", Store(tmp_path / "recorded", tmp_path / "docs"), report, written


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def states(store, path):
    page_ = read_page(path)
    return {n: store.lookup(page_, n) for n in (1, 2, 3, 4)}


def test_record_then_replay(recorded_page, machine):
    path, store, report, written = recorded_page
    assert [p.relative_to(p.parents[3]).as_posix() for p in written] == ["recorded/en/gpu/p.json"]
    assert json.loads(store.path(path).read_text(encoding="utf-8"))["body"]["page"] == "docs/en/gpu/p.md"
    found = states(store, path)
    assert isinstance(found[2], Recorded) and isinstance(found[4], Recorded)
    assert found[2].outputs == [{"output_type": "stream", "name": "stdout", "text": "recorded 42\n"}]
    assert found[4].outputs[0]["text"] == "second 2\n"
    # Only tagged cells are recorded.
    assert isinstance(found[1], Missing) and isinstance(found[3], Missing)
    assert store.states(read_page(path), TEST_TAG) == {2: found[2], 4: found[4]}
    provenance = found[2].provenance
    assert provenance["cache_key"] == report.results[0].key
    assert provenance["date"] == report.results[0].date
    assert provenance["torch"] == machine.torch and provenance["python"] == machine.python
    assert {"gpu", "gpu_count", "gpu_memory_mib", "driver", "cuda", "torch_build", "code_hash"} <= set(provenance)
    assert recorded.label(provenance, "en") == f"Recorded on CPU · torch {machine.torch} · {provenance['date']}"


def test_store_file_reads_well_in_a_diff(recorded_page):
    path, store, _, _ = recorded_page
    text = store.path(path).read_text(encoding="utf-8")
    data = json.loads(text)["body"]
    assert [c["cell"] for c in data["cells"]] == [2, 4]
    assert data["cells"][0]["source"] == ["print('recorded', x * 21)"]
    # One output line per JSON line, so a changed number is a one-line diff.
    assert '"recorded 42\\n"' in text.splitlines()[[i for i, line in enumerate(text.splitlines())
                                                       if "recorded 42" in line][0]]
    assert len(text.splitlines()) > 20


def test_edited_cell_is_stale_and_revert_shows_recording_again(recorded_page):
    path, store, _, _ = recorded_page
    edit(path, "x * 21", "x * 20")
    found = states(store, path)
    assert isinstance(found[2], Stale) and isinstance(found[4], Stale)
    assert "out of date" in recorded.notice(found[2], "en") and "过期" in recorded.notice(found[2], "zh")
    edit(path, "x * 20", "x * 21")
    found = states(store, path)
    assert isinstance(found[2], Recorded) and found[2].outputs[0]["text"] == "recorded 42\n"


def test_comment_only_edit_keeps_the_recording(recorded_page):
    path, store, _, _ = recorded_page
    edit(path, "print('recorded', x * 21)", "print('recorded', x * 21)  # 翻译后的注释")
    assert isinstance(states(store, path)[2], Recorded)


def test_editing_an_earlier_cell_makes_later_recordings_stale(recorded_page):
    path, store, _, _ = recorded_page
    edit(path, "print('plain')", "print('plain!')")
    found = states(store, path)
    assert isinstance(found[2], Recorded) and isinstance(found[4], Stale)
    edit(path, "print('plain!')", "print('plain')")
    edit(path, "x = 2", "x = 3")
    found = states(store, path)
    assert isinstance(found[2], Stale) and isinstance(found[4], Stale)


def test_inserting_a_cell_above_makes_recordings_stale(recorded_page):
    path, store, _, _ = recorded_page
    edit(path, "```python\nx = 2\n```", "```python\ny = 1\n```\n\n```python\nx = 2\n```")
    found = {n: store.lookup(read_page(path), n) for n in (3, 5)}
    assert all(not isinstance(s, Recorded) for s in found.values())


@pytest.mark.parametrize("damage", ["output", "truncate", "checksum"])
def test_a_hand_edited_or_corrupt_store_file_is_named_and_read_as_absent(recorded_page, damage, caplog):
    path, store, _, _ = recorded_page
    target = store.path(path)
    text = target.read_text(encoding="utf-8")
    if damage == "output":
        target.write_text(text.replace("recorded 42", "recorded 43"), encoding="utf-8")
    elif damage == "truncate":
        target.write_text(text[: len(text) // 2], encoding="utf-8")
    else:
        target.write_text(re.sub(r'"sha256": "[0-9a-f]+"', '"sha256": "00"', text), encoding="utf-8")
    fresh = Store(store.folder, store.docs_dir)
    # Like every damaged file the build keeps (torchnotes.storage): named, read as absent, made again (here by a
    # GPU machine), never shown.
    assert isinstance(fresh.lookup(read_page(path), 2), Missing)
    [said] = [line for line in caplog.messages if str(target) in line]
    assert "record_gpu.sh" in said
    warnings, errors = recorded.check(fresh, [path], tag=TEST_TAG)
    assert [type(w) for w in warnings] == [FileDamaged] and not errors


def test_check_lists_stale_and_missing(recorded_page):
    path, store, _, _ = recorded_page
    assert recorded.check(store, [path], tag=TEST_TAG) == ([], [])
    edit(path, "print('plain')", "print('plain!')")
    edit(path, "print('second', x)", "print('second', x)\n```\n\n```python " + TAGGED + "\nprint('third')")
    warnings, errors = recorded.check(store, [path], tag=TEST_TAG)
    assert not errors
    messages = [w.message for w in warnings]
    assert len(messages) == 2
    assert "out of date for code cell(s) 4" in messages[0] and str(path) in messages[0]
    assert "no GPU recording for needs-cuda code cell(s) 5" in messages[1]


def test_check_verifies_every_store_file_and_names_orphans(recorded_page):
    path, store, _, _ = recorded_page
    orphan = store.folder / "en/gone.json"
    shutil.copy(store.path(path), orphan)
    warnings, errors = recorded.check(store, [path], tag=TEST_TAG)
    assert not errors and [type(w) for w in warnings] == [RecordingOrphan] and str(orphan) in warnings[0].message
    orphan.write_text(orphan.read_text(encoding="utf-8").replace("second 2", "second 3"), encoding="utf-8")
    warnings, errors = recorded.check(store, [path], tag=TEST_TAG)
    assert not errors and [type(w) for w in warnings] == [FileDamaged] and str(orphan) in warnings[0].message


def test_page_without_tagged_cells_loses_its_record(recorded_page, make_engine, machine):
    path, store, _, _ = recorded_page
    path.write_text(path.read_text(encoding="utf-8").replace(" " + TAGGED, ""), encoding="utf-8")
    _, written = run_and_record(make_engine, machine, store, path)
    assert written == [] and not store.path(path).exists()


def test_recording_needs_cuda_cells_refuses_a_machine_without_cuda(recorded_page, machine):
    _, store, report, _ = recorded_page
    assert machine.gpu_count == 0  # this suite runs on CPU
    with pytest.raises(RecordingNeedsCuda, match="no CUDA device"):
        recorded.record(report.results, store, machine)


def test_reader_view_html_and_provenance(recorded_page):
    path, store, _, _ = recorded_page
    page_ = read_page(path)
    shown = recorded.cell_html(store.lookup(page_, 2), "en", "<pre>recorded 42</pre>")
    assert 'class="nb-output nb-output--recorded"' in shown and "Recorded on CPU" in shown
    assert recorded.cell_html(Missing(2), "zh", "").startswith('<p class="nb-note nb-note--cuda" data-search-exclude>此代码单元格需要 CUDA')
    line = recorded.provenance_text(store, page_, "en", tag=TEST_TAG)
    assert line.startswith("GPU cells 2, 4 recorded on CPU")
    edit(path, "print('plain')", "print('plain!')")
    page_ = read_page(path)
    assert 'class="nb-note nb-note--stale"' in recorded.cell_html(store.lookup(page_, 4), "en")
    assert recorded.provenance_text(store, page_, "zh", tag=TEST_TAG).endswith("已过期的 GPU 代码单元格：4")
    assert recorded.provenance_text(store, read_page(write_page(path.parents[2], [("1", "")], "zh")), "zh") == ""


def test_report_rows_and_section(recorded_page):
    path, store, _, _ = recorded_page
    edit(path, "print('plain')", "print('plain!')")
    rows = recorded.report_rows(store, store.docs_dir, "en", tag=TEST_TAG)
    assert [(r.page, r.cells, r.recorded, r.stale, r.missing) for r in rows] == [("gpu/p.md", [2, 4], [2], [4], [])]
    table = recorded.report_markdown(rows, "en")
    assert "| [gpu/p.md](gpu/p.md) | 2, 4 | Recorded on CPU" in table and table.rstrip().endswith("| 4 |")


def test_label_names_the_gpu():
    provenance = {"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 2, "cuda": "13.0", "torch": "2.13.0+cu130",
                  "date": "2026-12-01"}
    assert recorded.label(provenance, "en") == "Recorded on NVIDIA H100 80GB HBM3 × 2 · CUDA 13.0 · torch 2.13.0+cu130 · 2026-12-01"
    assert recorded.label(dict(provenance, gpu_count=1), "zh").startswith("记录于 NVIDIA H100 80GB HBM3 · CUDA 13.0")


# ---------------------------------------------------------------------------------------------------- command line

def cli_site(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    for lang in ("en", "zh"):
        page(docs, f"{lang}/g.md", code("print(1)") + code("print(2)", 'tags=["needs-cuda"]'))
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    assert cli(["-f", str(config), "sync"]) == 0
    return config


def test_check_warns_and_strict_gpu_fails(tmp_path, capsys):
    config = cli_site(tmp_path)
    capsys.readouterr()
    assert cli(["-f", str(config), "check"]) == 0
    out = capsys.readouterr()
    assert "warning:" in out.err and "g.md: no GPU recording for needs-cuda code cell(s) 2" in out.err
    assert "2 GPU recording warning(s)" in out.out
    assert cli(["-f", str(config), "check", "--strict-gpu"]) == 1
    assert "2 problem(s)" in capsys.readouterr().out


def test_check_fails_on_a_corrupt_store_file(tmp_path, capsys):
    config = cli_site(tmp_path)
    broken = tmp_path / "recorded/zh/g.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json", encoding="utf-8")
    capsys.readouterr()
    assert cli(["-f", str(config), "check"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"recorded/zh/g\.json: unreadable GPU recording", err)


def test_execute_record_without_cuda_stops_before_running(tmp_path, capsys):
    config = cli_site(tmp_path)
    capsys.readouterr()
    assert cli(["-f", str(config), "execute", "--record"]) == 2
    assert "no CUDA device on this machine" in capsys.readouterr().err
    assert not (tmp_path / "recorded").exists() and not (tmp_path / ".cache/torchnotes/report.json").exists()


def test_execute_record_writes_the_store_for_tagged_pages_only(tmp_path, capsys):
    config = cli_site(tmp_path)
    page(tmp_path / "docs", "en/t.md", code("print(7)") + code("print('on gpu', 6 * 7)", TAGGED))
    page(tmp_path / "docs", "zh/t.md", code("print(7)") + code("print('在 GPU 上', 6 * 7)", TAGGED))
    assert cli(["-f", str(config), "sync"]) == 0
    capsys.readouterr()
    assert cli(["-f", str(config), "execute", "--record", "--record-tag", TEST_TAG]) == 0
    out = capsys.readouterr().out
    # Only the pages with the tag ran: 2 pages, not 4.
    written = sorted(Path(p).resolve() for p in re.findall(r"recorded (\S+)", out))
    assert "2 pages: 2 run" in out and written == [tmp_path / "recorded/en/t.json", tmp_path / "recorded/zh/t.json"]
    store = Store(tmp_path / "recorded", tmp_path / "docs")
    zh = store.lookup(read_page(tmp_path / "docs/zh/t.md"), 2)
    assert isinstance(zh, Recorded) and zh.outputs[0]["text"] == "在 GPU 上 42\n"


def test_record_script_checks_for_a_gpu_before_installing_anything(tmp_path):
    """With --python and without (the README's form, which would otherwise download ~5 GB of torch into
    .cache/gpu-venv first): no GPU here, said at once, exit 2, no traceback, nothing made."""
    venv = ROOT / ".cache" / "gpu-venv"
    had_venv = venv.exists()
    for args in (["--python", sys.executable], []):
        done = subprocess.run(["bash", "scripts/record_gpu.sh", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "no NVIDIA GPU on this machine" in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert done.stdout == ""
    assert venv.exists() == had_venv
    usage = subprocess.run(["bash", "scripts/record_gpu.sh", "--wheels"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode == 64 and "--wheels DIR" in usage.stderr


# ---------------------------------------------------------------------------------------------------- workflows

def workflow(name):
    return yaml.safe_load((ROOT / ".github/workflows" / name).read_text())


def test_gpu_workflow_records_on_a_gpu_runner_and_opens_a_pull_request():
    flow = workflow("gpu.yml")
    assert "workflow_dispatch" in flow[True] and flow[True]["schedule"]
    assert flow["permissions"] == {"contents": "read"}
    record_job, pr_job = flow["jobs"]["record"], flow["jobs"]["pull-request"]
    assert record_job["runs-on"] == ["self-hosted", "gpu"] and "permissions" not in record_job
    assert any("scripts/record_gpu.sh" in s.get("run", "") for s in record_job["steps"])
    # The self-hosted machine holds no write token; a hosted job opens the pull request.
    assert pr_job["needs"] == "record" and pr_job["runs-on"] == "ubuntu-24.04"
    assert pr_job["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert any("gh pr create" in s.get("run", "") for s in pr_job["steps"])


def test_deploy_uses_a_gpu_shard_only_when_the_repository_has_a_runner():
    flow = workflow("deploy.yml")
    gpu = flow["jobs"]["execute-gpu"]
    assert gpu["if"] == "${{ vars.GPU_RUNNER == 'true' }}" and gpu["runs-on"] == ["self-hosted", "gpu"]
    assert any("scripts/record_gpu.sh" in s.get("run", "") for s in gpu["steps"])
    build = flow["jobs"]["build"]
    assert set(build["needs"]) == {"execute", "versions", "execute-gpu"}
    assert "needs.execute-gpu.result == 'skipped'" in build["if"]
    steps = build["steps"]
    fetch = next(i for i, s in enumerate(steps) if s.get("with", {}).get("name") == "recorded-gpu")
    assert steps[fetch]["if"] == "needs.execute-gpu.result == 'success'"
    assert fetch < next(i for i, s in enumerate(steps) if "mkdocs build" in s.get("run", ""))
