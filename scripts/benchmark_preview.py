"""How long the preview (`mkdocs serve`, run as scripts/serve.sh runs it) takes to follow an edit.

    .venv/bin/python scripts/benchmark_preview.py [--runs 5] [--only prose-en code ...] [--write]

What is timed is what a contributor waits for: from saving the file until the browser open on the page shows the
edit. A scratch copy of the site (scripts/benchmark.py's, with the version record, the GPU recordings and the
execution cache of the repository copied in, so that no page runs unless an edit asks it to) is served with the
arguments of scripts/serve.sh. After each save the script polls every 0.05 s, each time fetching the page's
address and reading the server's log: the edit counts as shown at the first poll where the served page holds it
and every rebuild that started since the save has finished ("Reloading browsers" in the log: the moment
MkDocs tells the browser to reload; a page fetched by hand can show the edit a little earlier, while the rest of
the site is still being built).

Each kind of edit gets its own `mkdocs serve`: the first edit is made as soon as the server first serves the
page (the cold first edit), then `--runs` more, each once the server has been idle for 1 s; the table gives the
first and the median of the others.

- prose-en, prose-zh: a sentence appended to tensors/views in English, then in its Chinese twin (docs/zh/);
- code: a code cell appended that prints a new number (the page runs again, in a kernel forked from the
  preview's zygote); shown with the page's own execution time, from the server's log: the target is that time
  plus 2 s;
- new-page: a page pair made as scripts/new_page.py makes it (both languages, notebooks, nav entry), timed from
  the command's start until the new English page is served, executed;
- config: `copyright` in mkdocs.yml changed (in the footer of every page);
- no-change: a page saved with the same bytes; timed until the rebuild that follows has finished, with MkDocs'
  own "Documentation built in" figure beside it.

Writes benchmarks/preview.json and the tables benchmarks/preview.en.md / preview.zh.md that the Benchmarks pages
include (with --write; without it the figures are only printed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
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
TARGET = 2.0  # seconds: the bound for an edit in the preview, and for a rebuild with nothing changed
POLL = 0.05
NEVER = 120  # seconds: an edit not shown by then is one the preview does not follow
KINDS = ("prose-en", "prose-zh", "code", "new-page", "config", "no-change")
BUILD_STARTED, RELOADED = "Building documentation...", "Reloading browsers"


def serve_arguments() -> list[str]:
    """The arguments scripts/serve.sh gives `mkdocs serve` (its config file, --dirty or not), "$@" left out."""
    for line in (ROOT / "scripts" / "serve.sh").read_text(encoding="utf-8").splitlines():
        words = shlex.split(line, comments=True)
        if "serve" in words and any(word.endswith("mkdocs") for word in words):
            return [word for word in words[words.index("serve") + 1:] if word != "$@"]
    raise SystemExit("scripts/serve.sh runs no `mkdocs serve`")


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


class Server:
    """One `mkdocs serve` of the scratch site, and its log."""

    def __init__(self, site: Path, log: Path):
        self.site, self.log_path = site, log
        self.port = free_port()
        self.log_file = log.open("w")
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(site / "_code"))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *serve_arguments(), "-a", f"127.0.0.1:{self.port}"],
            cwd=site, env=env, stdout=self.log_file, stderr=subprocess.STDOUT)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}/"  # mkdocs.serve.yml: the site at the server's root

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def idle(self) -> bool:
        log = self.log()  # the first build ends without a reload
        return log.count(BUILD_STARTED) == log.count(RELOADED) + 1

    def settle(self) -> None:
        """Wait until no rebuild runs, then 1 s more: the watcher's snapshot is the current tree."""
        deadline = time.monotonic() + 300
        while not self.idle():
            self.check()
            if time.monotonic() > deadline:
                raise SystemExit(f"the server never went idle; see {self.log_path}")
            time.sleep(POLL)
        time.sleep(1.0)

    def check(self) -> None:
        if self.process.poll() is not None:
            raise SystemExit(f"mkdocs serve exited; see {self.log_path}")

    def wait_shown(self, path: str, text: str, start: float, log_at_save: int) -> float | None:
        """Seconds from start until the page at path holds text and every rebuild begun since the save is done;
        None if it did not within NEVER seconds (the preview did not follow the edit)."""
        while time.perf_counter() - start < NEVER:
            self.check()
            log = self.log()[log_at_save:]
            if log.count(RELOADED) >= max(log.count(BUILD_STARTED), 1):
                body = fetch(self.url(path))
                if body is not None and text in body:
                    return time.perf_counter() - start
            time.sleep(POLL)
        return None

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log_file.close()


