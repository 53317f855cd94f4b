"""Time the PDF books and measure them: build each language's book from a built site, several times.

    .venv/bin/python scripts/benchmark_pdf.py --site site [--runs 3]

Each run is the whole command (`python -m torchnotes pdf --lang <lang>`: Python, the environment probe, Chromium
printing the book, then its title and contents pages again with their numbers, pikepdf) into a scratch folder, with
an empty folder of kept books (TORCHNOTES_BOOKS): a book printed before from the same site would otherwise be a
copy. Then the two books in one command, as scripts/build_pdf.sh prints them: side by side, one Chromium each.
Writes benchmarks/pdf.en.md and benchmarks/pdf.zh.md, the tables the Benchmarks pages include; only measured
numbers. The machine's load average is written with them: on a shared machine other jobs slow the build down.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from pypdf import PdfReader

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchnotes.generators.pdf import FILE_NAME  # noqa: E402
from torchnotes.generators.pdf.book import load_config, nav_entries  # noqa: E402
from torchnotes.settings import load  # noqa: E402

TARGET_MB, TARGET_S = 25, 120
TEXT = {
    "en": {"head": "| Book | Pages in the nav | PDF pages | Size, MB | Build time, s |",
           "book": {"en": "English", "zh": "Chinese"},
           "both": "Both books, one command (side by side, as `scripts/build_pdf.sh` prints them)",
           "busy": "with the machine busy (load average {load:.1f} at the start: other jobs were running)",
           "calm": "with nothing else running (load average {load:.1f} at the start)",
           "line": "Measured on {cpu}, {cores} cores, {date}, {state}: `scripts/benchmark_pdf.py`, {runs} runs per book "
                   "from the built site, each a print (no kept book); median, with the fastest and slowest run in "
                   "brackets. Targets: at most {mb} MB and {s} s per book."},
    "zh": {"head": "| PDF | 导航中的页面数 | PDF 页数 | 大小（MB） | 构建时间（秒） |",
           "book": {"en": "英文", "zh": "中文"},
           "both": "两份 PDF，一条命令（并排打印，与 `scripts/build_pdf.sh` 相同）",
           "busy": "机器同时运行着其他任务（开始时负载均值 {load:.1f}）",
           "calm": "机器上没有其他任务（开始时负载均值 {load:.1f}）",
           "line": "测量环境：{cpu}，{cores} 核，{date}；{state}。"
                   "由 `scripts/benchmark_pdf.py` 从已构建的网站为每种语言构建 {runs} 次，每次都真正打印（不复用保留的 PDF），"
                   "取中位数，括号内为最快和最慢的一次。目标：每份 PDF 不超过 {mb} MB、{s} 秒。"},
}


BUSY = 1.0  # load average at the start above which other jobs are said to be running (2 cores)


def measure(site: Path, lang: str | None, runs: int) -> tuple[list[float], Path]:
    """Seconds of each run of the command for one language's book (None: both books, one command)."""
    times = []
    out = Path(tempfile.mkdtemp(prefix="pdf-bench-"))
    for run in range(1, runs + 1):
        print(f"{lang or 'both'}: printing, run {run} of {runs}", flush=True)
        books = tempfile.mkdtemp(prefix="pdf-bench-books-")  # no kept book: every run prints
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "torchnotes", "pdf", "--site", str(site), "--out",
                               str(out)] + (["--lang", lang] if lang else []), cwd=ROOT, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT), "TORCHNOTES_BOOKS": books})
        if done.returncode != 0:
            sys.exit(f"benchmark_pdf.py: the PDF build failed, nothing was written:\n{done.stderr.strip()}")
        times.append(time.perf_counter() - start)
    return times, out / FILE_NAME.format(lang=lang or "en")


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (mkdocs build)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="record the figures in benchmarks/ (the Benchmarks page); without it they are only printed")
    args = parser.parse_args()
    settings, config = load(ROOT / "mkdocs.yml"), load_config(ROOT / "mkdocs.yml")
    load_avg = os.getloadavg()[0]
    rows = {}
    for lang in settings.languages:
        times, pdf = measure(args.site.resolve(), lang, args.runs)
        rows[lang] = (len(nav_entries(config, settings.docs_dir, lang)), len(PdfReader(pdf).pages),
                      pdf.stat().st_size / 1e6, times)
        print(f"{lang}: {rows[lang][1]} pages, {rows[lang][2]:.1f} MB, {statistics.median(times):.1f} s", flush=True)
    both, _ = measure(args.site.resolve(), None, args.runs)
    print(f"both books: {statistics.median(both):.1f} s", flush=True)
    for lang, text in TEXT.items():
        state = text["busy" if load_avg > BUSY else "calm"].format(load=load_avg)
        lines = [text["line"].format(cpu=cpu_name(), cores=os.cpu_count(), date=date.today().isoformat(),
                                     state=state, runs=args.runs, mb=TARGET_MB, s=TARGET_S), "",
                 text["head"], "|---|--:|--:|--:|--:|"]
        for book, (nav, pages, size, times) in rows.items():
            lines.append(f"| {text['book'][book]} (`{FILE_NAME.format(lang=book)}`) | {nav} | {pages} | {size:.1f} | "
                         f"{statistics.median(times):.1f} ({min(times):.1f}–{max(times):.1f}) |")
        lines.append(f"| {text['both']} | | | | {statistics.median(both):.1f} ({min(both):.1f}–{max(both):.1f}) |")
        if args.write:
            (ROOT / "benchmarks" / f"pdf.{lang}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("written to benchmarks/pdf.*.md" if args.write else "not written (--write records them in benchmarks/)")


if __name__ == "__main__":
    main()
