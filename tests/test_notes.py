"""A mention of one of the original notes ("Note 004 says …", 笔记 004) either links to the Sources page or is
rewritten to read on its own; in Chinese, 笔记 (the site is PyTorch 笔记) always says which it means: 原笔记 /
原始笔记 for an original note, the first of them on a page linked to the Sources page. `check` names the file and
line of each ambiguous or bare mention."""


import pytest
from helpers import ROOT, code, page

from torchnotes.cli import main as cli
from torchnotes.errors import AmbiguousNoteWord, BareNoteMention, UnlinkedNoteMention
from torchnotes.pages.notes import check_note_mentions
from torchnotes.publish.paired import sync_pairs

DOCS = ROOT / "docs"


@pytest.mark.parametrize("lang, body, line, said", [
    ("en", "First paragraph.\n\nNote 004 says `view` copies.\n", 10, "Note 004"),
    ("en", "The advice (see\nnote\n001) is old.\n", 9, "note 001"),  # wrapped between the word and the number
    ("zh", "第一段。\n\n笔记 002 说 `expand` 会复制。\n", 10, "笔记 002"),
    ("zh", "第一段。\n\n原始笔记003的说法有误。\n", 10, "笔记003"),
    ("en", "Prose.\n\n" + code("x = 1\n# as note 003 does\nprint(x)"), 12, "note 003"),  # a comment cannot link
])
def test_a_bare_mention_is_named_with_its_file_and_line(tmp_path, lang, body, line, said):
    planted = page(tmp_path / "docs", f"{lang}/t/a.md", body)
    errors = check_note_mentions(planted)
    assert [type(e) for e in errors] == [BareNoteMention]
    assert errors[0].path == planted and errors[0].line == line
    assert f"{planted}:{line}:" in errors[0].message and f"'{said}'" in errors[0].message
    assert "sources.md" in errors[0].message  # the hint says what to do


@pytest.mark.parametrize("body", [
    "[Note 004](../sources.md#note-004) says `view` copies. It does not.\n",
    "As [the original\nnote 001](../sources.md#note-001) puts it, `.data` is dangerous.\n",
    "[原始笔记 002](../sources.md#note-002) 说 `expand` 会复制。\n",
    "A common mistake is to think that `view` copies.\n",  # the rewritten sentence
    "Printed with `torch.set_printoptions(precision=4)`: 0.004, and notes about 2004.\n",
])
def test_a_linked_or_rewritten_mention_passes(tmp_path, body):
    assert check_note_mentions(page(tmp_path / "docs", "en/t/a.md", body)) == []


def test_a_link_elsewhere_does_not_explain_a_mention(tmp_path):
    """Only a link to the Sources page says what the note is; the mention must be its text."""
    body = "Note 004 says so, see [the docs](https://docs.pytorch.org/) and [Sources](../sources.md).\n"
    errors = check_note_mentions(page(tmp_path / "docs", "en/t/a.md", body))
    assert [e.line for e in errors] == [8]


def test_the_sources_page_defines_the_notes(tmp_path):
    sources = page(tmp_path / "docs", "en/sources.md", "### Note 004 {#note-004}\n\nIn Chinese.\n")
    assert check_note_mentions(sources) == []


def _check_twins(tmp_path, capsys, en: str, zh: str) -> str:
    """`check` of a two-language site with one page pair (synced notebooks), which must fail: what it printed."""
    docs = tmp_path / "docs"
    page(docs, "en/t/a.md", en + "\n\n" + code("print(1)"))
    page(docs, "zh/t/a.md", zh + "\n\n" + code("print(1)"), title="测试")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    sync_pairs(docs, tmp_path / "notebooks", ["en", "zh"])
    assert cli(["-f", str(config), "check"]) == 1
    return capsys.readouterr().err


def test_check_fails_on_a_bare_mention(tmp_path, capsys):
    err = _check_twins(tmp_path, capsys, "Note 003 says so.", "[原始笔记 003](../sources.md#note-003) 这样说。")
    assert f"{tmp_path.name}/docs/en/t/a.md:8: 'Note 003'" in err and "zh/t/a.md" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_site_has_no_bare_mention(lang):
    pages = sorted((DOCS / lang).rglob("*.md"))
    assert len(pages) > 30 and (DOCS / lang / "sources.md") in pages
    assert [e.message for p in pages for e in check_note_mentions(p)] == []


