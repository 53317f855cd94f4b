"""What the version axis costs (the Benchmarks page): cold runs per release against one cold build, the installs,
and a no-change `mkdocs build --strict` with every release compared against one with the site's release alone.

    .venv/bin/python scripts/benchmark_versions.py [--work /tmp/bench-versions] [--runs 3]

Targets (issue: versions as an axis): N releases cost at most N x one cold build, plus the installs; a no-change
rebuild with all releases costs at most 1.5 x a no-change rebuild with one. Works on a clone of this repository
with its own cache and its own environments folder, so nothing of the working copy is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-versions"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="record the figures in benchmarks/ (the Benchmarks page); without it they are only printed")
    args = parser.parse_args()
    site = prepare(args.work)
    env = dict(os.environ, TORCHNOTES_ENVS=str(args.work / "envs"), NO_MKDOCS_2_WARNING="1")
    results = {"machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}"}
    results["cold_primary"] = timed([sys.executable, "-m", "torchnotes", "execute"], site, env)
    sys.path.insert(0, str(site))
    from torchnotes.settings import load
    from torchnotes.versions.run import ensure_env, load_versions

    settings = load(site / "mkdocs.yml")
    listed = load_versions(settings.root, settings.path("requirements"))
    os.environ["TORCHNOTES_ENVS"] = env["TORCHNOTES_ENVS"]
    results["releases"] = {}
    for version in listed.compared:
        begin = time.perf_counter()
        ensure_env(version, settings.path("requirements"))
        install = time.perf_counter() - begin
        cold = timed([sys.executable, "-m", "torchnotes", "versions", "--only", version], site, env)
        results["releases"][version] = {"install": round(install, 1), "cold": cold}
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(args.work / "site")]
    timed(build, site, env)  # the publish step's first pass after the runs: not a no-change rebuild yet
    results["nochange_all"] = [timed(build, site, env) for _ in range(args.runs)]
    listing = site / "versions.yml"
    kept = listing.read_text(encoding="utf-8")
    listing.write_text(f'versions:\n  - "{listed.primary}"\n', encoding="utf-8")
    timed(build, site, env)
    results["nochange_one"] = [timed(build, site, env) for _ in range(args.runs)]
    listing.write_text(kept, encoding="utf-8")
    print(table(results, "en"))
    if not args.write:
        print("not written (--write records them in benchmarks/)")
        return 0
    OUT.mkdir(exist_ok=True)
    (OUT / "versions.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for lang in ("en", "zh"):
        (OUT / f"versions.{lang}.md").write_text(table(results, lang), encoding="utf-8")
    return 0


def prepare(work: Path) -> Path:
    """A clone of the committed tree, sharing .venv, with an empty cache."""
    site = work / "repo"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(site)], check=True)
    (site / ".venv").symlink_to(ROOT / ".venv")
    (site / "node_modules").symlink_to(ROOT / "node_modules")
    return site


def timed(command: list[str], cwd: Path, env: dict) -> float:
    begin = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return round(time.perf_counter() - begin, 1)


WORDS = {
    "en": {"what": "", "seconds": "seconds", "target": "target", "cold": "cold run of every page",
           "primary": "the site's release (one cold build)", "install": "install of its environment",
           "sum": "all compared releases, cold", "bound": "{n} (the releases compared) × one cold build", "nochange_all": "no-change build, all releases",
           "nochange_one": "no-change build, the site's release alone", "ratio": "ratio", "met": "met", "missed": "missed"},
    "zh": {"what": "", "seconds": "秒", "target": "目标", "cold": "所有页面冷运行",
           "primary": "本站版本（一次冷构建）", "install": "安装其环境", "sum": "所有对比版本，冷运行",
           "bound": "{n}（对比的版本数）× 一次冷构建", "nochange_all": "无改动构建，全部版本", "nochange_one": "无改动构建，仅本站版本",
           "ratio": "比值", "met": "达成", "missed": "未达成"},
}


def table(results: dict, lang: str) -> str:
    w = WORDS[lang]
    releases = results["releases"]
    total = sum(r["cold"] for r in releases.values())
    bound = len(releases) * results["cold_primary"]
    lines = [f"| | {w['seconds']} | {w['target']} |", "|---|--:|---|",
             f"| {w['primary']} | {results['cold_primary']:.1f} | |"]
    for version, row in releases.items():
        lines.append(f"| torch {version}: {w['install']} | {row['install']:.1f} | |")
        lines.append(f"| torch {version}: {w['cold']} | {row['cold']:.1f} | |")
    ok = w["met"] if total <= bound else w["missed"]
    lines.append(f"| {w['sum']} | {total:.1f} | ≤ {w['bound'].format(n=len(releases))} = {bound:.1f}: {ok} |")
    everything, one = statistics.median(results["nochange_all"]), statistics.median(results["nochange_one"])
    ratio = everything / one
    lines.append(f"| {w['nochange_one']} | {one:.1f} | |")
    lines.append(f"| {w['nochange_all']} | {everything:.1f} | {w['ratio']} {ratio:.2f} ≤ 1.5: "
                 f"{w['met'] if ratio <= 1.5 else w['missed']} |")
    machine = results["machine"] if lang == "en" else re.sub(r"(\d+) cores", r"\1 核", results["machine"])
    runs = len(results["nochange_all"])
    said = (f"the no-change builds: median of {runs} builds; every other figure: one run" if lang == "en" else
            f"无改动构建取 {runs} 次构建的中位数；其他数字均为一次运行")
    return "\n".join(lines) + f"\n\n{machine}; {said}\n"


if __name__ == "__main__":
    raise SystemExit(main())
