"""Every way a page can fail, each with its own type.

A message names the file, the cell and the reason, and says what to do about it.
"""

from __future__ import annotations

from pathlib import Path


class NotebookError(Exception):
    """Base class: a page that cannot be turned into executed output."""
    hint = ""
    exit_code = 1  # what a command exits with when this stops it (torchnotes/cli/__init__.py)

    def __init__(self, path: Path | str, reason: str, *, cell: int | None = None, line: int | None = None,
                 hint: str | None = None, details: str = ""):
        self.path = Path(path)
        self.cell = cell
        self.line = line
        self.reason = reason
        self.details = details
        if hint is not None:
            self.hint = hint
        super().__init__(self.message)

    def __reduce__(self):
        # Copies and pickles (a process pool, a deepcopy) rebuild the same error, keyword arguments included.
        return _rebuild, (type(self), str(self.path), self.reason, self.cell, self.line, self.hint, self.details)

    @property
    def where(self) -> str:
        place = str(self.path)
        if self.line is not None:
            place += f":{self.line}"
        if self.cell is not None:
            place += f" (code cell {self.cell})"
        return place

    @property
    def message(self) -> str:
        text = f"{self.where}: {self.reason}"
        if self.hint:
            text += f"\n  -> {self.hint}"
        if self.details:
            text += "\n" + "\n".join("    " + line for line in self.details.rstrip().splitlines())
        return text


def _rebuild(kind, path, reason, cell, line, hint, details):
    return kind(path, reason, cell=cell, line=line, hint=hint, details=details)


class InvalidFrontMatter(NotebookError):
    hint = "Front matter is YAML between '---' lines with 'title' and 'description'; see CONTRIBUTING.md."


class InvalidTags(NotebookError):
    hint = "Use only the cell tags and options listed in CONTRIBUTING.md (e.g. tags=[\"raises-exception\"] raises=\"RuntimeError\")."


class UntranslatedPage(NotebookError):
    """A translated (or half-translated) page that still carries the "to translate" marker: readers would be told
    the text below is the English original."""
    hint = ("Finish the translation (prose, comments and printed labels; code stays the same), then delete the marker "
            "line: the notice 「本页尚未翻译」 goes with it.")


class UnmarkedEnglish(NotebookError):
    """An imported twin whose prose has no word of its language and no "to translate" marker: the English text
    passed off as translated by deleting the marker."""
    hint = ("Put the '<!-- torchnotes: to translate -->' marker back under the title (the site then tells readers the "
            "page is the English original), or translate the page.")


class KeptNotice(NotebookError):
    """A page with the text of the untranslated notice but no marker: the site writes that notice itself."""
    hint = ("Delete the notice from the page: the site shows it by itself on a page that carries the "
            "'<!-- torchnotes: to translate -->' marker, and only there.")


class InvalidCell(NotebookError):
    hint = "Only ```python fences are executed. Show shell commands in a ```console fence."


class CellFailed(NotebookError):
    hint = ("Fix the code, or if the error is the point of the example, tag the cell "
            "tags=[\"raises-exception\"] raises=\"<ExceptionType>\"; a sketch that cannot run here (names it never "
            "defines, data it does not have) is shown, not run: tags=[\"skip-execution\"].")


class OutdatedApi(CellFailed):
    """A cell fails the way code written for an older PyTorch fails: an argument, attribute or name that is gone."""
    hint = ("This looks like an API change, not an error the example means to show: update the code to what this "
            "PyTorch release offers (its release notes name the replacement). A raises-exception tag would only hide it.")


class WroteIntoPages(CellFailed):
    """A page wrote into docs/ (the site would publish it); refused before anything was written."""
    hint = ("Write by a relative path (the page runs in a scratch folder of its own) or into tempfile.TemporaryDirectory(); "
            "never into docs/.")


class SolutionFailed(CellFailed):
    """An exercise's solution (a code cell tagged solution) fails its own check: a wrong answer must not publish."""
    hint = ("The solution's assert (or its code) failed: fix the solution, or the exercise above it if it asks "
            "something else; then run the page again (python -m torchnotes run PAGE).")