class Edits:
    """The edits of each kind, numbered so that each shows something new."""

    def __init__(self, site: Path):
        self.site = site

    def page(self, lang: str) -> Path:
        return self.site / "docs" / lang / f"{PAGE}.md"

    def make(self, kind: str, run: int) -> tuple[str, str]:
        """Save the edit; return the page's address and the text that shows it."""
        if kind in ("prose-en", "prose-zh"):
            lang = kind[-2:]
            sentence = (f"A sentence added by the preview benchmark, run {run}." if lang == "en"
                        else f"预览基准测试添加的句子，第 {run} 次。")
            append(self.page(lang), f"\n{sentence}\n")
            return (PAGE if lang == "en" else f"zh/{PAGE}"), sentence
        if kind == "code":  # the number is in the output only, never in the code that prints it
            append(self.page("en"), f"\n```python\nprint(7 * {run} + 1000003)\n```\n")
            return PAGE, str(7 * run + 1000003)
        if kind == "new-page":
            name = f"extra/bench-{run}"
            done = subprocess.run([sys.executable, str(ROOT / "scripts" / "new_page.py"), name, f"Bench page {run}",
                                   f"基准页面 {run}", "--section", "Extra", "--root", str(self.site)],
                                  capture_output=True, text=True, timeout=120)
            if done.returncode:
                raise SystemExit(f"new_page.py failed:\n{done.stdout}{done.stderr}")
            return name, 'class="nb-output"'  # executed, not only copied
        if kind == "config":
            config = self.site / "mkdocs.yml"
            text = re.sub(r"^copyright: .*$", f"copyright: Content CC BY-SA 4.0 · Code MIT · edit {run}",
                          config.read_text(encoding="utf-8"), count=1, flags=re.M)
            config.write_text(text, encoding="utf-8")
            return PAGE, f"Code MIT · edit {run}"
        if kind == "no-change":
            page = self.page("en")
            page.write_bytes(page.read_bytes())
            return PAGE, ""
        raise ValueError(kind)


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def execution_seconds(log: str) -> float | None:
    """The edited page's own run, as the engine logged it ("[n/80] docs/en/tensors/views.md  1.3 s  run")."""
    runs = re.findall(rf"docs/en/{re.escape(PAGE)}\.md\s+([\d.]+) s\s+run", log)
    return float(runs[-1]) if runs else None


def built_seconds(log: str) -> float | None:
    found = re.findall(r"Documentation built in ([\d.]+) seconds", log)
    return float(found[-1]) if found else None


def measure_kind(kind: str, runs: int, work: Path) -> dict:
    site = prepare(work / kind)
    server = Server(site, work / f"{kind}.log")
    edits = Edits(site)
    record: dict = {"seconds": []}
    extra: list[float | None] = []  # per edit: the page's execution time (code), MkDocs' build time (no-change)
    try:
        start = time.perf_counter()
        while fetch(server.url(PAGE)) is None:
            server.check()
            if time.perf_counter() - start > 900:
                raise SystemExit(f"mkdocs serve never served {PAGE}; see {server.log_path}")
            time.sleep(POLL)
        record["start_seconds"] = round(time.perf_counter() - start, 2)
        for run in range(runs + 1):
            if run:
                server.settle()
            log_at_save = len(server.log())
            start = time.perf_counter()
            path, text = edits.make(kind, run)
            took = server.wait_shown(path, text, start, log_at_save)
            if took is None:
                print(f"{kind}: not shown within {NEVER} s; see {server.log_path}", flush=True)
                record["not_followed"] = True
                break
            log = server.log()[log_at_save:]
            figure = execution_seconds(log) if kind == "code" else built_seconds(log) if kind == "no-change" else None
            extra.append(figure)
            record["seconds"].append(round(took, 3))
            note = f" (page ran {figure:.1f} s)" if kind == "code" and figure is not None else (
                f" (MkDocs: built in {figure:.2f} s)" if figure is not None else "")
            print(f"{kind} {'first' if run == 0 else f'run {run}'}: {took:.2f} s{note}", flush=True)
    finally:
        server.close()
    if record.get("not_followed"):
        return record
    record["first"] = record["seconds"][0]
    record["median"] = round(statistics.median(record["seconds"][1:]), 3)
    if kind in ("prose-en", "prose-zh", "no-change"):
        record["target_first"] = record["target"] = TARGET
    if kind == "code" and None not in extra:  # the page's own run, + 2 s: the first edit's, and the median's
        record["execution_seconds"] = extra
        record["target_first"] = round(extra[0] + TARGET, 2)
        record["target"] = round(statistics.median(extra[1:]) + TARGET, 2)
    if kind == "no-change" and None not in extra:
        record["built_seconds"] = extra
    return record


