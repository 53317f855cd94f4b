"""A mention of one of the original notes ("Note 004 says …", 笔记 004) either links to the Sources page or is
rewritten to read on its own; `check` names the file and line of a bare one."""


import pytest
from helpers import ROOT, code, page

from torchnotes.cli import main as cli
from torchnotes.errors import BareNoteMention
from torchnotes.pages.checks import sync_pairs
from torchnotes.pages.notes import check_note_mentions

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


def test_check_fails_on_a_bare_mention(tmp_path, capsys):
    docs = tmp_path / "docs"
    page(docs, "en/t/a.md", "Note 003 says so.\n\n" + code("print(1)"))
    page(docs, "zh/t/a.md", "[原始笔记 003](../sources.md#note-003) 这样说。\n\n" + code("print(1)"), title="测试")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nplugins:\n  - torchnotes:\n      languages: [en, zh]\n")
    sync_pairs(docs, tmp_path / "notebooks", ["en", "zh"])
    assert cli(["-f", str(config), "check"]) == 1
    err = capsys.readouterr().err
    assert f"{docs / 'en/t/a.md'}:8: 'Note 003'" in err and "zh/t/a.md" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_site_has_no_bare_mention(lang):
    pages = sorted((DOCS / lang).rglob("*.md"))
    assert len(pages) > 30 and (DOCS / lang / "sources.md") in pages
    assert [e.message for p in pages for e in check_note_mentions(p)] == []
