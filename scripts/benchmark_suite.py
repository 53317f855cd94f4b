"""How long the test suite takes on this machine: plain `pytest -n 3` (the everyday suite, the slow tests left
out: tests/slow.py) against its bound of 4 minutes, and with --slow the whole suite as CI runs it.

    .venv/bin/python scripts/benchmark_suite.py [--slow] [--site site] [--write]

Run it after set-up (`bash scripts/test.sh` once, or `bash scripts/setup.sh --browser`), with nothing else running:
the suite shares the cores with whatever else does. --site reuses a built site for the slow tests (TORCHNOTES_SITE)
instead of building one. With --write the figures go to benchmarks/suite.json; without it they are only printed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks"
TARGET = 240.0  # seconds: plain `pytest -n 3` after set-up, on two cores (issue 36)
WORKERS = 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow", action="store_true", help="the whole suite, slow tests included, as CI runs it")
    parser.add_argument("--site", type=Path, help="a built site for the slow tests (TORCHNOTES_SITE)")
    parser.add_argument("--write", action="store_true", help="record the figures in benchmarks/suite.json")
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "pytest", "-n", str(WORKERS), "-q", "-p", "no:randomly"] + (["--slow"] if args.slow else [])
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("CI", None)  # CI=true refuses a run without --slow
    if args.site:
        env["TORCHNOTES_SITE"] = str(args.site.resolve())
    print(f"benchmark_suite.py: {' '.join(command[1:])} on {os.cpu_count()} cores, from {ROOT}", flush=True)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|errors?|deselected)", done.stdout)}
    if done.returncode != 0:
        print(done.stdout[-4000:] + done.stderr[-2000:], file=sys.stderr)
        print(f"benchmark_suite.py: the suite failed ({done.returncode}): not a measurement", file=sys.stderr)
        return 1
    bound = "" if args.slow else f" (bound {TARGET:.0f} s: {'within' if seconds <= TARGET else 'OVER'})"
    print(f"{'pytest -n 3 --slow' if args.slow else 'plain pytest -n 3'}: {last.strip('= ')}; {seconds:.1f} s wall{bound}")
    if not args.write:
        print("not written (--write records them in benchmarks/suite.json)")
        return 0
    path = OUT / "suite.json"
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    record["slow" if args.slow else "plain"] = {
        "seconds": round(seconds, 1), "counts": counts, "workers": WORKERS, "cores": os.cpu_count(),
        "machine": platform.platform(), "date": time.strftime("%Y-%m-%d %H:%M"), "target": None if args.slow else TARGET}
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"written to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
