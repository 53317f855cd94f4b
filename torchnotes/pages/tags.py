"""The cell tags a page may use, each name spelt here once. What a tag does lives with whoever acts on it: the
engine (skip-execution, needs-cuda, raises-exception), the renderer (remove-*, hide-*), the GPU recordings
(needs-cuda) and the comparison across torch releases (volatile)."""

RAISES = "raises-exception"
NEEDS_CUDA = "needs-cuda"
SKIP_EXECUTION = "skip-execution"
REMOVE_INPUT = "remove-input"
REMOVE_OUTPUT = "remove-output"
REMOVE_CELL = "remove-cell"
HIDE_INPUT = "hide-input"
HIDE_OUTPUT = "hide-output"
VOLATILE = "volatile"
# A Markdown region that asks an exercise, and the code cell under it that solves it (torchnotes/publish/features/
# exercises.py): the build runs the solution, and its assert checks it.
EXERCISE = "exercise"
SOLUTION = "solution"
# The tags the renderer marks in the page it writes, for the feature that lays their cells out.
MARKED = (EXERCISE, SOLUTION)
# Tests record cells under this tag on CPU through the GPU recordings' code path; TAGS does not accept it, so no
# real page can carry it.
RECORDED_TEST = "recorded-test"

TAGS = {
    RAISES: "the cell must raise the exception named by raises= (and match=, if given)",
    NEEDS_CUDA: "run only where a CUDA device is present; shown with a notice elsewhere",
    SKIP_EXECUTION: "shown, never executed",
    REMOVE_INPUT: "hide the code, keep the output",
    REMOVE_OUTPUT: "run the code, hide its output",
    REMOVE_CELL: "run the code, hide code and output",
    HIDE_INPUT: "code collapsed behind a click",
    HIDE_OUTPUT: "output collapsed behind a click",
    SOLUTION: "the solution of the exercise above it (a '<!-- #region tags=[\"exercise\"] -->' region): run and "
              "checked by the build (an assert, or raises-exception), folded on the site, hidden in the notebook",
    VOLATILE: "the output varies from run to run for a reason given in reason=; never compared across torch versions",
}
