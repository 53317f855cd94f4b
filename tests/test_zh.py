"""join_cjk_lines removes line breaks between CJK characters in prose only; cjk_gaps finds those that reach HTML."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest

from torchnotes.publish.zh import cjk_gaps, join_cjk_lines

EXTENSIONS = ["admonition", "attr_list", "def_list", "footnotes", "md_in_html", "tables", "pymdownx.arithmatex",
              "pymdownx.details", "pymdownx.superfences", "pymdownx.tabbed"]


def render(text: str) -> str:
    return markdown.markdown(text, extensions=EXTENSIONS)


JOINED = [
    ("plain", "第一行，\n第二行。", "第一行，第二行。"),
    ("spaces around the break", "张量的形状 \n   决定了视图。", "张量的形状决定了视图。"),
    ("CJK punctuation both sides", "（括号）\n「引号」《书名》", "（括号）「引号」《书名》"),
    ("three lines", "一\n二\n三", "一二三"),
    ("list item continuation", "- 第一项的前半，\n  第一项的后半。\n- 第二项", "- 第一项的前半，第一项的后半。\n- 第二项"),
    ("ordered item continuation", "1. 先调用\n   backward。\n2. 再\n   更新。", "1. 先调用\n   backward。\n2. 再更新。"),
    ("admonition body", '!!! note "注意"\n    视图共享\n    存储。\n\n下一段', '!!! note "注意"\n    视图共享存储。\n\n下一段'),
    ("content tab body", '=== "view"\n\n    不复制\n    数据。', '=== "view"\n\n    不复制数据。'),
    ("emphasis at the break", "这是**重要的**\n*结论*。", "这是**重要的***结论*。"),
    ("link at the break", "详见\n[视图](views.md)\n页面。", "详见[视图](views.md)页面。"),
    ("inline code on the line, break outside", "调用 `x.view(2, 3)`，\n得到视图。", "调用 `x.view(2, 3)`，得到视图。"),
    ("block quote continuation", "> 引用\n> 文字\n>\n> 甲\n乙", "> 引用文字\n>\n> 甲乙"),
    ("nested quote", "> > 甲\n> > 乙", "> > 甲乙"),
]

KEPT = [
    ("latin on one side", "张量\ntensor 的形状"),
    ("latin on the other side", "use the\n视图"),
    ("backtick fence", "```python\n# 注释\n# 第二行\nx = 1\n```"),
    ("tilde fence", "~~~text\n甲\n乙\n~~~"),
    ("fence inside an admonition", '!!! note "例"\n    ```text\n    甲\n    乙\n    ```'),
    ("longer fence holds a shorter one", "````markdown\n```\n甲\n```\n乙\n丙\n````"),
    ("pre block", "<pre>\n甲\n乙\n</pre>"),
    ("html block", "<div>\n甲\n乙\n</div>"),
    ("display math", "$$\n\\text{甲}\n\\text{乙}\n$$"),
    ("display math with aligned", "$$\n\\begin{aligned}\n甲\n\\end{aligned}\n$$\n\n$$\n乙\n丙\n$$"),
    ("inline math across the break", "公式 $\\text{甲}\n\\text{乙}$ 成立"),
    ("inline code across the break", "代码 `甲\n乙` 结束"),
    ("table rows", "| 甲 | 乙 |\n|---|---|\n| 丙 | 丁 |"),
    ("heading then paragraph", "## 标题\n正文"),
    ("list items stay separate", "- 甲\n- 乙"),
    ("hard break with two spaces", "第一行  \n第二行"),
    ("hard break with a tab after a space", "第一行 \t\n第二行"),
    ("hard break with a backslash", "第一行\\\n第二行"),
    ("blank line between paragraphs", "甲\n\n乙"),
    ("admonition title line", '!!! note "甲"\n    乙'),
    ("footnote definition", "正文[^1]\n[^1]: 注释"),
]


@pytest.mark.parametrize("source, expected", [case[1:] for case in JOINED], ids=[case[0] for case in JOINED])
def test_joins_prose_lines_between_cjk(source, expected):
    assert join_cjk_lines(source) == expected


@pytest.mark.parametrize("source", [case[1] for case in KEPT], ids=[case[0] for case in KEPT])
def test_leaves_everything_else_alone(source):
    assert join_cjk_lines(source) == source


@pytest.mark.parametrize("source", [case[1] for case in JOINED], ids=[case[0] for case in JOINED])
def test_joined_markdown_renders_the_same_without_gaps(source):
    before, after = render(source), render(join_cjk_lines(source))
    # Only whitespace goes, so the structure (list items, admonitions, links) is the same.
    assert "".join(before.split()) == "".join(after.split())
    assert cjk_gaps(after) == []


def test_front_matter_is_data_not_prose():
    page = "---\ntitle: 视图\ndescription: 一\n  二\n---\n\n正文\n继续"
    assert join_cjk_lines(page) == page.replace("正文\n继续", "正文继续")


def test_a_planted_gap_is_found_and_join_removes_it():
    page = "# 视图\n\n视图与原张量共享\n存储，修改一个会影响另一个。\n"
    gaps = cjk_gaps(render(page))
    assert len(gaps) == 1 and "共享\n存储" in gaps[0]
    assert cjk_gaps(render(join_cjk_lines(page))) == []


@pytest.mark.parametrize("html, found", [
    ("<p>共享 存储</p>", 1),
    ("<li>共享\n存储</li>", 1),
    ("<table><tr><td>共享 存储</td></tr></table>", 1),
    ("<p>说明，<a href='x'>链接</a> 文字</p>", 1),  # the gap crosses an inline element
    ("<ul><li><p>甲 乙</p></li></ul>", 1),  # nested blocks count once
    ("<p>共享&nbsp;存储</p>", 1),
    ("<p>共享存储</p>", 0),
    ("<p>张量 tensor 的形状</p>", 0),
    ("<pre>甲 乙</pre>", 0),
    ("<p>代码 <code>甲 乙</code> 结束</p>", 0),
    ("<p>调用 <code>x</code> 得到</p>", 0),  # code between the characters: not a gap between them
    ("<h2>标题 甲</h2>", 0),
    ("<div>甲 乙</div>", 0),
])
def test_cjk_gaps_looks_in_rendered_paragraphs_only(html, found):
    assert len(cjk_gaps(html)) == found


def test_cjk_gaps_gives_the_surrounding_text():
    assert cjk_gaps("<p>前面很长的一段文字共享 存储后面的文字</p>", context=2) == ["字共享 存储后"]


def _site_markdown():
    """python-markdown with the extensions and options of mkdocs.yml (the pages' own Markdown dialect)."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    root = Path(__file__).resolve().parent.parent
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    names, options = [], {}
    for item in config["markdown_extensions"]:
        name, opts = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        names.append(name)
        options[name] = dict(opts or {})
    options["pymdownx.snippets"]["base_path"] = [str(root / "benchmarks")]
    # Code blocks unhighlighted: their text is still compared byte for byte, and Pygments was 60 % of every conversion.
    options.setdefault("pymdownx.highlight", {})["use_pygments"] = False

    def convert(text: str) -> str:
        text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
        # jupytext's cell options after the language are not superfences syntax.
        text = re.sub(r"(?m)^(\s*```+python)\b.*$", r"\1", text)
        return markdown.Markdown(extensions=names, extension_configs=options).convert(text)

    return root, convert


@pytest.mark.slow  # every page of the real site rendered
def test_every_page_renders_without_cjk_gaps_once_joined():
    """The check the publish step relies on: after join_cjk_lines no page (zh, or en with CJK) has a gap,
    and joining changed only whitespace (code blocks byte for byte)."""
    import re

    root, convert = _site_markdown()
    problems = []
    for path in sorted((root / "docs").rglob("*.md")):
        # jupytext's region markers (an exercise's <!-- #region -->) are cell boundaries: publishing joins each
        # cell's own text, which never holds them.
        source = re.sub(r"^<!-- #(?:end)?region\b[^\n]*-->\n", "", path.read_text(encoding="utf-8"), flags=re.M)
        joined = join_cjk_lines(source)
        # Most English pages have no line to join: one conversion says it all (a second was 7 core-s of the test).
        after = convert(joined)
        before = after if joined == source else convert(source)
        if "".join(before.split()) != "".join(after.split()):
            problems.append(f"{path}: joining changed more than whitespace")
        if re.findall(r"<pre.*?</pre>", before, flags=re.S) != re.findall(r"<pre.*?</pre>", after, flags=re.S):
            problems.append(f"{path}: joining changed a code block")
        problems += [f"{path}: {gap!r}" for gap in cjk_gaps(after)]
    assert problems == []


def test_chinese_figure_text_renders_without_missing_glyphs(tmp_path, make_engine):
    """kernel_setup lets matplotlib fall back to the CJK font scripts/setup.sh installs."""
    from helpers import code, page

    path = page(tmp_path, "zh/a.md", code("""
        import warnings
        import matplotlib.pyplot as plt
        warnings.simplefilter("always")
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1], [1, 0], label="损失")
        ax.set_title("学习率：每一步（epoch）")
        ax.set_xlabel("步幅")
        ax.legend()
        plt.show()
    """), title="图")
    result = make_engine().run([path]).results[0]
    outputs = result.cell_outputs()[0]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    streams = "".join(o.get("text", "") for o in outputs if o["output_type"] == "stream")
    assert "missing from font" not in streams and "findfont" not in streams, streams
