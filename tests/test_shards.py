"""--shard k/n: every page in exactly one shard, balanced by the previous report; merged shard caches equal
a single-machine build."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import code, page

from torchnotes.ci.shards import merge, split
from torchnotes.engine.cache import Cache
from torchnotes.publish.paired import sync_pairs


def test_shards_partition_and_balance():
    pages = [Path(f"docs/en/p{i}.md") for i in range(7)]
    durations = {str(p): s for p, s in zip(pages, [30, 1, 1, 1, 10, 10, 9])}
    shards = [split(pages, k, 2, durations) for k in (1, 2)]
    assert sorted(p for s in shards for p in s) == sorted(pages)  # a partition: nothing lost or repeated
    loads = [sum(durations[str(p)] for p in s) for s in shards]
    assert loads == [31, 31]  # the 30 s page is alone with one 1 s page


def test_unknown_pages_spread_out():
    pages = [Path(f"docs/en/new{i}.md") for i in range(4)]
    assert [len(split(pages, k, 2, {})) for k in (1, 2)] == [2, 2]


@pytest.mark.slow  # the fixture site executed whole, then in shards
def test_merged_shards_equal_a_single_machine_build(tmp_path):
    def make_site(root):
        (root / "mkdocs.yml").parent.mkdir(parents=True, exist_ok=True)
        (root / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en]\n")
        for i in range(4):
            page(root / "docs", f"en/p{i}.md", code(f"import torch\ntorch.manual_seed({i})\nprint(torch.rand(2))"))
        sync_pairs(root / "docs", root / "notebooks", ["en"])  # execute checks the pairs before running
        return root

    def execute(root, *args):
        done = subprocess.run([sys.executable, "-m", "torchnotes", "execute", *args], cwd=root, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    single = make_site(tmp_path / "single")
    execute(single)
    shards = [make_site(tmp_path / f"shard{k}") for k in (1, 2)]
    for k, root in enumerate(shards, 1):
        assert "2 pages" in execute(root, "--shard", f"{k}/2")  # half the pages each
    merged = make_site(tmp_path / "merged")
    copied, damaged = merge([r / ".cache/torchnotes" for r in shards], merged / ".cache/torchnotes")
    assert (copied, damaged) == (4, [])

    def entries(root):
        cache = Cache(root / ".cache/torchnotes")
        return {key: cache.get(key)["outputs"] for key in cache.keys()}

    assert entries(merged) == entries(single)
    assert "0 kernels" in execute(merged)  # the site build after the merge runs nothing


@pytest.mark.slow  # every shard of the fixture site executed
def test_shards_run_one_after_another_in_one_checkout_cover_every_page_once(tmp_path):
    """Each shard plans from the last whole build's durations, not from the report of the shard that ran before
    it (which lists only that shard's pages and once made shard 2 skip one page and repeat another)."""
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes:\n      languages: [en]\n")
    for i in range(4):
        # p0 is the long page: alone in one shard, by the durations of a whole build.
        page(tmp_path / "docs", f"en/p{i}.md", code(f"import time\ntime.sleep({2.0 if i == 0 else 0})\nprint({i})"))
    sync_pairs(tmp_path / "docs", tmp_path / "notebooks", ["en"])

    def executed(*args):
        done = subprocess.run([sys.executable, "-m", "torchnotes", "execute", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return re.findall(r"\] (docs/en/p\d\.md) ", done.stdout)

    assert len(executed()) == 4  # the whole build whose durations every shard plans from
    first, second = executed("--shard", "1/2"), executed("--shard", "2/2")
    assert sorted(first + second) == [f"docs/en/p{i}.md" for i in range(4)], (first, second)
    assert first == ["docs/en/p0.md"]
    assert json.loads((tmp_path / ".cache/torchnotes/report.json").read_text())["pages"].__len__() == 4


def test_merge_leaves_out_damaged_entries(tmp_path):
    good, bad = Cache(tmp_path / "a"), Cache(tmp_path / "b")
    good.put("k1", {"outputs": []})
    bad.put("k2", {"outputs": []})
    bad.path("k2").write_text(json.dumps({"sha256": "0", "body": {"outputs": []}}))
    copied, damaged = merge([good.folder, bad.folder], tmp_path / "merged")
    assert copied == 1 and len(damaged) == 1 and "checksum" in damaged[0].message
    assert Cache(tmp_path / "merged").keys() == {"k1"}
