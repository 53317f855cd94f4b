"""Benchmark our build against the naive stack (mkdocs-jupyter + mkdocs-static-i18n) on this project's pages.

    .venv/bin/python scripts/benchmark.py --baseline-python /path/to/venv-with-mkdocs-jupyter/bin/python

Both sites are built from scratch copies in a temporary folder, one after the other on the same machine:
- ours: the repository's mkdocs.yml, pages and notebooks, with its execution cache;
- baseline: the same paired notebooks built by mkdocs-jupyter 0.26.3 (`execute: true`, its own cache on) with
  Material, one MkDocs project per language (site/ and site/zh/). With mkdocs-static-i18n 1.3.1 in either
  layout, mkdocs-jupyter renders nothing here: i18n re-creates the File objects, the notebook pages lose
  their type and their JSON is copied out as index.html. Two plain projects are the naive stack that renders.

For each, the median of several runs of: a cold build (empty caches), a rebuild with no change, a rebuild
after a prose-only edit of one page, a rebuild after a code edit of one page. Kernels are counted by a
kernelspec that logs each start; memory is the peak of the summed RSS of the build's process tree.
Writes benchmarks/results.json and the tables benchmarks/results.en.md / results.zh.md that the Benchmarks
pages include.
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
                        help="python of a venv with mkdocs-jupyter, mkdocs-static-i18n, Material and torch")
    parser.add_argument("--runs", type=int, default=3, help="runs per scenario for our build")
    parser.add_argument("--baseline-runs", type=int, default=2, help="runs per scenario for the baseline")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    if args.tables_only:
        write_tables(json.loads((OUT / "results.json").read_text(encoding="utf-8")))
        return 0
    if args.baseline_python is None:
        parser.error("--baseline-python is required")

    work = args.work or Path(tempfile.mkdtemp(prefix="torchnotes-bench-"))
    ours_python = Path(sys.executable)
    ours, baseline = prepare_ours(work / "ours"), prepare_baseline(work / "baseline")
    systems = {
        # (python, folder, projects as (mkdocs.yml folder, site dir), where each language's pages land, runs)
        "baseline": (args.baseline_python, baseline,
                     [(baseline / lang, baseline / lang / "site") for lang in ("en", "zh")],
                     {lang: baseline / lang / "site" for lang in ("en", "zh")}, args.baseline_runs),
        "ours": (ours_python, ours, [(ours, ours / "site")], {"en": ours / "site", "zh": ours / "site" / "zh"}, args.runs),
    }
    results = {}
    for name, (python, folder, projects, sites, runs) in systems.items():
        results[name] = measure(name, python, folder, projects, sites, runs, work)
    data = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "pages": page_count(), "results": results}
    OUT.mkdir(exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    write_tables(data)
    print(table(data, "en"))
    return 0


def write_tables(data: dict) -> None:
    for lang in ("en", "zh"):
        (OUT / f"results.{lang}.md").write_text(table(data, lang), encoding="utf-8")


# -- the two sites -----------------------------------------------------------------------------------------

def prepare_ours(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in ("docs", "notebooks", "overrides"):
        shutil.copytree(ROOT / name, folder / name)
    for name in ("mkdocs.yml", "requirements.txt", "jupytext.toml"):
        shutil.copy(ROOT / name, folder / name)
    # A snapshot of the build code, first on PYTHONPATH: edits to the repository during a long run change nothing.
    shutil.copytree(ROOT / "torchnotes", folder / "_code" / "torchnotes", ignore=shutil.ignore_patterns("__pycache__"))
    # The Benchmarks page includes this script's own output; the copy builds without it.
    for lang in ("en", "zh"):
        (folder / "docs" / lang / "benchmarks.md").unlink(missing_ok=True)
    config = folder / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("      - Benchmarks: benchmarks.md\n", "")
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

def measure(name: str, python: Path, folder: Path, projects: list, sites: dict, runs: int, work: Path) -> dict:
    kernels_dir = work / f"kernels-{name}"
    spec = kernels_dir / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (kernels_dir / "counting_kernel.py").write_text(COUNTING_KERNEL, encoding="utf-8")
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), str(kernels_dir / "counting_kernel.py"), "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}), encoding="utf-8")
    rows: dict[str, list[dict]] = {s: [] for s in SCENARIOS}
    for run in range(runs):
        for scenario in SCENARIOS:
            if scenario == "cold":
                for project, site in projects:
                    for stale in (project / ".cache", site):
                        shutil.rmtree(stale, ignore_errors=True)
            elif scenario == "prose":
                edit_prose(name, folder, run)
            elif scenario == "code":
                edit_code(name, folder, run)
            row = build(python, projects, kernels_dir)
            rows[scenario].append(row)
            print(f"{name} run {run + 1}/{runs} {scenario}: {row['seconds']:.1f} s, {row['kernels']} kernels", flush=True)
    summary = {s: {k: statistics.median(r[k] for r in rows[s]) for k in ("seconds", "kernels", "peak_mb")} for s in SCENARIOS}
    summary["runs"] = runs
    summary["html"] = html_sizes(sites)
    return summary


def build(python: Path, projects: list, kernels_dir: Path) -> dict:
    """Build every project in turn; seconds add up, memory is the peak of any one build."""
    log = kernels_dir / "starts.log"
    log.write_text("", encoding="utf-8")
    seconds, peak_mb = 0.0, 0.0
    for project, site in projects:
        env = dict(os.environ, JUPYTER_PATH=str(kernels_dir), BENCH_KERNEL_LOG=str(log), NO_MKDOCS_2_WARNING="1",
                   PYTHONPATH=str(project / "_code"))
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
        page.write_text("\n".join(lines), encoding="utf-8")
        sync(folder)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "markdown", sentence)


def edit_code(name: str, folder: Path, run: int) -> None:
    line = f"\n_benchmark_edit = {run}"
    if name == "ours":
        page = folder / "docs" / "en" / f"{EDITED}.md"
        text = page.read_text(encoding="utf-8")
        start = text.index("```python")
        end = text.index("\n```", start + 9)
        page.write_text(text[:end] + line + text[end:], encoding="utf-8")
        sync(folder)
    else:
        edit_notebook(folder / "en" / "docs" / f"{EDITED}.ipynb", "code", line)


def edit_notebook(path: Path, kind: str, addition: str) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == kind and (kind == "code" or not c.source.startswith("#")))
    cell.source += addition
    nbformat.write(nb, path)


def sync(folder: Path) -> None:
    subprocess.run([sys.executable, "-m", "torchnotes", "-f", str(folder / "mkdocs.yml"), "sync"],
                   cwd=folder, check=True, capture_output=True, env=dict(os.environ, PYTHONPATH=str(folder / "_code")))


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
    return {"median_kb": round(statistics.median(sizes) / 1024, 1), "total_kb": round(sum(sizes) / 1024, 1),
            "site_mb": round(total_site / 2**20, 1), "pages": len(sizes)}


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, {round(psutil.virtual_memory().total / 2**30)} GiB, Python {platform.python_version()}"


# -- the published table -------------------------------------------------------------------------------------

WORDS = {
    "en": {
        "title": "Measured on {machine}, {date}: {pages} notebook pages (both languages). Medians of {runs_ours} runs (ours) and {runs_base} runs (baseline).",
        "metric": "Metric", "ours": "This site's build", "base": "mkdocs-jupyter", "ratio": "Ratio",
        "cold": "Cold build (empty caches), s", "nochange": "Rebuild, no change, s", "prose": "Rebuild after a prose edit, s",
        "code": "Rebuild after a code edit, s", "k": "kernels started", "peak": "Peak memory (cold), MiB",
        "median_kb": "HTML per page, median, KiB", "total_kb": "HTML of all pages, KiB", "site_mb": "Whole site, MiB",
        "targets": "Targets", "met": "met", "missed": "missed",
        "t1": "No-change rebuild ≤ 0.1 × our cold build, 0 kernels", "t2": "Prose-only edit: 0 kernels",
        "t3": "Our cold build ≤ 0.6 × the baseline's", "t4": "HTML per page ≤ 1/20 of the baseline's",
        "projection": "Projected cold build (execution scales with pages ÷ machines; rendering with pages)",
        "scale": "Pages", "one": "1 machine", "shards": "{n} machines (--shard k/{n})", "min": "{:.0f} min",
    },
    "zh": {
        "title": "测量环境：{machine}，{date}；共 {pages} 个 notebook 页面（两种语言）。本站取 {runs_ours} 次运行的中位数，基线取 {runs_base} 次。",
        "metric": "指标", "ours": "本站构建", "base": "mkdocs-jupyter", "ratio": "比值",
        "cold": "冷构建（清空缓存），秒", "nochange": "无改动重建，秒", "prose": "只改文字后重建，秒",
        "code": "改代码后重建，秒", "k": "启动的内核数", "peak": "峰值内存（冷构建），MiB",
        "median_kb": "每页 HTML 中位数，KiB", "total_kb": "所有页面 HTML 合计，KiB", "site_mb": "整站大小，MiB",
        "targets": "目标", "met": "达成", "missed": "未达成",
        "t1": "无改动重建 ≤ 本站冷构建的 0.1 倍，且不启动内核", "t2": "只改文字：不启动内核",
        "t3": "本站冷构建 ≤ 基线冷构建的 0.6 倍", "t4": "每页 HTML ≤ 基线的 1/20",
        "projection": "冷构建时间预测（执行时间按“页数 ÷ 机器数”增长，渲染时间按页数增长）",
        "scale": "页数", "one": "1 台机器", "shards": "{n} 台机器（--shard k/{n}）", "min": "{:.0f} 分钟",
    },
}


def table(data: dict, lang: str) -> str:
    w = WORDS[lang]
    ours, base = data["results"]["ours"], data["results"]["baseline"]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.3f}" if b else "–"

    lines = [w["title"].format(machine=data["machine"], date=data["date"], pages=data["pages"],
                               runs_ours=ours["runs"], runs_base=base["runs"]), "",
             f"| {w['metric']} | {w['ours']} | {w['base']} | {w['ratio']} |", "|---|--:|--:|--:|"]
    for s in SCENARIOS:
        lines.append(f"| {w[s]} | {ours[s]['seconds']:.1f} | {base[s]['seconds']:.1f} | {ratio(ours[s]['seconds'], base[s]['seconds'])} |")
        lines.append(f"| {w[s].rsplit('，', 1)[0].rsplit(',', 1)[0]}: {w['k']} | {ours[s]['kernels']:g} | {base[s]['kernels']:g} | |")
    lines.append(f"| {w['peak']} | {ours['cold']['peak_mb']:.0f} | {base['cold']['peak_mb']:.0f} | {ratio(ours['cold']['peak_mb'], base['cold']['peak_mb'])} |")
    for key in ("median_kb", "total_kb", "site_mb"):
        lines.append(f"| {w[key]} | {ours['html'][key]:g} | {base['html'][key]:g} | {ratio(ours['html'][key], base['html'][key])} |")
    checks = [
        (w["t1"], ours["nochange"]["seconds"] <= 0.1 * ours["cold"]["seconds"] and ours["nochange"]["kernels"] == 0,
         f"{ours['nochange']['seconds']:.1f} / {ours['cold']['seconds']:.1f} = {ratio(ours['nochange']['seconds'], ours['cold']['seconds'])}, {ours['nochange']['kernels']:g}"),
        (w["t2"], ours["prose"]["kernels"] == 0, f"{ours['prose']['kernels']:g}"),
        (w["t3"], ours["cold"]["seconds"] <= 0.6 * base["cold"]["seconds"], ratio(ours["cold"]["seconds"], base["cold"]["seconds"])),
        (w["t4"], ours["html"]["median_kb"] * 20 <= base["html"]["median_kb"], ratio(ours["html"]["median_kb"], base["html"]["median_kb"])),
    ]
    lines += ["", f"| {w['targets']} | | |", "|---|---|---|"]
    for label, ok, value in checks:
        lines.append(f"| {label} | {value} | {'✅ ' + w['met'] if ok else '❌ ' + w['missed']} |")
    # Rendering is what a no-change build costs; the rest of a cold build is execution, which shards divide.
    render = ours["nochange"]["seconds"]
    execute = max(ours["cold"]["seconds"] - render, 0.0)
    lines += ["", f"| {w['projection']} | {w['one']} | {w['shards'].format(n=10)} | {w['shards'].format(n=100)} |",
              "|---|--:|--:|--:|"]
    for factor in (1, 10, 100):
        cells = [w["min"].format((execute * factor / machines + render * factor) / 60) for machines in (1, 10, 100)]
        lines.append(f"| {data['pages'] * factor} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
