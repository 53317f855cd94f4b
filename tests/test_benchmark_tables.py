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
                       "2026-11-30.)")
    assert zh.endswith("（说明：mkdocs-jupyter（串行）：本机上本脚本较早一次运行的测量结果，2026-11-24；"
                       "本站（--jobs 1）：本机上本脚本较早一次运行的测量结果，2026-11-30。）")
    for build in data["results"].values():
        build["measured"] = data["date"]
    assert "Note" not in table(data, "en").splitlines()[0] and "说明" not in table(data, "zh").splitlines()[0]
