"""Benchmark our build against the naive stack (mkdocs-jupyter with Material) on this project's pages.

    .venv/bin/python scripts/benchmark.py --make-baseline build/baseline-venv --write
    .venv/bin/python scripts/benchmark.py --baseline-python /path/to/venv-with-mkdocs-jupyter/bin/python

The baseline needs an environment of its own with mkdocs-jupyter 0.26.3, Material and torch
(requirements-baseline.txt): --make-baseline DIR makes it (or reuses it) there; --baseline-python names one.

Every build runs from a scratch copy in a temporary folder, one after the other on this machine, in one run:
- ours: the repository's mkdocs.yml, pages and notebooks (default jobs: one kernel per core);
- ours, --jobs 1: the same, one kernel at a time (cold builds only), beside the baseline, which is serial;
- baseline: the same paired notebooks built by mkdocs-jupyter 0.26.3 (`execute: true`, its own cache on) with
  Material, one MkDocs project per language (site/ and site/zh/). With mkdocs-static-i18n 1.3.1 in either
  layout, mkdocs-jupyter renders nothing here: i18n re-creates the File objects, the notebook pages lose
  their type and their JSON is copied out as index.html. Two plain projects are the naive stack that renders.

Scenarios, each repeated --runs times (median, min and max reported): a cold build (empty caches), a rebuild
with no change, a rebuild after a prose-only edit of one page, a rebuild after a code edit of one page. Our
build keeps the paired notebooks in sync itself, so its edit timings include the sync. Then a breakdown of
our no-change and prose-edit rebuilds into check, render (the publish step) and generator (MkDocs; Zensical
for comparison). Kernels are counted by a kernelspec that logs each start; memory is the peak of the summed
RSS of the build's process tree. The figures are printed; with --write, and only then, they are recorded in
benchmarks/results.json and the tables benchmarks/results.en.md / results.zh.md that the Benchmarks pages include.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
from benchmark_sites import ROOT, edit_code, edit_prose, page_count, prepare_baseline, prepare_ours
from benchmark_tables import OUT, SCENARIOS, machine, table, write_tables

COUNTING_KERNEL = """import os, sys, time
with open(os.environ["BENCH_KERNEL_LOG"], "a") as log:
    log.write(f"{time.time()}\\n")