def prepare(folder: Path) -> Path:
    site = prepare_ours(folder)
    shutil.copy(ROOT / "mkdocs.serve.yml", site / "mkdocs.serve.yml")
    # What the preview reads besides the pages: the version record, the GPU recordings, the translation ledger.
    for name in ("compared", "recorded", "translations"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, site / name)
    for name in ("versions.yml",):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, site / name)
    shutil.copytree(ROOT / ".cache" / "torchnotes", site / ".cache" / "torchnotes", dirs_exist_ok=True)
    return site


WORDS = {
    "en": {"head": "| Preview (`mkdocs serve`), from saving to the page shown | First edit, s | Median of {runs}, s "
                   "| Target | Result |",
           "prose-en": "A sentence added to an English page", "prose-zh": "A sentence added to its Chinese twin",
           "code": "A new code cell, until the page shows what it printed", "new-page": "A new page "
           "(scripts/new_page.py), until it is served, executed", "config": "An edit to mkdocs.yml (the copyright line)",
           "no-change": "A save that changes nothing, until the rebuild has finished",
           "code_target": "≤ the page's own run + 2 s: {first:.1f} (first), {target:.1f} (median)", "target": "≤ {target:g} s",
           "met": "met", "not": "not met", "built": " (MkDocs' own figure: {built})",
           "never": "not shown within {seconds} s"},
    "zh": {"head": "| 预览（`mkdocs serve`），从保存到页面显示 | 第一次修改，秒 | {runs} 次的中位数，秒 | 目标 | 结果 |",
           "prose-en": "英文页面添加一句正文", "prose-zh": "它的中文页面添加一句正文",
           "code": "新增一个代码单元格，到页面显示它的输出", "new-page": "新页面（scripts/new_page.py），到它执行后被提供",
           "config": "修改 mkdocs.yml（版权行）", "no-change": "保存而内容不变，到重建完成",
           "code_target": "≤ 页面自身运行时间 + 2 秒：{first:.1f}（第一次），{target:.1f}（中位数）", "target": "≤ {target:g} 秒",
           "met": "达成", "not": "未达成", "built": "（MkDocs 自己的数字：{built}）",
           "never": "{seconds} 秒内未显示"},
}


def tables(record: dict) -> dict[str, str]:
    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"

    out = {}
    for lang, w in WORDS.items():
        lines = [w["head"].format(runs=record["runs"]), "|---|--:|--:|---|---|"]
        for kind, r in record["kinds"].items():
            label = w[kind]
            if r.get("not_followed"):
                lines.append(f"| {label} | {w['never'].format(seconds=NEVER)} | | | {w['not']} |")
                continue
            if kind == "no-change" and r.get("built_seconds"):
                label += w["built"].format(built=spread(r["built_seconds"]))
            target = result = ""
            if "target" in r:
                met = r["first"] <= r["target_first"] and r["median"] <= r["target"]
                target = (w["code_target"].format(first=r["target_first"], target=r["target"])
                          if kind == "code" else w["target"].format(target=r["target"]))
                result = w["met"] if met else w["not"]
            lines.append(f"| {label} | {r['first']:.1f} | {spread(r['seconds'][1:])} | {target} | {result} |")
        out[lang] = "\n".join(lines) + "\n"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="edits after the first, per kind (default 5)")
    parser.add_argument("--only", nargs="+", choices=KINDS, help="these kinds of edit only (never written)")
    parser.add_argument("--write", action="store_true", help="record the figures in benchmarks/ (the Benchmarks page); without it they are only printed")
    args = parser.parse_args()
    record = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
              "page": PAGE, "serve": " ".join(["mkdocs", "serve", *serve_arguments()]), "poll_seconds": POLL,
              "runs": args.runs, "kinds": {}}
    print(f"preview: {record['serve']}, {args.runs} edits after the first of each kind", flush=True)
    with tempfile.TemporaryDirectory(prefix="torchnotes-preview-") as work:
        for kind in args.only or KINDS:
            record["kinds"][kind] = measure_kind(kind, args.runs, Path(work))
    for kind, r in record["kinds"].items():
        if r.get("not_followed"):
            print(f"{kind}: not followed")
            continue
        print(f"{kind}: first {r['first']:.2f} s, median {r['median']:.2f} s" +
              (f", target {r['target']:g} s" if "target" in r else ""))
    if not args.write or args.only:
        print("not written (--write records them in benchmarks/, all kinds measured)")
        return 0
    (OUT / "preview.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for lang, text in tables(record).items():
        (OUT / f"preview.{lang}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
