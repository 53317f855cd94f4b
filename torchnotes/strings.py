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
    "compared": "compared with PyTorch {versions}",
    # Under a cell whose output differs in another torch release (torchnotes.drift).
    "drift_differs": "differs in {version}",
    "drift_raises": "raises in {version}",
    "drift_intro": "Output in PyTorch {version}: '+' lines are what it prints, '-' lines what {primary} prints above.",
    "changes_summary": "{pages} pages, {cells} code cells compared against PyTorch {primary}, the release this site is built with.",
    "changes_version": "PyTorch {version}: {count} cell(s) differ",
    "changes_failed": "{count} page(s) raise under this release",
    "changes_none": "No cell differs.",
    "changes_missing": "Not compared yet: `python -m torchnotes versions` runs every page under each release of versions.yml.",
    "changes_cell": "code cell {number}",
    "changes_warnings": "Warnings under PyTorch {primary}",
    "changes_warnings_intro": "Every deprecation, future and user warning a cell prints with the release this site is built with: the list of things to fix before they break.",
    "changes_volatile": "Cells never compared",
    "changes_volatile_intro": "Tagged `volatile`, with the reason their output varies from run to run.",
    "changes_page": "Page",
    "changes_kind": "Warning",
    "changes_message": "Message",
    "changes_reason": "Reason",
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
    "compared": "已与 PyTorch {versions} 对比",
    "drift_differs": "在 {version} 中不同",
    "drift_raises": "在 {version} 中报错",
    "drift_intro": "PyTorch {version} 中的输出：'+' 行是它打印的内容，'-' 行是上面 {primary} 打印的内容。",
    "changes_summary": "共 {pages} 页、{cells} 个代码单元，与本站构建所用的 PyTorch {primary} 逐一对比。",
    "changes_version": "PyTorch {version}：{count} 个单元的输出不同",
    "changes_failed": "{count} 个页面在此版本中报错",
    "changes_none": "没有单元不同。",
    "changes_missing": "尚未对比：`python -m torchnotes versions` 会在 versions.yml 列出的每个版本中运行所有页面。",
    "changes_cell": "第 {number} 个代码单元",
    "changes_warnings": "PyTorch {primary} 中的警告",
    "changes_warnings_intro": "本站所用版本中代码单元打印的每条弃用（Deprecation）、未来（Future）与用户（User）警告：这些是在它们真正报错之前需要修改的地方。",
    "changes_volatile": "不参与对比的单元",
    "changes_volatile_intro": "标记为 `volatile` 的单元，以及其输出每次运行都会变化的原因。",
    "changes_page": "页面",
    "changes_kind": "警告",
    "changes_message": "内容",
    "changes_reason": "原因",
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
        "Changes across PyTorch versions": "PyTorch 版本间的变化",
        "Benchmarks": "基准测试",
    },
}

TABLES = {"en": EN, "zh": ZH}


def strings(lang: str) -> dict:
    return TABLES.get(lang, EN)