from ipykernel import kernelapp
sys.exit(kernelapp.launch_new_instance())
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables-only", action="store_true", help="rewrite the tables from benchmarks/results.json")
    parser.add_argument("--baseline-python", type=Path,
                        help="python of a venv with mkdocs-jupyter, Material, torch and the pages' packages")
    parser.add_argument("--make-baseline", type=Path, metavar="DIR",
                        help="make (or reuse) the baseline's environment in DIR from requirements-baseline.txt")
    parser.add_argument("--write", action="store_true",
                        help="record the figures in benchmarks/ (the Benchmarks page); without it they are only printed")
    parser.add_argument("--runs", type=int, default=3, help="repetitions of every scenario, for every build")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--only", help="comma-separated builds to measure (baseline, ours, ours_jobs1, ours_fresh); "
                                       "the others keep their numbers from benchmarks/results.json")
    parser.add_argument("--baseline-from", type=Path,
                        help="take the baseline's numbers from the partial.json of an interrupted run on this machine "
                             "(recorded as such in results.json) instead of measuring it again")
    args = parser.parse_args()
    if args.tables_only:
        write_tables(json.loads((OUT / "results.json").read_text(encoding="utf-8")))
        return 0
    if args.make_baseline:
        args.baseline_python = make_baseline(args.make_baseline)
    needs_baseline = args.baseline_from is None and not (args.only and "baseline" not in args.only.split(","))
    if args.baseline_python is None and needs_baseline:
        parser.error("--make-baseline DIR (or --baseline-python, or --baseline-from) is required")
    if args.baseline_python is not None and needs_baseline:
        missing = baseline_missing(args.baseline_python)
        if missing:
            parser.error(f"--baseline-python {args.baseline_python}: {missing}. The baseline needs mkdocs-jupyter "
                         "0.26.3, Material and torch (requirements-baseline.txt): --make-baseline DIR makes one")
    if args.runs < 3:
        parser.error("--runs must be at least 3: a median of fewer says nothing about the spread")

    work = args.work or Path(tempfile.mkdtemp(prefix="torchnotes-bench-"))
    ours_python = Path(sys.executable)
    ours, serial, fresh = prepare_ours(work / "ours"), prepare_ours(work / "ours-jobs1", jobs=1), prepare_ours(work / "ours-fresh")
    baseline = prepare_baseline(work / "baseline")
    systems = {
        # (python, folder, projects as (mkdocs.yml folder, site dir), where each language's pages land, scenarios)
        "baseline": (args.baseline_python, baseline,
                     [(baseline / lang, baseline / lang / "site") for lang in ("en", "zh")],
                     {lang: baseline / lang / "site" for lang in ("en", "zh")}, SCENARIOS),
        "ours": (ours_python, ours, [(ours, ours / "site")], {"en": ours / "site", "zh": ours / "site" / "zh"}, SCENARIOS),
        "ours_jobs1": (ours_python, serial, [(serial, serial / "site")],
                       {"en": serial / "site", "zh": serial / "site" / "zh"}, ("cold",)),
        # Before issue 15's zygote: every kernel started from scratch, importing torch itself.
        "ours_fresh": (ours_python, fresh, [(fresh, fresh / "site")],
                       {"en": fresh / "site", "zh": fresh / "site" / "zh"}, ("cold",)),
    }
    results = {}
    reused = None
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(systems))
        if unknown:
            parser.error(f"--only: unknown build(s) {unknown}; choose from {sorted(systems)}")
        results = json.loads((OUT / "results.json").read_text(encoding="utf-8"))["results"]
        systems = {name: system for name, system in systems.items() if name in wanted}
    if args.baseline_from:
        results["baseline"] = json.loads(args.baseline_from.read_text(encoding="utf-8"))["baseline"]
        reused = f"baseline measured by an earlier, interrupted run of this script on this machine on {time.strftime('%Y-%m-%d')}"
        systems.pop("baseline", None)
    for name, (python, folder, projects, sites, scenarios) in systems.items():
        results[name] = measure(name, python, folder, projects, sites, scenarios, args.runs, work)
        results[name]["measured"] = time.strftime("%Y-%m-%d")
        # A long run keeps what it has measured so far, in case a later step fails.
        (work / "partial.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    if "ours" in systems:
        results["ours"]["breakdown"] = breakdown(ours, args.runs)
    data = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "pages": page_count(), "runs": args.runs,
            "results": results}
    if reused:
        data["note"] = reused
    print(table(data, "en"))
    if not args.write:
        print(f"not written (--write records them in benchmarks/); the figures are in {work / 'partial.json'}")
        return 0
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    write_tables(data)
    return 0


def make_baseline(folder: Path) -> Path:
    """The baseline's own environment, made once (pip then finds everything installed)."""
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"making the baseline environment in {folder} (requirements-baseline.txt)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r",
                    str(ROOT / "requirements-baseline.txt")], check=True)
    return python


def baseline_missing(python: Path) -> str:
    """What the baseline environment lacks, in a few words, or ""."""
    if not Path(python).exists():
        return "no such interpreter"
    done = subprocess.run([str(python), "-c", "import mkdocs_jupyter, material, torch"], capture_output=True, text=True)
    return done.stderr.strip().splitlines()[-1] if done.returncode else ""


# -- measuring ---------------------------------------------------------------------------------------------

def measure(name: str, python: Path, folder: Path, projects: list, sites: dict, scenarios: tuple, runs: int,
            work: Path) -> dict:
    kernels_dir = work / f"kernels-{name}"
    spec = kernels_dir / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (kernels_dir / "counting_kernel.py").write_text(COUNTING_KERNEL, encoding="utf-8")
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), str(kernels_dir / "counting_kernel.py"), "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}), encoding="utf-8")
    rows: dict[str, list[dict]] = {s: [] for s in scenarios}
    cold_sites: list[dict[str, str]] = []
    # Every cold build starts from the same pages: the edits of the runs before it are undone, so that the cold
    # builds' sites can be compared byte for byte.
    sources = {path: path.read_bytes() for name in ("docs", "notebooks") for path in (folder / name).rglob("*")
               if path.is_file()}
    for run in range(runs):
        for scenario in scenarios:
            if scenario == "cold":
                for path, data in sources.items():
                    if path.read_bytes() != data:
                        path.write_bytes(data)
                for project, site in projects:
                    for stale in (project / ".cache", site):
                        shutil.rmtree(stale, ignore_errors=True)
            elif scenario == "prose":
                edit_prose(name, folder, run)
            elif scenario == "code":
                edit_code(name, folder, run)
            row = build(python, projects, kernels_dir, ours=name.startswith("ours"),
                        extra_env={"TORCHNOTES_FORK": "0"} if name == "ours_fresh" else {})
            if scenario == "cold" and name.startswith("ours"):
                row.update(cold_bound(folder))
                cold_sites.append(site_digests(projects))
            rows[scenario].append(row)
            print(f"{name} run {run + 1}/{runs} {scenario}: {row['seconds']:.1f} s, {row['kernels']} kernels", flush=True)
    summary = {s: spread(rows[s]) for s in scenarios}
    if cold_sites:
        summary["cold"]["identical"] = compare_sites(cold_sites)
    summary["html"] = html_sizes(sites)
    return summary


