"""Translations: every page in every language; a banner on a translation behind its English page
(translations/ledger.yml, torchnotes.pages.freshness); a notice on one still in the original text (the importer's
zh twin, marked to translate)."""

from __future__ import annotations

from pathlib import Path

from torchnotes.errors import NotebookError
from torchnotes.log import logger
from torchnotes.pages.freshness import Ledger, banner, source_page_url
from torchnotes.pages.translations import TRANSLATE_MARKER, check_translations, check_untranslated, untranslated_pages
from torchnotes.publish.features.base import Feature, PageOut, after_title
from torchnotes.strings import strings


class Translations(Feature):
    def __init__(self, build):
        super().__init__(build)
        self.stale: dict[Path, object] = {}

    def check(self, pages: list[Path]) -> list[NotebookError]:
        settings = self.build.settings
        docs, langs = settings.docs_dir, settings.languages
        errors: list[NotebookError] = check_translations(docs, langs)
        if self.build.checking:
            errors += check_untranslated(docs, langs)
            # Named, never a failure: the site shows an untranslated twin in English under a notice, and a
            # translation behind its English page under a banner (an English typo fix needs no Chinese).
            for page in untranslated_pages(docs, langs):
                logger.warning(f"untranslated: {page} (shown in English under a notice until a translator removes "
                               "the marker)")
            for stale in self._ledger().stale():
                logger.warning(stale.message)
        return errors

    def start(self) -> None:
        self.stale = {item.page.resolve(): item for item in self._ledger().stale()}

    def page(self, out: PageOut, body: str) -> str:
        marked = untranslated(body, out.lang, self.build.settings.languages[0], out.rel)
        if marked != body:
            # Still the English text under the untranslated notice: there is no translation to be out of date.
            return marked
        stale = self.stale.get(Path(out.page.path).resolve())
        return body if stale is None else after_title(body, banner(stale, out.lang, out.rel))

    def _ledger(self) -> Ledger:
        settings = self.build.settings
        return Ledger(settings.root, settings.docs_dir, settings.languages, self.build.reader)


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
