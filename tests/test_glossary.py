"""The 术语表 in CONTRIBUTING.zh.md is read as a table, and `torchnotes check` reports the variants it forbids."""

from __future__ import annotations

import pytest
from helpers import ROOT

from torchnotes.cli import main
from torchnotes.pages.glossary import (
    ForbiddenTerm,
    GlossaryError,
    MissingTerm,
    check_terms,
    find_forbidden,
    find_missing,
    read_glossary,
)

GLOSSARY = """# 贡献指南

## 术语表

| English | 使用 | 禁用 |
|---|---|---|
| stride | 步幅 | 步长、跨步 |
| buffer | 缓冲区 | 缓冲（单用） |
| copy | 复制 / 副本 | 拷贝 |

## 下一节
"""


@pytest.fixture
def glossary(tmp_path):
    path = tmp_path / "CONTRIBUTING.zh.md"
    path.write_text(GLOSSARY, encoding="utf-8")
    return path


def page(tmp_path, text, name="page.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_the_table(glossary):
    terms = read_glossary(glossary)
    assert [(t.english, t.use, t.forbidden) for t in terms] == [
        ("stride", ("步幅",), ("步长", "跨步")),
        ("buffer", ("缓冲区",), ("缓冲",)),
        ("copy", ("复制", "副本"), ("拷贝",)),
    ]


def test_project_glossary_covers_the_terms_the_issue_names():
    terms = {t.english: t for t in read_glossary(ROOT / "CONTRIBUTING.zh.md")}
    assert terms["stride"].use == ("步幅",) and "步长" in terms["stride"].forbidden
    assert terms["checkpoint"].use == ("检查点",)
    assert any(t.use == ("缓冲区",) for t in terms.values())
    assert 12 <= len(terms) <= 30


def test_a_planted_variant_is_reported_with_line_and_term_to_use(tmp_path, glossary):
    path = page(tmp_path, "# 视图\n\n每个维度都有一个步幅。\n\n视图共享存储，步长不同。\n")
    errors = find_forbidden(path, read_glossary(glossary))
    assert len(errors) == 1
    error = errors[0]
    assert isinstance(error, ForbiddenTerm) and error.line == 5
    assert error.message.startswith(f"{path}:5: '步长' is not the glossary's term: use 步幅 (stride)")


@pytest.mark.parametrize("text, count", [
    ("```python\nprint('步长:', x.stride())\n```\n", 0),  # code fences are not checked
    ("~~~text\n拷贝\n~~~\n", 0),
    ('!!! note "例"\n    ```text\n    拷贝\n    ```\n', 0),
    ("调用 `步长` 之后\n", 0),  # inline code is not checked
    ("模块的缓冲区\n", 0),  # the variant inside the term to use
    ("动量缓冲和步长\n", 2),
    ("拷贝一份，再拷贝一份\n", 2),
    ("---\ntitle: 步长\n---\n", 1),  # the title is shown to readers
    ("```python\nx = 1\n```\n\n拷贝\n", 1),  # after the fence closes, prose is checked again
])
def test_what_is_checked(tmp_path, glossary, text, count):
    assert len(find_forbidden(page(tmp_path, text), read_glossary(glossary))) == count


@pytest.mark.parametrize("text, reason", [
    ("# 贡献指南\n\n没有术语表。\n", "no '## 术语表' section"),
    ("## 术语表\n\n还没有表格。\n", "has no table rows"),
    ("## 术语表\n\n| a | b | c |\n|---|---|---|\n| stride | 步幅 |\n", "needs 3 cells"),
    ("## 术语表\n\n| a | b | c |\n|---|---|---|\n| stride | 步幅 | |\n", "at least one forbidden variant"),
])
def test_a_broken_glossary_is_an_error(tmp_path, text, reason):
    path = page(tmp_path, text, "CONTRIBUTING.zh.md")
    with pytest.raises(GlossaryError, match=reason):
        read_glossary(path)
    assert [type(e) for e in check_terms([], path)] == [GlossaryError]


def test_check_command_fails_on_a_planted_variant(tmp_path, capsys, monkeypatch):
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    front = "---\ntitle: 页\ndescription: 一页。\n---\n\n# 页\n\n"
    (tmp_path / "docs" / "en" / "p.md").write_text("---\ntitle: P\ndescription: A page.\n---\n\n# P\n\nText.\n")
    zh = tmp_path / "docs" / "zh" / "p.md"
    zh.write_text(front + "每个维度的步幅。\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes\n", encoding="utf-8")
    (tmp_path / "CONTRIBUTING.zh.md").write_text(GLOSSARY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    zh.write_text(front + "每个维度的步长。\n", encoding="utf-8")
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert "docs/zh/p.md:8: '步长' is not the glossary's term: use 步幅 (stride)" in err


# The other direction: a concept the English page uses needs the glossary's term on the Chinese page.

TWO_STEPS = GLOSSARY.replace("| copy | 复制 / 副本 | 拷贝 |\n", """| copy | 复制 / 副本 | 拷贝 |
| step（`arange` 的参数） | 间距 | 步长 |
| step（`optimizer.step()` 的一次更新） | 一步 | 迭代步 |
| backward pass, backpropagation | 反向传播 | 反传 |
| batch size | 批大小 | 批次大小 |
""")


def pair(tmp_path, english, chinese):
    (tmp_path / "en").mkdir(exist_ok=True)
    (tmp_path / "zh").mkdir(exist_ok=True)
    return page(tmp_path / "en", english), page(tmp_path / "zh", chinese)


def test_english_names_of_a_row_leave_out_notes_and_code(tmp_path):
    path = page(tmp_path, TWO_STEPS, "CONTRIBUTING.zh.md")
    names = [t.names for t in read_glossary(path)]
    assert names == [("stride",), ("buffer",), ("copy",), ("step",), ("step",), ("backward pass", "backpropagation"),
                     ("batch size",)]


def test_a_planted_page_without_the_term_names_both_files_and_the_term(tmp_path, glossary):
    en, zh = pair(tmp_path, "# Modules\n\nA module keeps its buffers in `state_dict()`.\n",
                  "# 模块\n\n模块把 buffer 保存在 `state_dict()` 中。\n")
    errors = find_missing(en, zh, read_glossary(glossary))
    assert [type(e) for e in errors] == [MissingTerm]
    assert errors[0].path == zh
    assert errors[0].message.startswith(
        f"{zh}: {en}:3 uses 'buffers' (glossary: buffer), but this page never writes the glossary's term 缓冲区")
    zh.write_text("# 模块\n\n模块把缓冲区 (buffer) 保存在 `state_dict()` 中。\n", encoding="utf-8")
    assert find_missing(en, zh, read_glossary(glossary)) == []


@pytest.mark.parametrize("english, chinese, missing", [
    ("Copies share nothing.\n", "它们互不共享。\n", ["copy"]),  # plural of a word ending in y
    ("A copy.\n", "一份副本。\n", []),  # any of the terms to use
    ("Call `x.copy_(y)`.\n", "调用 `x.copy_(y)`。\n", []),  # inline code is not a use
    ("```python\nbuf = model.buffers()\n```\n", "```python\nbuf = model.buffers()\n```\n", []),  # nor code
    ("See [this](https://example.org/stride.html).\n", "见[这里](https://example.org/stride.html)。\n", []),
    ("Strides and buffers.\n", "步幅。\n", ["buffer"]),
    ("A stride.\n", "```python\n# 步幅\n```\n", ["stride"]),  # the Chinese term must be in prose too
    ("Restrided tensors.\n", "张量。\n", []),  # a word, not part of one
])
def test_what_counts_as_a_use(tmp_path, glossary, english, chinese, missing):
    en, zh = pair(tmp_path, english, chinese)
    errors = find_missing(en, zh, read_glossary(glossary))
    assert [e.reason.split("(glossary: ")[1].split(")")[0] for e in errors] == missing


@pytest.mark.parametrize("english, missing", [
    ("Take one step.\n", []),  # `step` is on two rows: two concepts, only the forbidden variants are checked
    ("Two backward passes.\n", ["backward pass, backpropagation"]),  # any of the row's English terms
    ("Backpropagation.\n", ["backward pass, backpropagation"]),
    ("The batch-size is 4.\n", ["batch size"]),  # space or hyphen
])
def test_terms_on_two_rows_and_rows_with_two_terms(tmp_path, english, missing):
    glossary = page(tmp_path, TWO_STEPS, "CONTRIBUTING.zh.md")
    en, zh = pair(tmp_path, english, "一页。\n")
    errors = find_missing(en, zh, read_glossary(glossary))
    assert [e.reason.split("(glossary: ")[1].split(")")[0] for e in errors] == missing


def test_check_command_requires_the_term_where_the_english_page_uses_it(tmp_path, capsys, monkeypatch):
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "p.md").write_text(
        "---\ntitle: P\ndescription: A page.\n---\n\n# P\n\nEach dimension has a stride.\n")
    zh = tmp_path / "docs" / "zh" / "p.md"
    front = "---\ntitle: 页\ndescription: 一页。\n---\n\n# 页\n\n"
    zh.write_text(front + "每个维度都有一个 stride。\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes\n", encoding="utf-8")
    (tmp_path / "CONTRIBUTING.zh.md").write_text(GLOSSARY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert ("docs/zh/p.md: docs/en/p.md:8 uses 'stride' (glossary: stride), "
            "but this page never writes the glossary's term 步幅") in err
    zh.write_text(front + "每个维度都有一个步幅 (stride)。\n", encoding="utf-8")
    assert main(["check"]) == 0


# Issue 38: terms and wording the third content pass found, each checked against the text it replaced.

def project_glossary():
    from torchnotes.pages.glossary import read_wording
    path = ROOT / "CONTRIBUTING.zh.md"
    return read_glossary(path), read_wording(path)


def test_project_glossary_has_the_terms_of_issue_38():
    terms = {t.english.split("（")[0]: t for t in project_glossary()[0]}
    assert "checkpoint" in terms["checkpoint"].forbidden
    assert terms["batching, automatic batching"].use == ("分批", "自动分批")
    assert "组 batch" in terms["batching, automatic batching"].forbidden
    assert terms["code cell"].use == ("代码单元格", "单元格")
    wording = {w.use: w for w in project_glossary()[1]}
    assert "却答" in wording[("返回",)].forbidden
    assert {"首个", "末个"} <= set(wording[("第一个", "最后一个")].forbidden)


@pytest.mark.parametrize("text, reported", [
    # finding 6: checkpoint left in English (the old save-load page)
    ("小结：权重或模型存为 `.pt`/`.pth`，用于续训的 checkpoint 存为 `.tar`。\n", ["checkpoint"]),
    ("## Checkpoint：保存并继续训练\n", ["Checkpoint"]),
    ("仍要能读取旧的 checkpoints：\n", ["checkpoints"]),
    ("能精确续训的检查点 (checkpoint)，以及 torch.utils.checkpoint\n", []),  # the gloss, a module path
    ("梯度检查点（gradient checkpointing）\n", []),
    ("见 [checkpoint](https://docs.pytorch.org/docs/stable/checkpoint.html) 与 `checkpoint(fn, x)`\n", ["checkpoint"]),
    # finding 21: 组 batch, and 单元 for a code cell
    ("## 关闭自动组 batch\n", ["组 batch"]),
    ("有时组 batch 应该由数据集自己完成\n", ["组 batch"]),
    ("## 关闭自动分批\n", []),
    ("下面的单元逐项测量；GPU 单元还没有录制。\n", ["下面的单元", "GPU 单元"]),
    ("下面的单元格逐项测量；GPU 单元格还没有录制；单元素张量。\n", []),
])
def test_issue_38_terms_fail_on_the_old_text(tmp_path, text, reported):
    errors = find_forbidden(page(tmp_path, text), project_glossary()[0])
    assert [e.reason.split("'")[1] for e in errors] == reported


@pytest.mark.parametrize("text, reported", [
    # finding 20: calques, in prose and in a code cell's printed labels
    ("`current_accelerator()` 回答的是 torch 编译时支持的加速器\n", ["`代码` 回答"]),
    ("在没有 GPU 的机器上它照样回答 `cuda`。\n", ["回答 `代码`"]),
    ("四个 epoch 之后优化器用的是 0.025，`get_lr()` 却答 0.0125\n", ["却答"]),
    ('```python\nprint(f"{name:18s} 首个 {lrs[0]:.2e}  末个 {lrs[-1]:.2e}")\n```\n', ["首个", "末个"]),
    ("学习率调度器随训练进程修改优化器的学习率。\n", ["随训练进程"]),
    ("本页其余部分在一个现场构建的模型上执行同样的步骤。\n", ["现场构建"]),
    # the new text passes, and so does 回答 where a question is answered
    ("`current_accelerator()` 返回的是 torch 编译时支持的加速器；`get_lr()` 返回的却是 0.0125\n", []),
    ('```python\nprint(f"{name:18s} 第一个 {lrs[0]:.2e}  最后一个 {lrs[-1]:.2e}")\n```\n', []),
    ("本页用可执行的例子回答这个问题。\n", []),
])
def test_issue_38_wording_fails_on_the_old_text(tmp_path, text, reported):
    from torchnotes.pages.glossary import find_calques
    errors = find_calques(page(tmp_path, text), project_glossary()[1])
    assert [e.reason.split("'")[1] for e in errors] == reported


def test_a_wording_table_is_read_apart_from_the_glossary(tmp_path):
    from torchnotes.pages.glossary import read_wording
    text = GLOSSARY.replace("## 下一节\n", "## 措辞\n\n| 意思 | 使用 | 禁用 |\n|---|---|---|\n"
                                          "| 函数的值 | 返回 | `代码` 回答、却答（口语） |\n\n## 下一节\n")
    path = page(tmp_path, text, "CONTRIBUTING.zh.md")
    assert [t.english for t in read_glossary(path)] == ["stride", "buffer", "copy"]
    assert [(w.use, w.forbidden) for w in read_wording(path)] == [(("返回",), ("`代码` 回答", "却答"))]
    zh = page(tmp_path, "# 页\n\n`f()` 却答 1，`g()` 回答 2。\n")
    assert len(check_terms([zh], path)) == 2


def test_the_chinese_pages_pass_the_project_glossary():
    pages = sorted((ROOT / "docs" / "zh").rglob("*.md"))
    errors = check_terms(pages, ROOT / "CONTRIBUTING.zh.md", ROOT / "docs" / "en", ROOT / "docs" / "zh")
    assert [e.message for e in errors] == []


@pytest.mark.parametrize("text, reported", [
    # finding 21: the old datasets and sampling-loading pages glossed terms in full-width parentheses
    ("对 map-style 数据集来说，**采样器**（sampler）决定键的顺序，\n", ["（sampler）"]),
    ("按键取（map-style）或按迭代取（iterable-style）。\n", ["（map-style）", "（iterable-style）"]),
    ("**采样器** (sampler) 决定键的顺序；按键取 (map-style)。\n", []),
    ("留在原处（CPU），见 [CUDA 环境变量（NVIDIA）](https://example.org)。\n", []),  # acronyms and names
    ("```python\nreturn storage  # 留在原处（cpu）\n```\n", []),  # code is not prose
])
def test_full_width_glosses_fail_on_the_old_text(tmp_path, text, reported):
    from torchnotes.pages.glossary import find_calques
    errors = find_calques(page(tmp_path, text), project_glossary()[1])
    assert [e.reason.split("'")[1] for e in errors] == reported


def test_a_twin_marked_to_translate_is_not_held_to_the_glossary(tmp_path, capsys, monkeypatch):
    """Issue 45 §1: an imported tutorial's zh twin is the English text under a notice; check failed it on every
    glossary word of that English ('Checkpoint' is not the glossary's term; never writes 步幅), so CI stayed red
    until the whole page was translated. Once the marker goes, the glossary applies."""
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "zh").mkdir(parents=True)
    english = "---\ntitle: P\ndescription: A page.\n---\n\n# P\n\nSave a checkpoint; each dimension has a stride.\n"
    (tmp_path / "docs" / "en" / "p.md").write_text(english)
    zh = tmp_path / "docs" / "zh" / "p.md"
    zh.write_text(english.replace("# P\n", "# P\n\n<!-- torchnotes: to translate -->\n"), encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - torchnotes\n", encoding="utf-8")
    (tmp_path / "CONTRIBUTING.zh.md").write_text(ROOT.joinpath("CONTRIBUTING.zh.md").read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0, capsys.readouterr().err
    # The translator's first pass: the marker removed, one English word left behind.
    zh.write_text("---\ntitle: 页\ndescription: 一页。\n---\n\n# 页\n\n保存一个 checkpoint；每个维度都有步幅。\n",
                  encoding="utf-8")
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert "docs/zh/p.md:8: 'checkpoint' is not the glossary's term: use 检查点" in err


@pytest.mark.parametrize("text, reported", [
    # issue 47 §5: one set of Chinese terms
    ("张量按身份哈希。\n", ["身份"]),
    ("张量按标识哈希；eval 模式下 Dropout 是恒等映射。\n", []),
    ("sum 是一种规约运算。\n", ["规约"]),
    ("sum 是一种归约 (reduction) 运算。\n", []),
    ("每个 Python kernel 都是新的。\n", ["kernel"]),
    ("每个 Python 内核都是新的；CUDA 内核 (kernel) 异步执行。\n", []),
    ("[原始笔记 004](../sources.md#note-004) 写道\n", ["原始笔记"]),
    ("[原笔记 004](../sources.md#note-004) 写道\n", []),
])
def test_issue_47_terms_fail_on_the_old_text(tmp_path, text, reported):
    errors = find_forbidden(page(tmp_path, text), project_glossary()[0])
    assert [e.reason.split("'")[1] for e in errors] == reported


@pytest.mark.parametrize("text, reported", [
    # issue 47 §5: one style of quotation marks in Chinese prose, “”
    ("这就是所谓的「原地」操作。\n", ["「"]),
    ('这就是所谓的"原地"操作。\n', ['"原地"']),
    ("这就是所谓的“原地”操作。\n", []),
    ('所以 "13.0" 排在 "9.2" 前面。\n', []),  # string literals of the code, ASCII as in Python
    ('!!! warning "更正"\n    正文。\n', []),  # an admonition's title is Markdown syntax
    ('```python\nprint("中文标签")\n```\n', []),  # code: the 措辞 table reads it, this rule does not
])
def test_chinese_prose_quotes_with_one_style(tmp_path, text, reported):
    from torchnotes.pages.glossary import find_calques

    errors = [e for e in find_calques(page(tmp_path, text), project_glossary()[1]) if "quotes with" in e.reason]
    assert [e.reason.split("'")[1] for e in errors] == reported
