"""Every piece of text the build puts on a page, one table per language.

Keys are shared by all languages; `strings(lang)` falls back to English for a language without a table.
"""

from __future__ import annotations

EN = {
    # GPU recordings (torchnotes.gpu): under needs-cuda cells, the provenance line, the report.
    "gpu": {
        "recorded": "Recorded on {gpu}{count} · CUDA {cuda} · torch {torch} · {date}",
        "recorded_cpu": "Recorded on CPU · torch {torch} · {date}",
        "stale": "The GPU output of this cell is out of date: its code, or code above it, changed after it was recorded on {gpu} ({date}). It needs re-recording on a GPU.",
        "missing": "This cell needs a CUDA device. Its output has not yet been recorded on a GPU.",
        "provenance": "GPU cells {cells} recorded on {gpu} · torch {torch} · {date}",
        "provenance_stale": "GPU cells out of date: {cells}",
        "provenance_missing": "GPU cells not recorded: {cells}",
        "section": "GPU recordings",
        "page": "Page",
        "cells": "Cells",
        "recorded_on": "Recorded on",
        "stale_cells": "Stale",
        "none": "–",
    },
    # The language itself, for the header's language menu.
    "language_name": "English",
    "site_name": "PyTorch Notes",
    # Under code cells.
    "needs_cuda": "This cell needs a CUDA device. This build ran on {device}, so it shows no output.",
    "not_run": "Shown, not executed.",
    # Exercises (torchnotes/publish/features/exercises.py): on the page, and the cells of the notebooks.
    "exercise": "Exercise {number}",
    "solution": "Solution",
    "exercise_try": "# Exercise {number}: your answer here. The solution is in the next cell (hidden: click to show it).",
    "solution_title": "Solution of exercise {number}",
    "expected_error": "Expected error",
    "output": "Output",
    "long_output": "Output ({lines} lines)",
    "code": "Code",
    "cell_number": "Code cell {number}",
    "full_traceback": "Show the full traceback ({lines} lines)",
    "frames_hidden": "… {count} frames inside PyTorch hidden …",
    # Under the page title.
    "provenance": "Outputs generated with PyTorch {torch} on {device} · Python {python} · {date} · {seconds}",
    "download": "Download notebook",
    "download_py": "Download as .py",
    # At the top of a translation whose English page changed since it was translated (torchnotes/pages/freshness.py).
    "stale_title": "The English original has changed: this translation may be out of date",
    "stale_changed": "The <a href=\"{url}\" hreflang=\"{lang}\">English page</a> changed after this page was translated. Until the translation is "
                     "revised, the English page is the reference.",
    "stale_unrecorded": "There is no record of which version of the <a href=\"{url}\" hreflang=\"{lang}\">English page</a> this page translates.",
    "stale_diff": "What changed in the English page",
    # At the top of a twin not translated yet (the importer's marker): the reader gets the English text.
    "untranslated_title": "Not translated yet",
    "untranslated": "This page is not translated yet; the original follows. <a data-nb-rebase href=\"{url}\" hreflang=\"{lang}\">The original page</a>",
    "script_header": ("From PyTorch Notes ({source}), as a plain script: `python {source_py}` prints what the page "
                      "shows under its cells.\nThe page's outputs were made with PyTorch {torch} on {device}."),
    "colab": "Open in Colab",
    # The set-up cell of the notebooks and scripts of a page whose figures have CJK labels
    # (torchnotes/publish/features/notebook_fonts.py): comments and what it prints, in a reader's Jupyter or Colab.
    "notebook_fonts": {
        "title": "A CJK font for the figures' labels",
        "why": ("The figures below have Chinese labels. Colab and most Linux machines have no Chinese font, and\n"
                "matplotlib draws the characters as boxes. This cell uses a Chinese font the machine has; without\n"
                "one it downloads Noto Sans CJK (the PyPI package noto-cjk-sans-otc, 15 MB, SIL Open Font License)\n"
                "with pip into ~/.cache/pytorch-notes: no root needed, and your Python environment stays as it is."),
        "downloading": "No Chinese font here: downloading Noto Sans CJK (15 MB) into {folder} ...",
        "failed": ("Could not download the Chinese font ({reason}): the figures' Chinese characters will show as boxes. "
                   "Connect to the internet and run this cell again, or install a Chinese font (Debian/Ubuntu: "
                   "fonts-noto-cjk)."),
    },
    "seconds": "{:.1f} s",
    "compared": "compared with PyTorch {versions}",
    # Under a cell whose output differs in another torch release (torchnotes.versions.drift).
    "drift_differs": "differs in {version}",
    "drift_raises": "raises in {version}",
    "drift_intro": "Output in PyTorch {version}: '+' lines are what it prints, '-' lines what {primary} prints above.",
    "drift_changed": "not compared since this cell changed",
    "changes_summary": "{pages} pages with {cells} code cells, built with PyTorch {primary}. Each older release below says how many of them it was compared on.",
    "changes_version": "PyTorch {version}: {count} cell(s) differ",
    "changes_counts": "Compared on {pages} of {total_pages} pages: {compared} of {total_cells} code cells.",
    "changes_not_compared": "{count} code cell(s) not compared:",
    "changes_not_changed": "{count} changed since they were compared (they, or a cell before them, were edited)",
    "changes_not_unrecorded": "{count} on pages this release has not run",
    "changes_not_not_run": "{count} after a cell that raises under this release",
    "changes_not_skipped": "{count} never compared: tagged `volatile`, `skip-execution`, `remove-output` or `remove-cell`, or run only with CUDA",
    "changes_failed": "{count} page(s) raise under this release",
    "changes_none": "No cell differs.",
    "changes_missing": "Not compared: the repository holds no record of this release's outputs (compared/{version}/). `python -m torchnotes versions --only {version}` runs every page under it and writes the record.",
    "changes_cell": "code cell {number}",
    "changes_warnings": "Warnings under PyTorch {primary}",
    "changes_warnings_attention": "To look at ({count})",
    "changes_warnings_attention_intro": "Reported by Python while a cell ran: a deprecation, future or user warning the page does not ask for. Each may become an error in a later release.",
    "changes_warnings_on_purpose": "Provoked on purpose ({count})",
    "changes_warnings_on_purpose_intro": "Caught and printed by the page's own code (or raised by a cell tagged `raises-exception`) to show what PyTorch says; the page explains each one.",
    "changes_warnings_none": "None.",
    "changes_volatile": "Cells never compared",
    "changes_volatile_intro": "Tagged `volatile`, with the reason their output varies from run to run.",
    "changes_page": "Page",
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
    # The PDF book (torchnotes.generators.pdf).
    "pdf_contents": "Contents",
    "pdf_online": "Online edition:",
    "pdf_provenance": "Every output produced by PyTorch {torch} ({build}, git {git}) on {device} · Python {python} · {date}",
    # Navigation sections of mkdocs.yml, by their English title.
    "nav": {},
}

