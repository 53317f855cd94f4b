"""Page features: each thing publishing adds to a page or to the site is one module here with one class
(torchnotes/publish/features/base.py says what a feature can do). A new feature is one new file and one line in
FEATURES. The publisher runs them in this order, and `python -m torchnotes check` runs their checks."""

from torchnotes.publish.features.base import Build, Feature, PageOut
from torchnotes.publish.features.exercises import Exercises
from torchnotes.publish.features.gpu import GpuRecordings
from torchnotes.publish.features.notebook_fonts import NotebookFonts
from torchnotes.publish.features.notebooks import Notebooks
from torchnotes.publish.features.provenance import Provenance
from torchnotes.publish.features.report import ReportPage
from torchnotes.publish.features.scripts import Scripts
from torchnotes.publish.features.tokens import Tokens
from torchnotes.publish.features.translations import Translations
from torchnotes.publish.features.versions import VersionChanges

FEATURES: list[type[Feature]] = [
    Tokens,
    VersionChanges,
    GpuRecordings,
    ReportPage,
    Translations,
    Exercises,
    NotebookFonts,
    Notebooks,
    Scripts,
    Provenance,  # last: it joins the parts the features above add to the line under the title
]

__all__ = ["FEATURES", "Build", "Feature", "PageOut"]
