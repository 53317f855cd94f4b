"""How long a prose edit takes to show in the preview (`mkdocs serve`), on this project's pages.

    .venv/bin/python scripts/benchmark_preview.py [--runs 5]

From a scratch copy of the site (scripts/benchmark.py's), with the execution cache of the repository copied in so
that no page runs: `mkdocs serve` starts, and each run appends a sentence to one page (tensors/views, English)
and times, from the file's write, until the served page holds the sentence (polled every 50 ms). Writes
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


def measure(runs: int, work: Path) -> list[float]:
    site = prepare_ours(work / "preview")
    shutil.copytree(ROOT / ".cache" / "torchnotes", site / ".cache" / "torchnotes", dirs_exist_ok=True)
    port = free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(site / "_code"))
    log = (work / "serve.log").open("w")
    serve = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                             cwd=site, env=env, stdout=log, stderr=subprocess.STDOUT)
    # mkdocs serve puts the site under site_url's path.
    url = f"http://127.0.0.1:{port}/pytorch-notes/{PAGE}/"
    try:
        if wait_for(url, "<html", 600) is None:
            raise SystemExit(f"mkdocs serve did not serve {url}; see {work / 'serve.log'}")
        page = site / "docs" / "en" / f"{PAGE}.md"
        seconds = []
        for run in range(runs):
            sentence = f"A sentence added by the preview benchmark, run {run}."
            time.sleep(1.0)  # the watcher settles after the previous rebuild
            page.write_text(page.read_text(encoding="utf-8") + f"\n{sentence}\n", encoding="utf-8")
            took = wait_for(url, sentence, 120)
            if took is None:
                raise SystemExit(f"run {run}: the edit never showed; see {work / 'serve.log'}")
            seconds.append(took)
            print(f"run {run}: {took:.2f} s")
        return seconds
    finally:
        serve.terminate()
        serve.wait(30)
        log.close()


def tables(seconds: list[float]) -> dict[str, str]:
    median = statistics.median(seconds)
    spread = f"{median:.1f} ({min(seconds):.1f}–{max(seconds):.1f})"
    met = "met" if median <= TARGET else "not met"
    return {
        "en": ("| Preview (`mkdocs serve`) | Measured, s | Target | Result |\n|---|--:|---|---|\n"
               f"| A prose edit, from saving the file to the page served with it | {spread} | ≤ {TARGET:g} s | {met} |\n"),
        "zh": ("| 预览（`mkdocs serve`） | 实测，秒 | 目标 | 结果 |\n|---|--:|---|---|\n"
               f"| 修改一句正文，从保存文件到页面显示新内容 | {spread} | ≤ {TARGET:g} 秒 | {'达成' if median <= TARGET else '未达成'} |\n"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="torchnotes-preview-") as work:
        seconds = measure(args.runs, Path(work))
    record = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "page": PAGE, "seconds": [round(s, 3) for s in seconds], "median": round(statistics.median(seconds), 3)}
    (OUT / "preview.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    for lang, text in tables(seconds).items():
        (OUT / f"preview.{lang}.md").write_text(text, encoding="utf-8")
    print(f"median {record['median']:.2f} s over {len(seconds)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
