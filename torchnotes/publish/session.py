"""What one preview (`mkdocs serve`) keeps across its rebuilds, so that a rebuild redoes only what changed."""

from __future__ import annotations

from dataclasses import dataclass, field

from torchnotes.engine.zygote import Zygotes
from torchnotes.layout import CacheFolder
from torchnotes.pages.read import Reader
from torchnotes.publish.features.base import Memo
from torchnotes.publish.kept_pages import KeptPages
from torchnotes.publish.render import Conversions


@dataclass
class Session:
    """The pages read (Reader), the outputs and paragraphs converted (Conversions), each page's published files
    (KeptPages), what the features computed from the whole site (Memo) and the zygotes (their torch imported)."""

    reader: Reader
    conversions: Conversions = field(default_factory=Conversions)
    pages: KeptPages = field(default_factory=KeptPages)
    memo: Memo = field(default_factory=Memo)
    zygotes: Zygotes = field(default_factory=Zygotes)

    @classmethod
    def for_settings(cls, settings, *, preview: bool = False) -> Session:
        """preview: a `mkdocs serve`, whose zygote starts with its first build, to be ready for the first code edit."""
        return cls(Reader(CacheFolder(settings.path("cache_dir")).parsed), zygotes=Zygotes(ahead=preview))

    def close(self) -> None:
        self.zygotes.close()