# The build report lists each page's measured seconds: the one page whose bytes may differ between two builds.
TIMED = ("report/index.html",)


def site_digests(projects: list) -> dict[str, str]:
    """Every file of the built site by its SHA-256, but the sitemaps (MkDocs writes the day of the build)."""
    digests = {}
    for _, site in projects:
        for path in sorted(site.rglob("*")):
            if path.is_file() and not path.name.startswith("sitemap.xml"):
                digests[path.relative_to(site.parent).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def compare_sites(builds: list[dict[str, str]]) -> dict:
    """The cold builds' sites file by file: the files that differ between any two, and whether only the build
    report (which shows the measured seconds) is among them."""
    names = sorted(set().union(*builds))
    differ = [name for name in names if len({build.get(name) for build in builds}) > 1]
    return {"builds": len(builds), "files": len(names), "differ": differ,
            "pages_identical": all(name.endswith(TIMED) for name in differ)}


def spread(rows: list[dict]) -> dict:
    """Median of every measure, with min and max of the seconds, and every run's seconds as measured."""
    out = {k: round(statistics.median(r[k] for r in rows), 2) for k in rows[0]}
    seconds = [r["seconds"] for r in rows]
    out.update(min=min(seconds), max=max(seconds), all=seconds)
    return out


def cold_bound(folder: Path) -> dict:
    """Issue 15's bound on a cold build: 1.25 x (sum of the cells' seconds) / cores + 20 s, from the
    build's own report, next to the engine's wall time in the same report."""
    report = json.loads((folder / ".cache" / "torchnotes" / "report.json").read_text(encoding="utf-8"))
    cells = sum(sum(p.get("cell_seconds") or []) for p in report["pages"] if p.get("status") == "run")
    # A page's start-up: its execution time less its cells' (kernel start, set-up, shut-down).
    startup = [p["run_seconds"] - sum(p.get("cell_seconds") or []) for p in report["pages"] if p.get("status") == "run"]
    return {"engine_seconds": report["seconds"], "cell_seconds": round(cells, 2),
            "bound_seconds": round(1.25 * cells / (os.cpu_count() or 1) + 20, 2),
            "startup_seconds": round(statistics.median(startup), 2)}


def breakdown(folder: Path, runs: int) -> dict:
    """Our rebuilds step by step: check, render (the publish step), then each generator on the published tree."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(folder / "_code"))
    tn = [sys.executable, "-m", "torchnotes", "-f", str(folder / "mkdocs.yml")]
    # render first: it re-syncs the notebook after the prose edit, which `check` (the CI check) requires.
    steps = {
        "render": tn + ["render"],
        "check": tn + ["check"],
        "mkdocs": [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(folder / "mkdocs.yml"), "-d", str(folder / "site")],
        "zensical": tn + ["zensical", "--site-dir", "site-zensical"],
    }
    rows: dict[str, dict[str, list[float]]] = {"nochange": {}, "prose": {}}
    for run in range(runs):
        for scenario in rows:
            if scenario == "prose":
                edit_prose("ours", folder, 100 + run)
            for step, command in steps.items():
                begin = time.perf_counter()
                done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
                seconds = round(time.perf_counter() - begin, 2)
                if done.returncode != 0:
                    raise SystemExit(f"{step} failed in {folder}:\n{done.stderr[-3000:]}")
                rows[scenario].setdefault(step, []).append(seconds)
                print(f"breakdown run {run + 1}/{runs} {scenario} {step}: {seconds:.1f} s", flush=True)
    return {scenario: {step: {"seconds": statistics.median(v), "min": min(v), "max": max(v), "all": v}
                       for step, v in steps_.items()} for scenario, steps_ in rows.items()}


def build(python: Path, projects: list, kernels_dir: Path, ours: bool, extra_env: dict | None = None) -> dict:
    """Build every project in turn; seconds add up, memory is the peak of any one build.

    The baseline's kernels are counted by a kernelspec that logs each start. Ours come from the build's own
    report: our kernels are forked from a zygote (torchnotes/engine/zygote.py) only for the standard ipykernel
    kernelspec, so a wrapping kernelspec would measure a build we do not ship."""
    log = kernels_dir / "starts.log"
    log.write_text("", encoding="utf-8")
    seconds, peak, kernels = 0.0, None, 0
    for project, site in projects:
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(project / "_code"), **(extra_env or {}))
        if not ours:
            env.update(JUPYTER_PATH=str(kernels_dir), BENCH_KERNEL_LOG=str(log))
        mkdocs = [str(python), "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site)]
        begin = time.perf_counter()
        process = subprocess.Popen(mkdocs, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        polled = PeakMemory(process.pid)
        _, err = process.communicate()
        seconds += time.perf_counter() - begin
        polled.stop()
        peak = polled if peak is None or polled.mb > peak.mb else peak
        if process.returncode != 0:
            raise SystemExit(f"build failed in {project}:\n{err[-3000:]}")
        if ours:
            report = json.loads((project / ".cache" / "torchnotes" / "report.json").read_text(encoding="utf-8"))
            kernels += report["kernels"]
    if not ours:
        kernels = len(log.read_text(encoding="utf-8").splitlines())
    return {"seconds": round(seconds, 2), "kernels": kernels, "peak_mb": round(peak.mb, 1),
            "peak_pss_mb": round(peak.pss_mb, 1), "processes_at_peak": peak.processes}


class PeakMemory:
    """Polls the summed RSS of a process and its descendants (kernels included). Kernels forked from the zygote
    share its pages, which RSS counts once per process: pss_mb (each shared page divided among its sharers) is
    the memory really used at that peak, and processes how many were alive then.

    PSS is read only when the RSS reaches a new peak: reading it walks every mapping of every process (torch maps
    thousands), and read ten times a second it took a fifth of a core from the build being timed."""

    def __init__(self, pid: int):
        self.root = psutil.Process(pid)
        self.mb = self.pss_mb = 0.0
        self.processes = 0
        self.running = True
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while self.running:
            try:
                procs = [self.root] + self.root.children(recursive=True)
                total = sum(_rss(proc) for proc in procs)
                if total / 2**20 > self.mb:
                    pss = sum(_pss(proc) for proc in procs)
                    self.mb, self.pss_mb, self.processes = total / 2**20, pss / 2**20, len(procs)
            except psutil.NoSuchProcess:
                return
            time.sleep(0.1)

    def stop(self) -> None:
        self.running = False
        self.thread.join()


def _rss(proc: psutil.Process) -> int:
    try:
        return proc.memory_info().rss
    except psutil.NoSuchProcess:
        return 0  # ended between the listing and the reading


def _pss(proc: psutil.Process) -> int:
    try:
        return proc.memory_full_info().pss
    except psutil.NoSuchProcess:
        return 0


def html_sizes(sites: dict) -> dict:
    """Sizes of the notebook pages' index.html, the same set of pages for both builds."""
    sizes = []
    for notebook in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        lang, *rest = notebook.relative_to(ROOT / "notebooks").with_suffix("").parts
        folder = Path(*rest).parent if rest[-1] == "index" else Path(*rest)
        sizes.append((sites[lang] / folder / "index.html").stat().st_size)
    roots = set(sites.values())
    total_site = sum(f.stat().st_size for root in roots for f in root.rglob("*") if f.is_file()
                     if not any(f.is_relative_to(other) for other in roots if other != root and other.is_relative_to(root)))
    search = {f"search_kb_{lang}": round((site / "search" / "search_index.json").stat().st_size / 1024, 1)
              for lang, site in sites.items()}
    return {"median_kb": round(statistics.median(sizes) / 1024, 1), "total_kb": round(sum(sizes) / 1024, 1),
            "site_mb": round(total_site / 2**20, 1), "pages": len(sizes), **search}


if __name__ == "__main__":
    sys.exit(main())
