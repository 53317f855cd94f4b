"""How long a prose edit takes to show in the preview (`mkdocs serve`), on this project's pages.

    .venv/bin/python scripts/benchmark_preview.py [--runs 5]

From a scratch copy of the site (scripts/benchmark.py's), with the execution cache of the repository copied in so
that no page runs: `mkdocs serve` starts, and each run appends a sentence to one page (tensors/views, English)
and times, from the file's write, until the served page holds the sentence (polled every 50 ms). Then each run
appends a code cell that prints a new number, so the page runs again, and times until the page shows what
it printed (the serve session keeps its zygote: the kernel forks without importing torch again). Writes
benchmarks/preview.json and the tables benchmarks/preview.en.md / preview.zh.md that the Benchmarks pages include.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from benchmark_sites import ROOT, prepare_ours
from benchmark_tables import OUT

PAGE = "tensors/views"
TARGET = 2.0  # seconds: the bound for a prose edit in the preview


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def wait_for(url: str, text: str, timeout: float) -> float | None:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        body = fetch(url)
        if body is not None and text in body:
            return time.perf_counter() - start
        time.sleep(0.05)
    return None


def measure(runs: int, work: Path) -> dict[str, list[float]]:
    site = prepare_ours(work / "preview")
    shutil.copytree(ROOT / ".cache" / "torchnotes", site / ".cache" / "torchnotes", dirs_exist_ok=True)
    port = free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(site / "_code"))
    log = (work / "serve.log").open("w")
    serve = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                             cwd=site, env=env, stdout=log, stderr=subprocess.STDOUT)
    # mkdocs serve puts the site under site_url's path.
    url = f"http://127.0.0.1:{port}/pytorch-notes/{PAGE}/"
    print(f"preview: serving a copy of the site at {url}; {runs} prose and {runs} code edits follow", flush=True)
    try:
        if wait_for(url, "<html", 600) is None:
            raise SystemExit(f"mkdocs serve did not serve {url}; see {work / 'serve.log'}")
        page = site / "docs" / "en" / f"{PAGE}.md"
        seconds: dict[str, list[float]] = {"prose": [], "code": []}
        for kind in seconds:
            for run in range(runs):
                if kind == "prose":
                    added = shown = f"A sentence added by the preview benchmark, run {run}."
                else:  # the number is in the output only, never in the code that prints it
                    added, shown = f"```python\nprint(7 * {run} + 1000003)\n```", str(7 * run + 1000003)
                time.sleep(1.0)  # the watcher settles after the previous rebuild
                page.write_text(page.read_text(encoding="utf-8") + f"\n{added}\n", encoding="utf-8")
                took = wait_for(url, shown, 120)
                if took is None:
                    raise SystemExit(f"{kind} run {run}: the edit never showed; see {work / 'serve.log'}")
                seconds[kind].append(took)
                print(f"{kind} run {run}: {took:.2f} s")
        return seconds
    finally:
        serve.terminate()
        serve.wait(30)
        log.close()


def tables(seconds: dict[str, list[float]]) -> dict[str, str]:
    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"

    met = statistics.median(seconds["prose"]) <= TARGET
    return {
        "en": ("| Preview (`mkdocs serve`) | Measured, s | Target | Result |\n|---|--:|---|---|\n"
               f"| A prose edit, from saving the file to the page served with it | {spread(seconds['prose'])} | "
               f"≤ {TARGET:g} s | {'met' if met else 'not met'} |\n"
               f"| A new code cell, from saving the file to the page showing what it printed | "
               f"{spread(seconds['code'])} | | |\n"),
        "zh": ("| 预览（`mkdocs serve`） | 实测，秒 | 目标 | 结果 |\n|---|--:|---|---|\n"
               f"| 修改一句正文，从保存文件到页面显示新内容 | {spread(seconds['prose'])} | ≤ {TARGET:g} 秒 | "
               f"{'达成' if met else '未达成'} |\n"
               f"| 新增一个代码单元格，从保存文件到页面显示它的输出 | {spread(seconds['code'])} | | |\n"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="record the figures in benchmarks/ (the Benchmarks page); without it they are only printed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torchnotes-preview-") as work:
        seconds = measure(args.runs, Path(work))
    record = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores", "page": PAGE,
              "seconds": [round(s, 3) for s in seconds["prose"]], "median": round(statistics.median(seconds["prose"]), 3),
              "code_seconds": [round(s, 3) for s in seconds["code"]],
              "code_median": round(statistics.median(seconds["code"]), 3)}
    print(f"median {record['median']:.2f} s (prose), {record['code_median']:.2f} s (code) over {args.runs} runs each")
    if not args.write:
        print("not written (--write records them in benchmarks/)")
        return 0
    (OUT / "preview.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    for lang, text in tables(seconds).items():
        (OUT / f"preview.{lang}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