@pytest.mark.parametrize("body, line, words", [
    ("第一段。\n\n[原笔记](../sources.md)说 `view` 会复制。笔记还说它很快。\n", 10, "笔记还说它很快"),
    ("第一段。\n\n这份笔记讲清了广播。\n", 10, "这份笔记讲清了广播"),  # the site, or a note? say 本站
    ("脚本在笔记本上也能跑。\n", 8, "笔记本上也能跑"),  # a laptop is 笔记本电脑: 笔记本 is also a notebook
    ("正文。\n\n" + code("x = 1  # 和笔记里一样\nprint(x)"), 11, "和笔记里一样"),  # a comment is read too
    ("正文。\n\n" + code('print("笔记中的掩码:", 1)'), 11, "笔记中的掩码"),  # and a printed label
])
def test_an_ambiguous_note_word_is_named_with_its_file_and_line(tmp_path, body, line, words):
    planted = page(tmp_path / "docs", "zh/t/a.md", body, title="测试")
    errors = check_note_mentions(planted)
    assert [type(e) for e in errors] == [AmbiguousNoteWord]
    assert errors[0].path == planted and errors[0].line == line
    assert f"{planted}:{line}:" in errors[0].message and words in errors[0].message
    assert "本站" in errors[0].message and "原笔记" in errors[0].message  # the hint says what to write


def test_a_description_is_checked_too(tmp_path):
    planted = page(tmp_path / "docs", "zh/t/a.md", "正文。\n", title="测试", extra="keywords: 笔记里的例子\n")
    assert [(type(e), e.line) for e in check_note_mentions(planted)] == [(AmbiguousNoteWord, 4)]


@pytest.mark.parametrize("body", [
    "[原笔记](../sources.md)说 `view` 会复制。其实不会；原笔记后面也改了口。\n",
    "[原始笔记 004](../sources.md#note-004) 说 `view` 会复制，原笔记中的例子如下。\n",
    "欢迎来到 PyTorch 笔记！本站的输出都由构建生成，在笔记本电脑上也能运行。\n",
    "[PyTorch\n笔记（PDF）](https://example.org/a.pdf)\n",  # the site's name, wrapped
    "一个常见的误解是 `view` 会复制。\n",  # rewritten to read on its own
])
def test_a_named_note_word_passes(tmp_path, body):
    assert check_note_mentions(page(tmp_path / "docs", "zh/t/a.md", body, title="测试")) == []


@pytest.mark.parametrize("lang, body, line, said", [
    ("zh", "第一段。\n\n原笔记说 `view` 会复制。\n\n[原笔记](../sources.md)还说它很快。\n", 10, "原笔记"),
    ("en", "The original note says `view` copies. [The original note](../sources.md) is wrong.\n", 8,
     "original note"),
    ("en", "As the original\nnotes put it.\n", 8, "original notes"),  # wrapped between the words
])
def test_the_first_mention_of_an_original_note_must_link(tmp_path, lang, body, line, said):
    planted = page(tmp_path / "docs", f"{lang}/t/a.md", body)
    errors = check_note_mentions(planted)
    assert [type(e) for e in errors] == [UnlinkedNoteMention]
    assert errors[0].line == line and f"'{said}'" in errors[0].message and "sources.md" in errors[0].message


@pytest.mark.parametrize("body", [
    # a heading, an admonition's title and code cannot link: the first mention in prose is the one that must
    "## 原笔记中的例子\n\n!!! info \"原笔记中的问题\"\n    [原笔记](../sources.md)问：为什么？\n",
    code("x = 1  # 与原笔记相同\nprint(x)") + "[原笔记](../sources.md)用的是 `x`。\n",
    "正文。\n\n[原始笔记 003](../sources.md#note-003) 这样说；原笔记后面又说了一次。\n",  # numbered, linked first
])
def test_a_mention_that_cannot_link_is_not_the_first(tmp_path, body):
    assert check_note_mentions(page(tmp_path / "docs", "zh/t/a.md", body, title="测试")) == []


def test_a_numbered_bare_mention_is_one_error(tmp_path):
    """笔记 004 unlinked is bare, ambiguous and the page's first mention: one mistake, reported once."""
    errors = check_note_mentions(page(tmp_path / "docs", "zh/t/a.md", "笔记 004 说 `view` 会复制。\n", title="测试"))
    assert [type(e) for e in errors] == [BareNoteMention]


def test_check_fails_on_an_ambiguous_note_word(tmp_path, capsys):
    err = _check_twins(tmp_path, capsys, "[The original note](../sources.md) says so.", "第一段。\n\n笔记这样说。")
    assert f"{tmp_path.name}/docs/zh/t/a.md:10: '笔记这样说。'" in err and "en/t/a.md" not in err
