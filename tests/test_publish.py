"""The publish step (`python -m torchnotes render OUT`) on the fixture site: no generator inside, outputs under
their cells, unchanged files left alone, and the bad inputs of issue 12."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers import fixture_copy

from torchnotes.publish.paired import sync_pairs

# Importing any of these fails in the child: the publish step must not need them.
NO_GENERATOR = """
import sys
for name in ("mkdocs", "material", "mkdocs_static_i18n", "zensical"):
    sys.modules[name] = None
from torchnotes.cli import main
code = main(sys.argv[1:])
loaded = sorted(n for n, m in sys.modules.items() if m is not None and n.split(".")[0] in ("mkdocs", "material"))
print("generator modules loaded:", loaded)
sys.exit(code)
"""


def render(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_GENERATOR, "-f", str(src / "mkdocs.yml"), "render", str(out), *extra],
                          cwd=src, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def published_once(tmp_path_factory):
    """The fixture site rendered once (its kernels run once); each test gets a copy, mtimes included."""
    base = tmp_path_factory.mktemp("published")
    src, out = fixture_copy(base), base / "out"
    done = render(src, out)
    assert done.returncode == 0, done.stderr
    assert "generator modules loaded: []" in done.stdout
    return src, out


@pytest.fixture
def published(published_once, tmp_path):
    src, out = (tmp_path / p.name for p in published_once)
    for original, copy in zip(published_once, (src, out)):
        shutil.copytree(original, copy)  # copy2 keeps mtimes
    return src, out


def outputs_after(markdown: str, code_line: str) -> str:
    """The first output block after the code fence holding code_line."""
    fence = markdown.index(code_line)
    start = markdown.index('<div class="nb-output"', fence)
    return markdown[start:markdown.index("</div>", start)]


def test_render_writes_plain_markdown_per_language_without_any_generator(published):
    src, out = published
    for lang in ("en", "zh"):
        md = (out / lang / "demo.md").read_text(encoding="utf-8")
        assert md.startswith("---\ntitle:")
        assert "sum: 6" in outputs_after(md, "torch.arange(4).sum()")
        assert re.search(r"!\[[^\]]*\]\(demo/demo-code-4-[0-9a-f]{8}-0-[0-9a-f]{8}\.png\)", md)
        assert (out / lang / "demo" / "demo.ipynb").exists()
        assert "{ .nb-provenance data-search-exclude }" in md and "](demo/demo.ipynb){ download }" in md
        images = list((out / lang / "demo").glob("*.png"))
        assert len(images) == 1 and images[0].read_bytes().startswith(b"\x89PNG")
    executed = nbformat.read(out / "en" / "demo" / "demo.ipynb", as_version=4)
    assert executed.cells[[c.cell_type for c in executed.cells].index("code")].outputs[0]["text"] == "sum: 6\n"


def test_unchanged_files_keep_their_mtime_and_a_prose_edit_rewrites_one_page(published):
    src, out = published
    # The second build changes the report pages only: their statuses go from "run" to "cached".
    second = render(src, out)
    assert "published 2 changed file(s)" in second.stdout, second.stdout
    files = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    again = render(src, out)
    assert again.returncode == 0, again.stderr
    assert "published 0 changed file(s)" in again.stdout and "0 kernels" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == files
    page = src / "docs/en/demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Some prose about gradients.", "Some prose."), encoding="utf-8")
    edited = render(src, out)
    assert edited.returncode == 0, edited.stderr
    changed = sorted(p.relative_to(out).as_posix() for p in files if p.stat().st_mtime_ns != files[p])
    # The page, its notebook and its script: the prose is in both, as Markdown cells and as comments.
    assert changed == ["en/demo.md", "en/demo/demo-page.py", "en/demo/demo.ipynb"] and "0 kernels" in edited.stdout


def test_render_without_execution_names_the_page_and_the_command(published):
    src, out = published
    for lang in ("en", "zh"):
        page = src / f"docs/{lang}/demo.md"
        page.write_text(page.read_text(encoding="utf-8").replace("torch.ones(2)\n", "torch.ones(3)\n"), encoding="utf-8")
    sync_pairs(src / "docs", src / "notebooks", ["en", "zh"])
    done = render(src, out, "--no-execute")
    assert done.returncode == 1
    assert "docs/en/demo.md: execution is off and the cache cannot serve this page" in done.stderr
    assert "python -m torchnotes execute" in done.stderr
    assert "0 kernels" in done.stdout or "kernel" not in done.stdout


def test_pages_gone_from_the_sources_are_removed_from_the_tree(published):
    src, out = published
    for lang in ("en", "zh"):
        (src / f"docs/{lang}/index.md").unlink()
    config = src / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - index.md\n", ""))
    done = render(src, out)
    assert done.returncode == 0, done.stderr
    assert not (out / "en/index.md").exists() and not (out / "zh/index.md").exists()
    assert "removed 2" in done.stdout


def test_a_deleted_page_takes_its_notebooks_with_it(published):
    src, out = published
    notebooks = [src / f"notebooks/{lang}/demo.ipynb" for lang in ("en", "zh")]
    assert all(n.exists() for n in notebooks)
    for lang in ("en", "zh"):
        (src / f"docs/{lang}/demo.md").unlink()
    config = src / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - demo.md\n", ""))
    done = render(src, out)
    assert done.returncode == 0, done.stderr
    assert not any(n.exists() for n in notebooks), "the paired notebooks of a deleted page were left behind"
    assert (src / "notebooks").is_dir()


def test_a_notebook_with_shifted_cell_ids_is_resynced_not_rendered_shifted(published):
    src, out = published
    notebook_path = src / "notebooks/en/demo.ipynb"
    notebook = nbformat.read(notebook_path, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    code[0].id, code[1].id = code[1].id, code[0].id  # a hand edit that shifts every output by one cell
    nbformat.write(notebook, notebook_path)
    done = render(src, out)
    assert done.returncode == 0, done.stderr
    assert "1 notebook(s) synced" in done.stdout
    resynced = nbformat.read(notebook_path, as_version=4)
    assert [c.id for c in resynced.cells if c.cell_type == "code"][:2] == [code[1].id, code[0].id]
    md = (out / "en/demo.md").read_text(encoding="utf-8")
    assert "sum: 6" in outputs_after(md, "torch.arange(4).sum()")
    assert "RuntimeError" in outputs_after(md, "torch.zeros(2, 3).view(4)")
    # The zh twin, whose notebook was not touched, keeps its outputs under its own cells too.
    assert "sum: 6" in outputs_after((out / "zh/demo.md").read_text(encoding="utf-8"), "torch.arange(4).sum()")


def test_one_reader_across_rebuilds_publishes_what_a_fresh_build_does(published, tmp_path):
    """A serve session hands one Session to every rebuild's publisher, whose reader shares each page it read among
    the checks, the GPU store and the engine: nothing may change those pages, and an edit must show as in a fresh
    build."""
    from torchnotes.engine.environment import probe
    from torchnotes.pages.read import read_page
    from torchnotes.publish.session import Session
    from torchnotes.publish.tree import Publisher
    from torchnotes.settings import load

    src, out = published
    settings = load(src / "mkdocs.yml")
    env = probe(src / "requirements.txt")
    session = Session.for_settings(settings)
    Publisher(settings, env, session=session).run(out)
    page = src / "docs/en/demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Some prose about gradients.", "Other prose."), encoding="utf-8")
    Publisher(settings, env, session=session).run(out)
    Publisher(settings, env).run(tmp_path / "fresh")

    def files(folder: Path) -> dict:
        return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert files(out) == files(tmp_path / "fresh")
    assert "Other prose." in (out / "en/demo.md").read_text(encoding="utf-8")
    assert len(session.reader.pages) == 6
    for path, (text, kept) in session.reader.pages.items():
        assert kept.notebook == read_page(path, text).notebook, f"{path}: a build changed the page it was given"


def test_the_download_names_files_as_the_page_does():
    """A traceback or a warning through torch names `site-packages/torch/…` in the downloaded notebook, as the page
    does (render.clean_paths): never the folders of the machine that built it."""
    from helpers import ROOT

    from torchnotes.pages.read import read_page
    from torchnotes.publish.features.notebooks import executed_notebook

    page = read_page(ROOT / "docs" / "en" / "tensors" / "views.md")
    first, second = (cell.id for cell in page.code_cells[:2])
    torch_file = f"{sys.prefix}/lib/python3.11/site-packages/torch/_tensor.py"
    outputs = {
        first: [{"output_type": "stream", "name": "stderr", "text": f"{torch_file}:1: FutureWarning: old\n"},
                {"output_type": "execute_result", "execution_count": 1, "metadata": {},
                 "data": {"text/plain": f"PosixPath('{Path.home()}/data')"}}],
        second: [{"output_type": "error", "ename": "OSError", "evalue": f"no file {sys.base_prefix}/x",
                  "traceback": [f"File {torch_file}:623, in Tensor.backward", f"OSError: no file {sys.base_prefix}/x"]}],
    }
    cells = {cell.id: cell for cell in executed_notebook(page, outputs, None, "en").cells}
    warning, value = cells[first].outputs
    (error,) = cells[second].outputs
    assert warning.text == "site-packages/torch/_tensor.py:1: FutureWarning: old\n"
    assert value.data["text/plain"] == "PosixPath('…/data')"
    assert (error.evalue, error.traceback) == ("no file …/x", ["File site-packages/torch/_tensor.py:623, in Tensor.backward",
                                                               "OSError: no file …/x"])


def test_no_download_on_the_site_names_the_build_machines_folders(built_site):
    """Every executed notebook the site offers: what the page shows, without this machine's interpreter or home."""
    import json

    folders = {sys.prefix, sys.base_prefix, str(Path.home())}
    named, through_torch = {}, 0
    for notebook in sorted(built_site.rglob("*.ipynb")):
        outputs = json.dumps([o for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
                              for o in c.get("outputs", [])], ensure_ascii=False)
        named.update({notebook.relative_to(built_site).as_posix(): f for f in folders if f in outputs})
        through_torch += "site-packages/torch/" in outputs
    assert named == {}
    assert through_torch >= 20, "tracebacks and warnings through torch still name its files"
