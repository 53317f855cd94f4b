"""The execution report page: every page of one language with its status, time and the environment."""

from __future__ import annotations

from pathlib import Path

from ..engine import Report

REPORT_MARKER = "<!-- torchnotes:execution-report -->"

WORDS = {
    "en": {"page": "Page", "status": "Status", "seconds": "Seconds", "date": "Executed on", "env": "Environment",
           "total": "{n} pages · {run} run · {cached} cached · {failed} failed · {static} without code",
           "run": "run", "cached": "cached", "static": "no code", "failed": "failed"},
    "zh": {"page": "页面", "status": "状态", "seconds": "秒", "date": "执行日期", "env": "环境",
           "total": "共 {n} 页 · 执行 {run} · 缓存 {cached} · 失败 {failed} · 无代码 {static}",
           "run": "执行", "cached": "缓存", "static": "无代码", "failed": "失败"},
}


def report_markdown(report: Report, lang: str, root: Path, docs_dir: Path) -> str:
    """Statuses are those of the build that made this page: 'cached' means no kernel ran for it this time."""
    w = WORDS.get(lang, WORDS["en"])
    env = report.env
    lang_dir = (docs_dir / lang).resolve()
    rows = []
    for result in report.results:
        source = (root / result.page).resolve()
        if source.is_relative_to(lang_dir):
            rows.append((source.relative_to(lang_dir).as_posix(), result))
    counts = {s: sum(r.status == s for _, r in rows) for s in ("run", "cached", "failed", "static")}
    lines = [
        f"**{w['env']}:** PyTorch {env.torch} ({env.torch_build}, git {env.torch_git}) · {env.device} · "
        f"Python {env.python} · requirements.txt {env.requirements}",
        "",
        w["total"].format(n=len(rows), **counts),
        "",
        f"| {w['page']} | {w['status']} | {w['seconds']} | {w['date']} |",
        "|---|---|--:|---|",
    ]
    for rel, r in rows:
        seconds = "–" if r.status == "static" else f"{r.run_seconds:.1f}"
        lines.append(f"| [{rel}]({rel}) | {w[r.status]} | {seconds} | {r.date or '–'} |")
    return "\n".join(lines) + "\n"
