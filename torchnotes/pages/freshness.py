"""Which state of its English page each translation follows, and which translations fell behind.

One ledger, `translations/ledger.yml`, maps each page to a hash of its English prose at the time it was
translated; `translations/en/<page>.md` keeps that prose, so the published translation can show what
changed since. One ledger, not a field in each page's front matter: the front matter is the translator's
and goes into the paired notebook, and a hash written into it by a tool would churn both; the ledger is one
generated file that a pull request shows as one diff (d2l-zh keeps the English origin beside each
translation for the same reason).

Prose is what a translator translates: the title, the description and the Markdown cells. Code is executed
per language and is not translated, so a code-only change leaves a translation fresh. A stale translation
is a warning, never an error: a contributor who fixes an English typo is not asked to know Chinese.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

import yaml

from torchnotes.errors import NotebookError
from torchnotes.pages.read import Reader
from torchnotes.storage import digest, write_atomically
from torchnotes.strings import strings

LEDGER = Path("translations") / "ledger.yml"
SNAPSHOTS = Path("translations")
HEADER = ("# Which state of each English page its translations follow: a hash of the English prose (title,\n"
          "# description, Markdown cells; not code). Written by `python -m torchnotes translated PAGE`, never by hand.\n")


class NotAPage(NotebookError):
    hint = "Name a page as docs/<language>/<path>.md, e.g. docs/zh/tensors/views.md."


@dataclass(frozen=True)
class StaleTranslation:
    page: Path          # the translation, docs/<lang>/<rel>
    source: Path        # the English page it translates
    before: str | None  # the English prose it was translated from, when kept
    now: str
    source_lang: str = "en"

    @property
    def message(self) -> str:
        why = ("the English page's prose changed since this translation" if self.before is not None
               else "no record of which state of the English page this translates")
        return (f"{self.page}: {why} ({self.source}). Revise it, then mark it up to date with "
                f"`python -m torchnotes translated {self.page}`")

    def diff(self) -> str:
        """The English changes since the translation, as a unified diff of prose lines."""
        lines = difflib.unified_diff((self.before or "").splitlines(), self.now.splitlines(),
                                     "translated", "now", n=1, lineterm="")
        # Hunk headers (@@ -6,3 +6,3 @@) mean nothing to a reader: a gap between changes is shown as one.
        shown = ["⋯" if line.startswith("@@") else line for line in lines if not line.startswith(("---", "+++"))]
        return "\n".join(shown[1:] if shown[:1] == ["⋯"] else shown)


def prose(page: Path, reader: Reader | None = None) -> str:
    parsed = (reader or Reader()).page(page)
    parts = [f"title: {parsed.meta.get('title', '')}", f"description: {parsed.meta.get('description', '')}"]
    parts += [cell.source.strip() for cell in parsed.notebook.cells if cell.cell_type == "markdown"]
    return "\n\n".join("\n".join(line.rstrip() for line in part.splitlines()) for part in parts) + "\n"


class Ledger:
    def __init__(self, root: Path, docs_dir: Path, langs: list[str], reader: Reader | None = None):
        self.reader = reader or Reader()
        self.root, self.docs_dir, self.source, self.translated = Path(root), Path(docs_dir), langs[0], langs[1:]
        self.path = self.root / LEDGER
        self.entries: dict[str, str] = {}
        if self.path.exists():
            self.entries = yaml.safe_load(self.path.read_text(encoding="utf-8")) or {}

    def _snapshot(self, rel: str) -> Path:
        return self.root / SNAPSHOTS / self.source / rel

    def stale(self) -> list[StaleTranslation]:
        """Every translation whose English prose is not the one the ledger records (none: a site without a ledger
        does not track its translations)."""
        if not self.path.exists():
            return []
        found = []
        for lang in self.translated:
            for page in sorted((self.docs_dir / lang).rglob("*.md")):
                rel = page.relative_to(self.docs_dir / lang).as_posix()
                source = self.docs_dir / self.source / rel
                if not source.exists():
                    continue  # check_translations reports the missing page
                now = prose(source, self.reader)
                if self.entries.get(rel) == digest(now):
                    continue
                kept = self._snapshot(rel)
                before = kept.read_text(encoding="utf-8") if rel in self.entries and kept.exists() else None
                found.append(StaleTranslation(page, source, before, now, self.source))
        return found

    def mark(self, pages: list[Path]) -> list[str]:
        """Record the English prose each of these translations (or their English pages) now follows."""
        marked = []
        for page in pages:
            rel = self._rel(Path(page))
            now = prose(self.docs_dir / self.source / rel, self.reader)
            self.entries[rel] = digest(now)
            write_atomically(self._snapshot(rel), now.encode())
            marked.append(rel)
        gone = [rel for rel in self.entries if not (self.docs_dir / self.source / rel).exists()]
        for rel in gone:
            del self.entries[rel]
            self._snapshot(rel).unlink(missing_ok=True)
        text = HEADER + yaml.safe_dump(dict(sorted(self.entries.items())), sort_keys=False)
        write_atomically(self.path, text.encode())
        return marked

    def _rel(self, page: Path) -> str:
        for lang in [self.source, *self.translated]:
            folder = self.docs_dir / lang
            if page.resolve().is_relative_to(folder.resolve()):
                return page.resolve().relative_to(folder.resolve()).as_posix()
        raise NotAPage(page, f"not a page under {self.docs_dir}/<language>/: nothing to mark as translated")


def stale_summary(stale: list[StaleTranslation]) -> str:
    """The pull request summary's list of translations behind their English page (empty when none)."""
    if not stale:
        return ""
    lines = ["", "#### Translations behind their English page", "",
             "Not a failure: a translator revises them later (`python -m torchnotes translated PAGE`).", ""]
    lines += [f"- `{item.page}` ({'English prose changed' if item.before is not None else 'not recorded'})"
              for item in stale]
    return "\n".join(lines) + "\n"


