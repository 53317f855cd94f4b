"""Two cold executions of every page of the site give the same outputs, byte for byte.

The site build in scripts/test.sh has just executed every page into .cache/torchnotes (cold in CI); this test
executes every page again, forced, into an empty cache and compares every output. Timings and dates live in
the entry's record, not in the outputs, and are not compared.
"""

from dataclasses import replace

import pytest
from helpers import ROOT

from torchnotes.engine.cache import Cache
from torchnotes.engine.scheduler import Engine, Run
from torchnotes.pages.listing import page_paths
from torchnotes.settings import load as load_settings


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


@pytest.mark.slow  # every page of the site executed again: about four minutes on two cores
def test_two_executions_of_every_page_agree(tmp_path, env, zygotes):
    pages = [p for lang in ("en", "zh") for p in page_paths(ROOT / "docs", lang)]
    site = load_settings(ROOT / "mkdocs.yml")
    built = Cache(site.path("cache_dir"))
    build = Engine(site, env).run(pages)
    # Compiled extensions are shared between builds by design (torch's extension cache, keyed on their source
    # and the torch build): the second execution loads the build's, as the next build would, instead of
    # compiling them again. Every cell still runs.
    (tmp_path / "cache").mkdir()
    # An absolute link: the build's cache folder is relative to the project (.cache/torchnotes), and a relative
    # link pointed inside tmp_path, where torch compiled the extension again (36 core-s of every run).
    shared = (ROOT / built.folder / "extensions").resolve()
    (tmp_path / "cache" / "extensions").symlink_to(shared, target_is_directory=True)
    # The worker's zygote, kept for the tests after this one as `mkdocs serve` keeps it across rebuilds.
    again = Engine(replace(site, cache_dir=str(tmp_path / "cache")), env, zygotes=zygotes,
                   run=Run(mode="force")).run(pages)
    failures = [e.message for e in build.failures + again.failures]
    # The build's extensions were loaded, not compiled again into a folder of the second execution's own.
    assert shared.is_dir() and not (tmp_path / "cache" / ".cache").exists(), "the extensions were compiled again"
    assert (tmp_path / "cache" / "extensions").resolve() == shared
    assert failures == [], "\n".join(failures)
    # Really executed again: one kernel per distinct code (pages identical up to comments share one), plus one
    # per twin whose outputs quote its source lines (tracebacks, warnings) with comments of its own.
    with_code = [r for r in again.results if r.status != "static"]
    assert 0 < len({r.key for r in with_code}) <= again.kernels <= len(with_code)
    assert again.count("run") == again.kernels
    differences = differing_outputs(build, again)
    assert differences == [], f"{len(differences)} outputs differ between two executions:\n" + "\n".join(differences)


PROFILING_PAGE = '''---
title: Profiling
description: A page that profiles, as docs/en/advanced/performance.md does, without setting KINETO_LOG_LEVEL.
---

# Profiling

```python
import torch
from torch.profiler import ProfilerActivity, profile

model = torch.nn.Linear(4, 2)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    model(torch.ones(3, 4)).sum().backward()
print(sorted({event.name for event in prof.events() if event.name.startswith("aten::addmm")}))
```
'''


def test_a_page_that_profiles_prints_the_same_twice_and_nothing_on_stderr(tmp_path, make_engine, monkeypatch):
    """Kineto, the profiler's back-end, writes lines with a timestamp and the process id to stderr at every profile
    (profiler_start, gpuGetDeviceCount failed) unless the kernel's environment quiets it (KINETO_LOG_LEVEL, set
    and keyed by the engine): the page sets nothing and two executions print the same, stdout only."""
    # ipykernel shows what C++ writes to the process's stderr as the cell's stderr, as in every build, except
    # under pytest (it looks for this variable, which the kernels would inherit).
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    page = tmp_path / "docs" / "en" / "profiling.md"
    page.parent.mkdir(parents=True)
    page.write_text(PROFILING_PAGE, encoding="utf-8")
    first = make_engine().run([page])
    again = make_engine(mode="force").run([page])
    assert first.failures + again.failures == []
    assert again.count("run") == again.kernels == 1
    assert differing_outputs(first, again) == []
    [outputs] = first.results[0].cell_outputs()
    assert [o["output_type"] + ":" + o.get("name", "") for o in outputs] == ["stream:stdout"]
    assert outputs[0]["text"] == "['aten::addmm']\n"
