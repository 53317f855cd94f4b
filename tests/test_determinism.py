"""Two cold executions of every page of the site give the same outputs, byte for byte.

The site build in scripts/test.sh has just executed every page into .cache/torchnotes (cold in CI); this test
executes every page again, forced, into an empty cache and compares every output. Timings and dates live in
the entry's record, not in the outputs, and are not compared.
"""

from pathlib import Path

from torchnotes.engine.cache import Cache
from torchnotes.engine.scheduler import Engine
from torchnotes.pages.checks import page_paths

ROOT = Path(__file__).resolve().parent.parent


def differing_outputs(first, second) -> list[str]:
    found = []
    for a, b in zip(first.results, second.results):
        if a.status == "static":
            continue
        assert a.status != "failed" and b.status != "failed", (a.error or b.error).message
        for cell, (outs_a, outs_b) in enumerate(zip(a.cell_outputs(), b.cell_outputs()), 1):
            if len(outs_a) != len(outs_b):
                found.append(f"{a.page} code cell {cell}: {len(outs_a)} vs {len(outs_b)} outputs")
                continue
            found += [f"{a.page} code cell {cell} output {i}" for i, (x, y) in enumerate(zip(outs_a, outs_b)) if x != y]
    return found


def test_two_executions_of_every_page_agree(tmp_path, env, zygotes):
    pages = [p for lang in ("en", "zh") for p in page_paths(ROOT / "docs", lang)]
    quiet = [].append
    built = Cache(ROOT / ".cache/torchnotes")
    build = Engine(built, env, root=ROOT, log=quiet).run(pages)
    # Compiled extensions are shared between builds by design (torch's extension cache, keyed on their source
    # and the torch build): the second execution loads the build's, as the next build would, instead of
    # compiling them again. Every cell still runs.
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "extensions").symlink_to(built.folder / "extensions", target_is_directory=True)
    # The worker's zygote, kept for the tests after this one as `mkdocs serve` keeps it across rebuilds.
    again = Engine(Cache(tmp_path / "cache"), env, root=ROOT, mode="force", zygotes=zygotes, log=quiet).run(pages)
    failures = [e.message for e in build.failures + again.failures]
    assert failures == [], "\n".join(failures)
    # Really executed again: one kernel per distinct code (pages identical up to comments share one), plus one
    # per twin whose outputs quote its source lines (tracebacks, warnings) with comments of its own.
    with_code = [r for r in again.results if r.status != "static"]
    assert 0 < len({r.key for r in with_code}) <= again.kernels <= len(with_code)
    assert again.count("run") == again.kernels
    differences = differing_outputs(build, again)
    assert differences == [], f"{len(differences)} outputs differ between two executions:\n" + "\n".join(differences)