def banner(stale: StaleTranslation, lang: str, rel: Path) -> str:
    """The notice at the top of a translation that fell behind: a link to the English page and, when the ledger
    kept the prose it was translated from, the English changes since, as a diff a reader can open."""
    w = strings(lang)
    url = "../" * (len(rel.parts) + (rel.stem != "index")) + _page_url(rel)
    text = w["stale_changed" if stale.before is not None else "stale_unrecorded"].format(
        url=url, lang=stale.source_lang)
    lines = [f'!!! warning "{w["stale_title"]}"', "", f"    {text}", ""]
    if stale.before is not None:
        diff = stale.diff().replace("```", "` ` `")
        lines += [f'    ??? note "{w["stale_diff"]}"', "", "        ```diff"]
        lines += [f"        {line}".rstrip() for line in diff.splitlines()] + ["        ```", ""]
    # The link is raw HTML: a generator rewrites a Markdown link as relative to the page's source file, and
    # Zensical and MkDocs do that differently for a URL outside the language's folder; neither touches raw HTML.
    # Outside the search index: the notice is about the page, not its subject.
    return '<div class="nb-stale" data-search-exclude markdown>\n\n' + "\n".join(lines) + "\n</div>\n"


def source_page_url(rel: Path) -> str:
    """The link from a translation's source file at `rel` (under its language's folder) to the English page at
    the same path, relative to the source file's folder as Zensical reads links in raw HTML; an <a> that carries
    REBASE is moved to the page's own URL by the MkDocs adapter, as MkDocs leaves raw HTML as it is."""
    return "../" * len(rel.parts) + _page_url(rel)


# On a raw HTML link written relative to the page's source file (see source_page_url).
REBASE = "data-nb-rebase"


def _page_url(rel: Path) -> str:
    """The English page's address under directory URLs, relative to the site root."""
    folder = rel.parent if rel.stem == "index" else rel.with_suffix("")
    return "" if folder == Path(".") else folder.as_posix() + "/"
