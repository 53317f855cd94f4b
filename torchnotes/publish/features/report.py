"""The execution report page: every page of one language with its status, time and the environment, then the GPU
recordings (the page carries REPORT_MARKER where the table goes)."""

from __future__ import annotations

from pathlib import Path

from torchnotes.engine.results import Report
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.publish.features.gpu import GpuRecordings
from torchnotes.strings import strings

REPORT_MARKER = "<!-- torchnotes:execution-report -->"
SLOWEST = 5


class ReportPage(Feature):
    def page(self, out: PageOut, body: str) -> str:
        if REPORT_MARKER not in body:
            return body
        settings = self.build.settings
        gpu = next(f for f in self.build.features if isinstance(f, GpuRecordings))
        table = report_markdown(self.build.report, out.lang, settings.root, settings.docs_dir)
        return body.replace(REPORT_MARKER, table + "\n" + gpu.report(out.lang))


def report_markdown(report: Report, lang: str, root: Path, docs_dir: Path) -> str:
    """Statuses are those of the build that made this page: 'cached' means no kernel ran for it this time."""
    w = strings(lang)
    env = report.env
    lang_dir = (Path(docs_dir) / lang).resolve()
    rows = []
    for result in report.results:
        source = (Path(root) / result.page).resolve()
        if source.is_relative_to(lang_dir):
            rows.append((source.relative_to(lang_dir).as_posix(), result))
    counts = {s: sum(r.status == s for _, r in rows) for s in ("run", "cached", "failed", "static")}
    lines = [
        f"**{w['report_env']}:** PyTorch {env.torch} ({env.torch_build}, git {env.torch_git}) · {env.device} · "
        f"Python {env.python} · requirements.txt {env.requirements}",
        "",
        w["report_total"].format(n=len(rows), **counts),
        "",
        f"| {w['report_page']} | {w['report_status']} | {w['report_seconds']} | {w['report_date']} |",
        "|---|---|--:|---|",
    ]
    for rel, r in rows:
        seconds = "–" if r.status == "static" else f"{r.run_seconds:.1f}"
        lines.append(f"| [{rel}]({rel}) | {w['status_' + r.status]} | {seconds} | {r.date or '–'} |")
    slow = sorted(((s, rel, n) for rel, r in rows for n, s in enumerate(r.cell_seconds or [], 1) if s), reverse=True)
    if slow:
        lines += ["", f"### {w['report_slowest']}", "", w["report_slowest_intro"].format(count=min(SLOWEST, len(slow))), "",
                  f"| {w['report_page']} | {w['report_cell']} | {w['report_seconds']} |", "|---|--:|--:|"]
        lines += [f"| [{rel}]({rel}) | {n} | {s:.2f} |" for s, rel, n in slow[:SLOWEST]]
    return "\n".join(lines) + "\n"
