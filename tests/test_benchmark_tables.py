"""The Benchmarks page's tables say, in each language, which builds' numbers an earlier run measured."""

import json
import sys

from helpers import ROOT

sys.path.insert(0, str(ROOT / "scripts"))

from benchmark_tables import table  # noqa: E402


def test_kept_builds_are_named_with_the_day_they_were_measured_in_both_languages():
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    data["date"] = "2026-12-02"
    data.pop("note", None)
    data["results"]["ours"]["measured"] = "2026-12-02"
    data["results"]["baseline"]["measured"] = "2026-11-24"
    data["results"]["ours_jobs1"]["measured"] = "2026-11-30"
    data["results"]["ours_fresh"].pop("measured", None)  # no day recorded: taken as the run's own
    en, zh = (table(data, lang).splitlines()[0] for lang in ("en", "zh"))
    assert en.endswith("(Note: mkdocs-jupyter (serial): measured by an earlier run of this script on this machine, "
                       "2026-11-24; This site (--jobs 1): measured by an earlier run of this script on this machine, "
                       "2026-11-30; a ratio marked † divides numbers of two runs of the script (2026-11-24, "
                       "2026-12-02), on the same machine.)")
    assert zh.endswith("（说明：mkdocs-jupyter（串行）：本机上本脚本较早一次运行的测量结果，2026-11-24；"
                       "本站（--jobs 1）：本机上本脚本较早一次运行的测量结果，2026-11-30；"
                       "标有 † 的比值来自本脚本在同一台机器上的两次运行（2026-11-24、2026-12-02）。）")
    # Issue 44 §2: the headline ratio, ours over the baseline, says when it divides two runs.
    cold = next(line for line in table(data, "en").splitlines() if line.startswith("| Cold build (empty caches), s"))
    assert cold.endswith("† |"), cold
    assert "2 核" in zh and "cores" not in zh
    for build in data["results"].values():
        build["measured"] = data["date"]
    same = table(data, "en")
    assert "Note" not in same.splitlines()[0] and "说明" not in table(data, "zh").splitlines()[0]
    assert "†" not in same


def test_the_versions_table_says_what_n_is_and_what_was_measured_once():
    from benchmark_versions import table as versions_table

    data = json.loads((ROOT / "benchmarks" / "versions.json").read_text(encoding="utf-8"))
    en, zh = versions_table(data, "en"), versions_table(data, "zh")
    n = len(data["releases"])
    assert f"≤ {n} (the releases compared) × one cold build" in en and "N ×" not in en
    assert f"≤ {n}（对比的版本数）× 一次冷构建" in zh and "N ×" not in zh
    assert "达到" not in zh and "cores" not in zh
    assert "median of 3 builds; every other figure: one run" in en
