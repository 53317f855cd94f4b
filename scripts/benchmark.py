"""Benchmark our build against the naive stack (mkdocs-jupyter with Material) on this project's pages.

    .venv/bin/python scripts/benchmark.py --baseline-python /path/to/venv-with-mkdocs-jupyter/bin/python

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
RSS of the build's process tree. Only measured numbers are written: benchmarks/results.json and the tables
benchmarks/results.en.md / results.zh.md that the Benchmarks pages include.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import psutil

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks"
EDITED = "tensors/views"  # the page both edits touch
SCENARIOS = ("cold", "nochange", "prose", "code")

BASELINE_CONFIG = """site_name: PyTorch Notes (baseline, {lang})
theme:
  name: material
  language: {lang}
markdown_extensions: [admonition, pymdownx.details, pymdownx.superfences, pymdownx.tabbed, pymdownx.arithmatex]
plugins:
  - search
  - mkdocs-jupyter:
      execute: true
      allow_errors: true
      cache: true
"""

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
    if args.baseline_python is None and args.baseline_from is None and not (args.only and "baseline" not in args.only.split(",")):
        parser.error("--baseline-python (or --baseline-from) is required")
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
    if args.only:
        previous = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
        kept = sorted(set(results) - set(systems) - ({"baseline"} if args.baseline_from else set()))
        reused = "; ".join(filter(None, [reused or previous.get("note"), kept and (
            f"{', '.join(kept)} kept from the previous run of this script on this machine ({previous['date']})")]))
    for name, (python, folder, projects, sites, scenarios) in systems.items():
        results[name] = measure(name, python, folder, projects, sites, scenarios, args.runs, work)
        # A long run keeps what it has measured so far, in case a later step fails.
        (work / "partial.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    if "ours" in systems:
        results["ours"]["breakdown"] = breakdown(ours, args.runs)
    data = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "pages": page_count(), "runs": args.runs,
            "results": results}
    if reused:
        data["note"] = reused
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    write_tables(data)
    print(table(data, "en"))
    return 0


def write_tables(data: dict) -> None:
    for lang in ("en", "zh"):
        (OUT / f"results.{lang}.md").write_text(table(data, lang), encoding="utf-8")


# -- the two sites -----------------------------------------------------------------------------------------

def prepare_ours(folder: Path, jobs: int = 0) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in ("docs", "notebooks", "overrides"):
        shutil.copytree(ROOT / name, folder / name)
    # CONTRIBUTING.zh.md holds the glossary the search's query expansion reads.
    for name in ("mkdocs.yml", "requirements.txt", "jupytext.toml", "CONTRIBUTING.zh.md"):
        shutil.copy(ROOT / name, folder / name)
    # The files mkdocs.yml names under torchnotes/ (the search's words and synonyms), relative to the project.
    for data in ("search_words_zh.txt", "search_synonyms_zh.yml"):
        (folder / "torchnotes" / "publish").mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "torchnotes" / "publish" / data, folder / "torchnotes" / "publish" / data)
    # A snapshot of the build code, first on PYTHONPATH: edits to the repository during a long run change nothing.
    shutil.copytree(ROOT / "torchnotes", folder / "_code" / "torchnotes", ignore=shutil.ignore_patterns("__pycache__"))
    # The Benchmarks page includes this script's own output; the copy builds without it.
    for lang in ("en", "zh"):
        (folder / "docs" / lang / "benchmarks.md").unlink(missing_ok=True)
    config = folder / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("      - Benchmarks: benchmarks.md\n", "")
    if jobs:
        text = text.replace("  - torchnotes:\n", f"  - torchnotes:\n      jobs: {jobs}\n", 1)
    config.write_text(text, encoding="utf-8")
    return folder


def prepare_baseline(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    for lang in ("en", "zh"):
        shutil.copytree(ROOT / "notebooks" / lang, folder / lang / "docs")
        (folder / lang / "mkdocs.yml").write_text(BASELINE_CONFIG.format(lang=lang), encoding="utf-8")
    return folder


def page_count() -> int:
    return len(list((ROOT / "notebooks").rglob("*.ipynb")))


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
    for run in range(runs):
        for scenario in scenarios:
            if scenario == "cold":
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
            rows[scenario].append(row)
            print(f"{name} run {run + 1}/{runs} {scenario}: {row['seconds']:.1f} s, {row['kernels']} kernels", flush=True)
    summary = {s: spread(rows[s]) for s in scenarios}
    summary["html"] = html_sizes(sites)
    return summary


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
    seconds, peak_mb, kernels = 0.0, 0.0, 0
    for project, site in projects:
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(project / "_code"), **(extra_env or {}))
        if not ours:
            env.update(JUPYTER_PATH=str(kernels_dir), BENCH_KERNEL_LOG=str(log))
        mkdocs = [str(python), "-m", "mkdocs", "build", "-q", "-f", str(project / "mkdocs.yml"), "-d", str(site)]
        begin = time.perf_counter()
        process = subprocess.Popen(mkdocs, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        peak = PeakMemory(process.pid)
        _, err = process.communicate()
        seconds += time.perf_counter() - begin
        peak.stop()
        peak_mb = max(peak_mb, peak.mb)
        if process.returncode != 0:
            raise SystemExit(f"build failed in {project}:\n{err[-3000:]}")
        if ours:
            report = json.loads((project / ".cache" / "torchnotes" / "report.json").read_text(encoding="utf-8"))
            kernels += report["kernels"]
    if not ours:
        kernels = len(log.read_text(encoding="utf-8").splitlines())
    return {"seconds": round(seconds, 2), "kernels": kernels, "peak_mb": round(peak_mb, 1)}


class PeakMemory:
    """Polls the summed RSS of a process and its descendants (kernels included)."""

    def __init__(self, pid: int):
        self.root = psutil.Process(pid)
        self.mb = 0.0
        self.running = True
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        while self.running:
            try:
                procs = [self.root] + self.root.children(recursive=True)
                total = 0
                for proc in procs:
                    try:
                        total += proc.memory_info().rss
                    except psutil.NoSuchProcess:
                        continue
                self.mb = max(self.mb, total / 2**20)
            except psutil.NoSuchProcess:
                return
            time.sleep(0.1)

    def stop(self) -> None:
        self.running = False
        self.thread.join()


def edit_prose(name: str, folder: Path, run: int) -> None:
    sentence = f" Benchmark edit {run}."
    if name == "ours":
        page = folder / "docs" / "en" / f"{EDITED}.md"
        lines = page.read_text(encoding="utf-8").split("\n")
        title = next(i for i, line in enumerate(lines) if line.startswith("# "))
        # The first paragraph after the title is prose in every page.
        target = next(i for i in range(title + 1, len(lines)) if lines[i].strip())
        lines[target] += sentence
        page.write_text("\n".join(lines), encoding="utf-8")  # the build re-syncs the notebook (timed)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "markdown", sentence)


def edit_code(name: str, folder: Path, run: int) -> None:
    line = f"\n_benchmark_edit = {run}"
    if name == "ours":
        page = folder / "docs" / "en" / f"{EDITED}.md"
        text = page.read_text(encoding="utf-8")
        start = text.index("```python")
        end = text.index("\n```", start + 9)
        page.write_text(text[:end] + line + text[end:], encoding="utf-8")  # the build re-syncs (timed)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "code", line)


def edit_notebook(path: Path, kind: str, addition: str) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == kind and (kind == "code" or not c.source.startswith("#")))
    cell.source += addition
    nbformat.write(nb, path)


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


def machine() -> dict:
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        model = names[0] if names else model
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": round(psutil.virtual_memory().total / 2**30),
            "python": platform.python_version(), "system": f"{platform.system()} {platform.release()}"}


# -- the published table -------------------------------------------------------------------------------------

WORDS = {
    "en": {
        "title": "Measured on {machine}, {date}: {pages} notebook pages (both languages), every build {runs} times; "
                 "median, with the lowest and highest run in brackets.",
        "note": "Note", "metric": "Metric", "ours": "This site (a kernel per core)", "serial": "This site (--jobs 1)", "base": "mkdocs-jupyter (serial)",
        "ratio": "Ratio (this site / mkdocs-jupyter)",
        "cold": "Cold build (empty caches), s", "nochange": "Rebuild, no change, s", "prose": "Rebuild after a prose edit, s",
        "code": "Rebuild after a code edit, s", "k": "kernels started", "peak": "Peak memory (cold), MiB",
        "median_kb": "HTML per page, median, KiB", "total_kb": "HTML of all pages, KiB", "site_mb": "Whole site, MiB",
        "search_kb_en": "Search index, English, KiB", "search_kb_zh": "Search index, Chinese, KiB",
        "steps": "Our rebuild, step by step, s", "step": "Step", "check": "check (pairs, front matter, tags, translations)",
        "render": "render (the publish step: cache look-ups, Markdown per language)", "mkdocs": "MkDocs + Material build of the published tree (its adapter re-checks the publish step)",
        "zensical": "Zensical build of the published tree (publish step included)",
        "targets": "Targets", "target": "Target", "value": "Measured", "result": "Result", "met": "met", "missed": "missed",
        "t1": "No-change rebuild ≤ 0.5 × mkdocs-jupyter's", "t2": "Prose-edit rebuild ≤ 1.5 × our no-change rebuild",
        "t3": "Prose-only edit starts no kernel",
        "startup": "Kernel start-up (cold build)", "forked": "Forked from the zygote (default)",
        "scratch": "Started from scratch (TORCHNOTES_FORK=0)",
        "startup_row": "Start-up per page (the page's time less its cells'), median, s",
        "t4": "Cold build: execution wall time ≤ 1.25 × (sum of cell seconds) / cores + 20 s (from the build's report)",
    },
    "zh": {
        "title": "测量环境：{machine}，{date}；共 {pages} 个 notebook 页面（两种语言），每种构建各运行 {runs} 次；"
                 "表中为中位数，括号内为最快与最慢的一次。",
        "note": "说明", "metric": "指标", "ours": "本站（每核一个内核）", "serial": "本站（--jobs 1）", "base": "mkdocs-jupyter（串行）",
        "ratio": "比值（本站 / mkdocs-jupyter）",
        "cold": "冷构建（清空缓存），秒", "nochange": "无改动重建，秒", "prose": "只改文字后重建，秒",
        "code": "改代码后重建，秒", "k": "启动的内核数", "peak": "峰值内存（冷构建），MiB",
        "median_kb": "每页 HTML 中位数，KiB", "total_kb": "所有页面 HTML 合计，KiB", "site_mb": "整站大小，MiB",
        "search_kb_en": "英文搜索索引，KiB", "search_kb_zh": "中文搜索索引，KiB",
        "steps": "本站重建的各个步骤，秒", "step": "步骤", "check": "check（配对、front matter、标签、翻译）",
        "render": "render（发布步骤：查缓存、按语言写 Markdown）", "mkdocs": "用 MkDocs + Material 构建发布树（其适配器会再核对一次发布步骤）",
        "zensical": "用 Zensical 构建发布树（含发布步骤）",
        "targets": "目标", "target": "目标", "value": "测量值", "result": "结果", "met": "达成", "missed": "未达成",
        "t1": "无改动重建 ≤ mkdocs-jupyter 的 0.5 倍", "t2": "只改文字后重建 ≤ 本站无改动重建的 1.5 倍",
        "t3": "只改文字不启动内核",
        "startup": "内核启动（冷构建）", "forked": "从 zygote 派生（默认）", "scratch": "从头启动（TORCHNOTES_FORK=0）",
        "startup_row": "每页启动耗时（页面耗时减去其单元格耗时），中位数，秒",
        "t4": "冷构建：执行阶段耗时 ≤ 1.25 × 单元格耗时之和 / 核数 + 20 秒（取自该次构建的报告）",
    },
}


def _machine_text(machine) -> str:
    if isinstance(machine, str):
        return machine
    return f"{machine['cpu']}, {machine['cores']} cores, {machine['memory_gib']} GiB, Python {machine['python']}"


def table(data: dict, lang: str) -> str:
    w = WORDS[lang]
    res = data["results"]
    ours, serial, base = res["ours"], res.get("ours_jobs1", {}), res["baseline"]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}" if b else "–"

    def cell(row: dict | None) -> str:
        if not row:
            return "–"
        return f"{row['seconds']:.1f} ({row['min']:.1f}–{row['max']:.1f})"

    lines = [w["title"].format(machine=_machine_text(data["machine"]), date=data["date"], pages=data["pages"],
                               runs=data.get("runs", "?")) + (f" ({w['note']}: {data['note']}.)" if data.get("note") else ""), "",
             f"| {w['metric']} | {w['ours']} | {w['serial']} | {w['base']} | {w['ratio']} |", "|---|--:|--:|--:|--:|"]
    for s in SCENARIOS:
        lines.append(f"| {w[s]} | {cell(ours[s])} | {cell(serial.get(s))} | {cell(base[s])} | "
                     f"{ratio(ours[s]['seconds'], base[s]['seconds'])} |")
        serial_k = f"{serial[s]['kernels']:g}" if s in serial else "–"
        lines.append(f"| {w[s].rsplit('，', 1)[0].rsplit(',', 1)[0]}: {w['k']} | {ours[s]['kernels']:g} | {serial_k} | "
                     f"{base[s]['kernels']:g} | |")
    lines.append(f"| {w['peak']} | {ours['cold']['peak_mb']:.0f} | "
                 f"{serial['cold']['peak_mb']:.0f} | {base['cold']['peak_mb']:.0f} | "
                 f"{ratio(ours['cold']['peak_mb'], base['cold']['peak_mb'])} |" if serial else
                 f"| {w['peak']} | {ours['cold']['peak_mb']:.0f} | – | {base['cold']['peak_mb']:.0f} | |")
    for key in ("median_kb", "total_kb", "site_mb", "search_kb_en", "search_kb_zh"):
        if key not in ours["html"]:
            continue
        theirs = base["html"].get(key)  # an older baseline run did not measure the search indexes
        lines.append(f"| {w[key]} | {ours['html'][key]:g} | | {'–' if theirs is None else f'{theirs:g}'} | "
                     f"{'' if theirs is None else ratio(ours['html'][key], theirs)} |")
    steps = ours.get("breakdown")
    if steps:
        lines += ["", f"| {w['steps']} | {w['nochange'].rsplit('，', 1)[0].rsplit(',', 1)[0]} | "
                      f"{w['prose'].rsplit('，', 1)[0].rsplit(',', 1)[0]} |", "|---|--:|--:|"]
        for step in ("check", "render", "mkdocs", "zensical"):
            lines.append(f"| {w[step]} | {cell(steps['nochange'][step])} | {cell(steps['prose'][step])} |")
    fresh = res.get("ours_fresh")
    if fresh and "startup_seconds" in ours["cold"]:
        lines += ["", f"| {w['startup']} | {w['forked']} | {w['scratch']} |", "|---|--:|--:|",
                  f"| {w['startup_row']} | {ours['cold']['startup_seconds']:.2f} | {fresh['cold']['startup_seconds']:.2f} |",
                  f"| {w['cold']} | {cell(ours['cold'])} | {cell(fresh['cold'])} |"]
    cold = ours["cold"]
    checks = [
        (w["t1"], f"{ours['nochange']['seconds']:.1f} / {base['nochange']['seconds']:.1f} = "
                  f"{ratio(ours['nochange']['seconds'], base['nochange']['seconds'])}",
         ours["nochange"]["seconds"] <= 0.5 * base["nochange"]["seconds"]),
        (w["t2"], f"{ours['prose']['seconds']:.1f} / {ours['nochange']['seconds']:.1f} = "
                  f"{ratio(ours['prose']['seconds'], ours['nochange']['seconds'])}",
         ours["prose"]["seconds"] <= 1.5 * ours["nochange"]["seconds"]),
        (w["t3"], f"{ours['prose']['kernels']:g}", ours["prose"]["kernels"] == 0),
    ]
    if "bound_seconds" in cold:
        checks.append((w["t4"], f"{cold['engine_seconds']:.1f} ≤ {cold['bound_seconds']:.1f}",
                       cold["engine_seconds"] <= cold["bound_seconds"]))
    lines += ["", f"| {w['target']} | {w['value']} | {w['result']} |", "|---|---|---|"]
    for label, value, ok in checks:
        lines.append(f"| {label} | {value} | {w['met'] if ok else '**' + w['missed'] + '**'} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
