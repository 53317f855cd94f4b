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


def test_cold_builds_are_compared_file_by_file_and_only_the_report_may_differ(tmp_path):
    from benchmark import compare_sites, site_digests

    builds = []
    for run, seconds in enumerate(("1.0", "2.5")):
        site = tmp_path / str(run) / "site"
        for rel, text in {"index.html": "<p>same</p>", "zh/report/index.html": f"<td>{seconds}</td>",
                          "sitemap.xml": f"<lastmod>day {run}</lastmod>"}.items():
            (site / rel).parent.mkdir(parents=True, exist_ok=True)
            (site / rel).write_text(text)
        builds.append(site_digests([(tmp_path / str(run), site)]))
    assert "site/sitemap.xml" not in builds[0]
    same = compare_sites(builds)
    assert same == {"builds": 2, "files": 2, "differ": ["site/zh/report/index.html"], "pages_identical": True}
    (tmp_path / "1" / "site" / "index.html").write_text("<p>other</p>")
    builds[1] = site_digests([(tmp_path / "1", tmp_path / "1" / "site")])
    differ = compare_sites(builds)
    assert differ["differ"] == ["site/index.html", "site/zh/report/index.html"] and not differ["pages_identical"]
    # A page that only one build wrote differs too.
    assert compare_sites([builds[0], {**builds[0], "site/extra.html": "x"}])["differ"] == ["site/extra.html"]

    data = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    cold = data["results"]["ours"]["cold"]
    cold.update(identical=differ, seconds=cold["bound_seconds"] + 1)
    en, zh = table(data, "en"), table(data, "zh")
    row = next(line for line in en.splitlines() if line.startswith("| Cold builds give byte-identical pages"))
    assert "differing: site/index.html, site/zh/report/index.html | **missed** |" in row, row
    whole = next(line for line in en.splitlines() if line.startswith("| Cold build: the whole build"))
    assert whole.endswith("| **missed** |"), whole
    assert "各次冷构建的页面逐字节相同" in zh and "整个构建（含 MkDocs）" in zh
