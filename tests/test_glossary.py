"""The 术语表 in CONTRIBUTING.zh.md is read as a table, and `torchnotes check` reports the variants it forbids."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchnotes.cli import main
from torchnotes.glossary import ForbiddenTerm, GlossaryError, check_terms, find_forbidden, read_glossary

ROOT = Path(__file__).resolve().parent.parent

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
