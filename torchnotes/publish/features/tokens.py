"""Tokens in the prose ({{ torch_version }}, ...): replaced by the build's values; a literal version is refused."""

from __future__ import annotations

from pathlib import Path

from torchnotes.errors import NotebookError
from torchnotes.pages import tokens
from torchnotes.publish.features.base import Feature, PageOut
from torchnotes.storage import digest
from torchnotes.versions.run import pinned_torch


class Tokens(Feature):
    def check(self, pages: list[Path]) -> list[NotebookError]:
        # The reviewer's check also holds the prose to the pinned torch; a build holds it to its own.
        pinned = pinned_torch(self.build.settings.path("requirements")) if self.build.checking else None
        found = []
        for path in pages:
            text = Path(path).read_text(encoding="utf-8")
            found += self.build.memo.get(f"tokens:{path}", digest([text, pinned]),
                                         lambda path=path, text=text: tokens.check_tokens(path, pinned, text))
        return found

    def context(self, out: PageOut) -> dict:
        return {"tokens": tokens.values(self.build.env.torch)}
