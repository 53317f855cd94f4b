"""--shard k/n: every page in exactly one shard, balanced by the previous report's durations."""

from pathlib import Path

from torchnotes.shards import split


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