ZH = {
    # GPU recordings (torchnotes.gpu): under needs-cuda cells, the provenance line, the report.
    "gpu": {
        "recorded": "记录于 {gpu}{count} · CUDA {cuda} · torch {torch} · {date}",
        "recorded_cpu": "记录于 CPU · torch {torch} · {date}",
        "stale": "此代码单元格的 GPU 输出已过期：它的代码或它之前的代码在 {gpu} 上记录（{date}）之后有改动，需要在 GPU 上重新运行。",
        "missing": "此代码单元格需要 CUDA 设备，其输出尚未在 GPU 上运行记录。",
        "provenance": "GPU 代码单元格 {cells} 记录于 {gpu} · torch {torch} · {date}",
        "provenance_stale": "已过期的 GPU 代码单元格：{cells}",
        "provenance_missing": "尚未在 GPU 上运行的代码单元格：{cells}",
        "section": "GPU 运行记录",
        "page": "页面",
        "cells": "代码单元格",
        "recorded_on": "记录于",
        "stale_cells": "已过期",
        "none": "–",
    },
    "language_name": "简体中文",
    "site_name": "PyTorch 笔记",
    "needs_cuda": "此代码单元格需要 CUDA 设备。本次构建运行在 {device} 上，因此没有输出。",
    "not_run": "仅展示，未执行。",
    "exercise": "练习 {number}",
    "solution": "参考答案",
    "exercise_try": "# 练习 {number}：在这里作答。参考答案在下一个单元格里（已隐藏，点击即可展开）。",
    "solution_title": "练习 {number} 的参考答案",
    "expected_error": "预期的错误",
    "output": "输出",
    "long_output": "输出（{lines} 行）",
    "code": "代码",
    "cell_number": "代码单元格 {number}",
    "full_traceback": "显示完整的回溯（{lines} 行）",
    "frames_hidden": "… 省略了 PyTorch 内部的 {count} 层调用 …",
    "provenance": "输出由 PyTorch {torch} 在 {device} 上生成 · Python {python} · {date} · {seconds}",
    "download": "下载 notebook",
    "download_py": "下载 .py 脚本",
    "stale_title": "英文原文已更新，此译文可能已过时",
    "stale_changed": "本页翻译完成后，<a href=\"{url}\" hreflang=\"{lang}\">英文原文</a>又有了改动。译文修订之前，请以英文原文为准。",
    "stale_unrecorded": "没有记录本页译自<a href=\"{url}\" hreflang=\"{lang}\">英文原文</a>的哪个版本。",
    "stale_diff": "英文原文的改动",
    "untranslated_title": "本页尚未翻译",
    "untranslated": "本页尚未翻译，以下为英文原文。<a data-nb-rebase href=\"{url}\" hreflang=\"{lang}\">查看英文页面</a>",
    "script_header": ("来自 PyTorch 笔记（{source}）的纯 Python 脚本：`python {source_py}` 会打印页面上各单元格下方的输出。\n"
                      "页面上的输出由 PyTorch {torch} 在 {device} 上生成。"),
    "colab": "在 Colab 中打开",
    "notebook_fonts": {
        "title": "中文字体：让图中的中文标签正常显示",
        "why": ("下面的图里有中文标签。Colab 和大多数 Linux 机器没有中文字体，matplotlib 会把汉字画成方框。\n"
                "本单元格优先使用本机已有的中文字体；若没有，就用 pip 把 Noto Sans CJK（PyPI 包 noto-cjk-sans-otc，\n"
                "15 MB，SIL 开源字体许可）下载到 ~/.cache/pytorch-notes：不需要 root，也不改动你的 Python 环境。"),
        "downloading": "本机没有中文字体：正在把 Noto Sans CJK（15 MB）下载到 {folder} ……",
        "failed": ("无法下载中文字体（{reason}）：图中的汉字将显示为方框。联网后重新运行本单元格，"
                   "或安装一种中文字体（Debian/Ubuntu：fonts-noto-cjk）。"),
    },
    "seconds": "{:.1f} 秒",
    "compared": "已与 PyTorch {versions} 对比",
    "drift_differs": "在 {version} 中不同",
    "drift_raises": "在 {version} 中报错",
    "drift_intro": "PyTorch {version} 中的输出：'+' 行是它打印的内容，'-' 行是上面 {primary} 打印的内容。",
    "drift_changed": "此代码单元格改动后尚未比较",
    "changes_summary": "共 {pages} 页、{cells} 个代码单元格，以 PyTorch {primary} 构建。下面每个旧版本都写明它实际对比了其中多少。",
    "changes_version": "PyTorch {version}：{count} 个代码单元格的输出不同",
    "changes_counts": "已对比 {total_pages} 页中的 {pages} 页、{total_cells} 个代码单元格中的 {compared} 个。",
    "changes_not_compared": "{count} 个代码单元格未对比：",
    "changes_not_changed": "{count} 个在对比之后被改动（它或它之前的代码单元格被编辑过）",
    "changes_not_unrecorded": "{count} 个所在的页面尚未在此版本中运行",
    "changes_not_not_run": "{count} 个位于在此版本中报错的代码单元格之后",
    "changes_not_skipped": "{count} 个从不对比：标记为 `volatile`、`skip-execution`、`remove-output` 或 `remove-cell`，或只在 CUDA 上运行",
    "changes_failed": "{count} 个页面在此版本中报错",
    "changes_none": "没有代码单元格不同。",
    "changes_missing": "尚未对比：仓库中没有此版本输出的记录（compared/{version}/）。`python -m torchnotes versions --only {version}` 会在该版本中运行所有页面并写入记录。",
    "changes_cell": "第 {number} 个代码单元格",
    "changes_warnings": "PyTorch {primary} 中的警告",
    "changes_warnings_attention": "需要留意（{count}）",
    "changes_warnings_attention_intro": "代码单元格运行时由 Python 报告、页面并未刻意引发的弃用（Deprecation）、未来（Future）与用户（User）警告。在以后的版本中它们可能变成错误。",
    "changes_warnings_on_purpose": "刻意引发（{count}）",
    "changes_warnings_on_purpose_intro": "由页面自己的代码捕获并打印（或由标记为 `raises-exception` 的代码单元格引发），用来展示 PyTorch 的提示；页面会解释每一条。",
    "changes_warnings_none": "无。",
    "changes_volatile": "不参与对比的代码单元格",
    "changes_volatile_intro": "标记为 `volatile` 的代码单元格，以及其输出每次运行都会变化的原因。",
    "changes_page": "页面",
    "changes_reason": "原因",
    "report_page": "页面",
    "report_status": "状态",
    "report_seconds": "秒",
    "report_date": "执行日期",
    "report_env": "环境",
    "report_total": "共 {n} 页 · 执行 {run} · 缓存 {cached} · 失败 {failed} · 无代码 {static}",
    "report_slowest": "最慢的代码单元格",
    "report_cell": "代码单元格",
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
        "Changes across PyTorch versions": "PyTorch 版本间的变化",
        "Benchmarks": "基准测试",
        "Sources": "来源",
    },
}

TABLES = {"en": EN, "zh": ZH}


def strings(lang: str) -> dict:
    return TABLES.get(lang, EN)
