"""The notice on a translation that is still the original text (the importer's zh twin, marked to translate)."""

from __future__ import annotations

from pathlib import Path

from torchnotes.pages.checks import TRANSLATE_MARKER
from torchnotes.pages.freshness import source_page_url
from torchnotes.strings import strings


def untranslated(markdown: str, lang: str, source_lang: str, rel: Path) -> str:
    """markdown as it is; or, for a translation still marked to translate (still the original text), a notice for
    the reader under the title, with a link to the original page, and the text after it marked as the original's
    language (lang="en"), so that screen readers, hyphenation and fonts treat it as English although the page is
    <html lang="zh">. The original language's own pages are never marked."""
    if not any(line.strip() == TRANSLATE_MARKER for line in markdown.split("\n")):
        return markdown
    w = strings(lang)
    lines = [line for line in markdown.split("\n") if line.strip() != TRANSLATE_MARKER]
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), -1)
    head, rest = lines[: title + 1], "\n".join(lines[title + 1:]).strip("\n")
    text = w["untranslated"].format(url=source_page_url(rel), lang=source_lang)
    # Raw HTML link, as in the stale banner (torchnotes/pages/freshness.py): generators resolve a Markdown link
    # outside the language's folder differently. The notice is about the page, so outside the search index.
    notice = (f'<div class="nb-untranslated" data-search-exclude markdown>\n\n!!! info "{w["untranslated_title"]}"\n\n'
              f"    {text}\n\n</div>")
    return "\n".join(head) + f'\n\n{notice}\n\n<div lang="{source_lang}" markdown>\n\n{rest}\n\n</div>\n'
