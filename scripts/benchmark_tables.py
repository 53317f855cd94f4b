"""The tables of the Benchmarks pages (benchmarks/results.en.md and .zh.md), written from benchmarks/results.json,
and the description of the machine that measured them."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks"
SCENARIOS = ("cold", "nochange", "prose", "code")


def write_tables(data: dict) -> None:
    for lang in ("en", "zh"):
        (OUT / f"results.{lang}.md").write_text(table(data, lang), encoding="utf-8")


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
        "note": " (Note: {notes}.)", "list": ", ", "notes": "; ", "kept": "{builds}: measured by an earlier run of this script on this machine, {day}",
        "cross": "a ratio marked † divides numbers of two runs of the script ({days}), on the same machine",
        "metric": "Metric", "ours": "This site (a kernel per core)", "serial": "This site (--jobs 1)", "base": "mkdocs-jupyter (serial)",
        "ratio": "Ratio (this site / mkdocs-jupyter)",
        "cold": "Cold build (empty caches), s", "nochange": "Rebuild, no change, s", "prose": "Rebuild after a prose edit, s",
        "code": "Rebuild after a code edit, s", "k": "kernels started", "peak": "Peak memory (cold), MiB",
        "pss": "Peak memory (cold), shared pages counted once (PSS), MiB; processes at that peak",
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
        "t5": "Cold build: the whole build (MkDocs included) ≤ the same bound",
        "t6": "Cold builds give byte-identical pages (every file but the sitemaps and the build report, which shows the seconds)",
        "t6_value": "{builds} builds, {files} files; differing: {differ}",
    },
    "zh": {
        "title": "测量环境：{machine}，{date}；共 {pages} 个 notebook 页面（两种语言），每种构建各运行 {runs} 次；"
                 "表中为中位数，括号内为最快与最慢的一次。",
        "note": "（说明：{notes}。）", "list": "、", "notes": "；", "kept": "{builds}：本机上本脚本较早一次运行的测量结果，{day}",
        "cross": "标有 † 的比值来自本脚本在同一台机器上的两次运行（{days}）",
        "metric": "指标", "ours": "本站（每核一个内核）", "serial": "本站（--jobs 1）", "base": "mkdocs-jupyter（串行）",
        "ratio": "比值（本站 / mkdocs-jupyter）",
        "cold": "冷构建（清空缓存），秒", "nochange": "无改动重建，秒", "prose": "只改文字后重建，秒",
        "code": "改代码后重建，秒", "k": "启动的内核数", "peak": "峰值内存（冷构建），MiB",
        "pss": "峰值内存（冷构建），共享页只计一次（PSS），MiB；此刻的进程数",
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
        "t5": "冷构建：整个构建（含 MkDocs）≤ 同一上限",
        "t6": "各次冷构建的页面逐字节相同（站点的每个文件，除 sitemap 和列出各页耗时的构建报告）",
        "t6_value": "{builds} 次构建，{files} 个文件；不同的：{differ}",
    },
}


def _machine_text(machine, lang: str = "en") -> str:
    if isinstance(machine, str):
        return machine
    cores = f"{machine['cores']} 核" if lang == "zh" else f"{machine['cores']} cores"
    return f"{machine['cpu']}, {cores}, {machine['memory_gib']} GiB, Python {machine['python']}"


def _kept(data: dict, w: dict) -> list[str]:
    """The builds whose numbers a run with --only kept, by the day they were measured (each build in
    results.json carries its own day)."""
    names = {"ours": w["ours"], "ours_jobs1": w["serial"], "baseline": w["base"], "ours_fresh": w["scratch"]}
    days: dict[str, list[str]] = {}
    for build, row in data["results"].items():
        if row.get("measured", data["date"]) != data["date"]:
            days.setdefault(row["measured"], []).append(names.get(build, build))
    return [w["kept"].format(builds=w["list"].join(builds), day=day) for day, builds in sorted(days.items())]


def table(data: dict, lang: str) -> str:
    w = WORDS[lang]
    res = data["results"]
    ours, serial, base = res["ours"], res.get("ours_jobs1", {}), res["baseline"]

    # The script may measure some builds again (--only) and keep the others' numbers: a ratio of ours to the
    # baseline then divides two runs, which the table says (†, and the runs' days in the note).
    day = data["date"]
    ours_day, base_day = ours.get("measured", day), base.get("measured", day)
    cross = ours_day != base_day

    def ratio(a: float, b: float, across: bool = False) -> str:
        return (f"{a / b:.2f}" + ("†" if across and cross else "")) if b else "–"

    def cell(row: dict | None) -> str:
        if not row:
            return "–"
        return f"{row['seconds']:.1f} ({row['min']:.1f}–{row['max']:.1f})"

    crossed = w["cross"].format(days=w["list"].join(sorted({ours_day, base_day}))) if cross else ""
    notes = w["notes"].join(filter(None, [data.get("note"), *_kept(data, w), crossed]))
    lines = [w["title"].format(machine=_machine_text(data["machine"], lang), date=data["date"], pages=data["pages"],
                               runs=data.get("runs", "?")) + (w["note"].format(notes=notes) if notes else ""), "",
             f"| {w['metric']} | {w['ours']} | {w['serial']} | {w['base']} | {w['ratio']} |", "|---|--:|--:|--:|--:|"]
    for s in SCENARIOS:
        lines.append(f"| {w[s]} | {cell(ours[s])} | {cell(serial.get(s))} | {cell(base[s])} | "
                     f"{ratio(ours[s]['seconds'], base[s]['seconds'], across=True)} |")
        serial_k = f"{serial[s]['kernels']:g}" if s in serial else "–"
        lines.append(f"| {w[s].rsplit('，', 1)[0].rsplit(',', 1)[0]}: {w['k']} | {ours[s]['kernels']:g} | {serial_k} | "
                     f"{base[s]['kernels']:g} | |")
    lines.append(f"| {w['peak']} | {ours['cold']['peak_mb']:.0f} | "
                 f"{serial['cold']['peak_mb']:.0f} | {base['cold']['peak_mb']:.0f} | "
                 f"{ratio(ours['cold']['peak_mb'], base['cold']['peak_mb'], across=True)} |" if serial else
                 f"| {w['peak']} | {ours['cold']['peak_mb']:.0f} | – | {base['cold']['peak_mb']:.0f} | |")
    if "peak_pss_mb" in ours["cold"]:  # kernels forked from the zygote share its pages: RSS counts them in each
        lines.append(f"| {w['pss']} | {ours['cold']['peak_pss_mb']:.0f}; {ours['cold']['processes_at_peak']} | | | |")
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
                  f"{ratio(ours['nochange']['seconds'], base['nochange']['seconds'], across=True)}",
         ours["nochange"]["seconds"] <= 0.5 * base["nochange"]["seconds"]),
        (w["t2"], f"{ours['prose']['seconds']:.1f} / {ours['nochange']['seconds']:.1f} = "
                  f"{ratio(ours['prose']['seconds'], ours['nochange']['seconds'])}",
         ours["prose"]["seconds"] <= 1.5 * ours["nochange"]["seconds"]),
        (w["t3"], f"{ours['prose']['kernels']:g}", ours["prose"]["kernels"] == 0),
    ]
    if "bound_seconds" in cold:
        checks.append((w["t4"], f"{cold['engine_seconds']:.1f} ≤ {cold['bound_seconds']:.1f}",
                       cold["engine_seconds"] <= cold["bound_seconds"]))
        checks.append((w["t5"], f"{cold['seconds']:.1f} ≤ {cold['bound_seconds']:.1f}",
                       cold["seconds"] <= cold["bound_seconds"]))
    same = cold.get("identical")
    if same:
        checks.append((w["t6"], w["t6_value"].format(builds=same["builds"], files=same["files"],
                                                    differ=", ".join(same["differ"]) or "–"), same["pages_identical"]))
    lines += ["", f"| {w['target']} | {w['value']} | {w['result']} |", "|---|---|---|"]
    for label, value, ok in checks:
        lines.append(f"| {label} | {value} | {w['met'] if ok else '**' + w['missed'] + '**'} |")
    return "\n".join(lines) + "\n"

