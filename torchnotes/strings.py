"""Every piece of text the build puts on a page, one table per language.

Keys are shared by all languages; `strings(lang)` falls back to English for a language without a table.
"""

from __future__ import annotations

EN = {
    # The language itself, for the header's language menu.
    "language_name": "English",
    "site_name": "PyTorch Notes",
    # Under code cells.
    "needs_cuda": "This cell needs a CUDA device. This build ran on {device}, so it shows no output.",
    "not_run": "Shown, not executed.",
    "expected_error": "Expected error",
    "output": "Output",
    "long_output": "Output ({lines} lines)",
    "code": "Code",
    "full_traceback": "Show the full traceback ({lines} lines)",
    "frames_hidden": "… {count} frames inside PyTorch hidden …",
    # Under the page title.
    "provenance": "Outputs generated with PyTorch {torch} on {device} · Python {python} · {date} · {seconds}",
    "download": "Download notebook",
    "colab": "Open in Colab",
    "seconds": "{:.1f} s",
    # The execution report page.
    "report_page": "Page",
    "report_status": "Status",
    "report_seconds": "Seconds",
    "report_date": "Executed on",
    "report_env": "Environment",
    "report_total": "{n} pages · {run} run · {cached} cached · {failed} failed · {static} without code",
    "report_slowest": "Slowest cells",
    "report_cell": "Cell",
    "status_run": "run",
    "status_cached": "cached",
    "status_static": "no code",
    "status_failed": "failed",
    # The PDF book (torchnotes.pdf).
    "pdf_contents": "Contents",
    "pdf_online": "Online edition:",
    "pdf_provenance": "Every output produced by PyTorch {torch} ({build}, git {git}) on {device} · Python {python} · {date}",
    # Navigation sections of mkdocs.yml, by their English title.
    "nav": {},
}

ZH = {
    "language_name": "简体中文",
    "site_name": "PyTorch 笔记",
    "needs_cuda": "此单元需要 CUDA 设备。本次构建运行在 {device} 上，因此没有输出。",
    "not_run": "仅展示，未执行。",
    "expected_error": "预期的错误",
    "output": "输出",
    "long_output": "输出（{lines} 行）",
    "code": "代码",
    "full_traceback": "显示完整的回溯（{lines} 行）",
    "frames_hidden": "… 省略了 PyTorch 内部的 {count} 层调用 …",
    "provenance": "输出由 PyTorch {torch} 在 {device} 上生成 · Python {python} · {date} · {seconds}",
    "download": "下载 notebook",
    "colab": "在 Colab 中打开",
    "seconds": "{:.1f} 秒",
    "report_page": "页面",
    "report_status": "状态",
    "report_seconds": "秒",
    "report_date": "执行日期",
    "report_env": "环境",
    "report_total": "共 {n} 页 · 执行 {run} · 缓存 {cached} · 失败 {failed} · 无代码 {static}",
    "report_slowest": "最慢的单元",
    "report_cell": "单元",
    "status_run": "执行",
    "status_cached": "缓存",
    "status_static": "无代码",
    "status_failed": "失败",
    "pdf_contents": "目录",
    "pdf_online": "在线版：",
    "pdf_provenance": "所有输出由 PyTorch {torch}（{build}，git {git}）在 {device} 上生成 · Python {python} · {date}",
    "nav": {
        "Home": "首页",
        "Tensors": "张量",
        "Autograd": "自动求导",
        "Modules": "模块",
        "Losses and optimisers": "损失与优化",
        "Data": "数据",
        "Saving": "保存与加载",
        "GPU & CUDA": "GPU 与 CUDA",
        "Advanced": "进阶",
        "About the site": "关于本站",
        "Execution report": "执行报告",
        "Benchmarks": "基准测试",
    },
}

TABLES = {"en": EN, "zh": ZH}


def strings(lang: str) -> dict:
    return TABLES.get(lang, EN)