class InvalidExercise(NotebookError):
    """An exercise without its solution right under it, or a solution without an exercise above it."""
    hint = ("Write each exercise as a Markdown region <!-- #region tags=[\"exercise\"] --> ... <!-- #endregion -->, "
            "followed at once by one ```python tags=[\"solution\"] cell that checks its answer (see CONTRIBUTING.md, "
            "'Exercises').")


class CellsFailed(NotebookError):
    """Every failing cell of a page run to its end (the importer's first run): one error each, in details."""
    hint = "Fix each cell listed below, then build again."


class MissingModule(CellFailed):
    hint = ("The page imports a package this environment does not have: add it to requirements.txt with a pinned "
            "version (== x.y.z) and run bash scripts/setup.sh, or drop the import and the code that uses it.")


class ExpectedErrorMissing(NotebookError):
    hint = "PyTorch no longer raises here: update the example and its explanation, or remove the raises-exception tag."


class ExpectedErrorMismatch(NotebookError):
    hint = "The cell raised a different error than its raises=/match= options say: check what PyTorch does now."


class CellTimeout(NotebookError):
    hint = "Make the example smaller, or raise 'timeout:' in the page's front matter (seconds per cell)."


class KernelDied(NotebookError):
    hint = "The kernel process died (a crash, os._exit, or the memory cap). Run the page alone to see why."


class PageTimeout(NotebookError):
    hint = "The whole page ran too long: split it into two pages, or make its examples smaller (--page-timeout)."


class BuildTimeout(NotebookError):
    hint = "The whole build ran past its limit (--build-timeout): run fewer pages per build (--shard k/n) or raise it."


class KernelStartFailed(NotebookError):
    hint = ("Check the kernel name ('kernel:' in mkdocs.yml) and that ipykernel is installed in its Python "
            "(jupyter kernelspec list; python -m ipykernel install --user).")


class MissingGlyph(NotebookError):
    hint = ("Install a font that has them: sudo apt-get install fonts-noto-cjk (bash scripts/setup.sh does it), "
            "then build again; the pages with figures run again by themselves (fonts are part of their cache entry).")


class InputsUnrecorded(NotebookError):
    hint = "The kernel must run torchnotes/engine/kernel_setup.py at start (IPKernelApp.exec_files); use an ipykernel kernel."


class OutputTooLarge(NotebookError):
    hint = "Print less (a slice, a shape, a summary) or save large results to a file; see 'Output limits' in CONTRIBUTING.md."


class UnreadablePage(NotebookError):
    hint = "jupytext could not read the page; the reason above names the cause. See the page format in CONTRIBUTING.md."


class MissingTranslation(NotebookError):
    hint = "Every page exists in every language at the same relative path: add the missing file (scripts/new_page.py scaffolds both)."


class PairOutOfSync(NotebookError):
    hint = "Re-generate the notebooks from the pages: python -m torchnotes sync"


class FileDamaged(NotebookError):
    hint = ("It is read as absent and made again by what writes it: the build (a cache entry, a kept file) or a GPU "
            "machine (a recording under recorded/: bash scripts/record_gpu.sh, or restore it: git checkout -- <file>).")


class NotExecuted(NotebookError):
    hint = ("Execution is off and the cache has no outputs for this page's code: run "
            "`python -m torchnotes execute` (or `python -m torchnotes merge` the shard caches) first.")


class UnsafeProse(NotebookError):
    hint = "Prose may not run scripts or load anything from other hosts; see 'Safe prose' in CONTRIBUTING.md."


class BuildFailed(Exception):
    """Several page errors, reported together so one build shows every broken page."""

    def __init__(self, errors: list[NotebookError]):
        self.errors = errors
        lines = [f"{len(errors)} page error(s):"] + [e.message for e in errors]
        super().__init__("\n".join(lines))


class RecordingStale(NotebookError):
    hint = "The code changed since the GPU recording. Record again on a GPU machine: bash scripts/record_gpu.sh"


class RecordingMissing(NotebookError):
    hint = "No GPU recording exists for these needs-cuda cells. Record them on a GPU machine: bash scripts/record_gpu.sh"


class RecordingNeedsCuda(NotebookError):
    hint = "Recording needs-cuda cells needs a CUDA device: run bash scripts/record_gpu.sh on a GPU machine."


class RecordingOrphan(NotebookError):
    hint = "Delete this file: its page is gone or has no needs-cuda cell any more (scripts/record_gpu.sh also removes it)."


class GeneratorFailed(NotebookError):
    """A site generator (Zensical) that is missing or failed on a published tree."""

    hint = "Run the generator's command by hand to see its whole log (bash scripts/build_zensical.sh)."


class VersionsInvalid(NotebookError):
    """versions.yml lists no version, a version twice, or a primary that is not requirements.txt's torch pin."""
    exit_code = 2
    hint = "edit versions.yml: the first version is the torch pin in requirements.txt, then older releases, each once"


class VersionRecordIncomplete(NotebookError):
    """`versions` ran a release but finds no outputs of a page in its cache to write into compared/."""
    hint = "run `python -m torchnotes versions` again; if it repeats, delete the cache folder's failed/ and versions/"


class VersionInstallFailed(NotebookError):
    """pip could not install a listed torch release into its environment."""
    hint = "check the version exists on PyPI for this Python (pip index versions torch), or remove it from versions.yml"


class UnknownToken(NotebookError):
    hint = "write {{ torch_version }} (e.g. 2.15) or {{ torch_release }} (e.g. 2.15.0); see CONTRIBUTING.md"


class LiteralVersion(NotebookError):
    hint = ("a statement about the version this site is built with takes {{ torch_version }} or {{ torch_release }}; "
            "a historical fact names an older release ('since 2.6')")
class PdfSiteMissing(NotebookError):
    """The PDF book (torchnotes.generators.pdf) is printed from the built site: a page of the nav is not there."""

    hint = "Build the site first (mkdocs build --strict; bash scripts/build_pdf.sh does both) and pass its folder."


class PdfFontMissing(NotebookError):
    hint = "Install Debian's fonts-noto-cjk (sudo apt-get install -y fonts-noto-cjk), then build again."


class PdfBrowserMissing(NotebookError):
    hint = "Install Chromium: bash scripts/setup.sh --pdf (Debian's chromium, or Playwright's own build on Ubuntu)."


class PdfPrintFailed(NotebookError):
    hint = "Chromium failed while printing the book: run bash scripts/build_pdf.sh again to see its whole log."


class ReportMissing(NotebookError):
    """An execution report a command reads is not there (summary's own report, or the one --against names)."""

    hint = ("Keep main's report before the build overwrites it (cp {report} main-report.json), "
            "or leave --against out; the build's own report comes from python -m torchnotes execute or mkdocs build.")


class BareNoteMention(NotebookError):
    """"Note 004 says …" (笔记 004) with nothing to tell the reader what note 004 is: the five original notes are
    described on the Sources page (docs/<lang>/sources.md)."""

    hint = ("Link the mention to the Sources page ([note 004](../sources.md#note-004); zh: "
            "[原始笔记 004](../sources.md#note-004)), or rewrite the sentence so it reads on its own. A correction "
            "keeps saying what the note said, linked.")


class AmbiguousNoteWord(NotebookError):
    """笔记 on its own: this site is PyTorch 笔记, so 「笔记说…」 could mean the site or one of the five original
    notes it was made from."""

    hint = ("Say which: 原笔记 (first on the page as [原笔记](../sources.md)) or [原始笔记 004](../sources.md#note-004) "
            "for an original note, 本站 for this site; or rewrite the sentence so it reads on its own. A correction "
            "keeps saying what the note said.")


class UnlinkedNoteMention(NotebookError):
    """A page talks about "the original note" (原笔记) without ever linking to the Sources page that says what
    the original notes are."""

    hint = ("Make the page's first mention a link: [the original note](../sources.md), zh [原笔记](../sources.md) "
            "(../../sources.md one folder deeper, sources.md on the home page).")
