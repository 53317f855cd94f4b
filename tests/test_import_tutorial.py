"""scripts/import_tutorial.py turns a sphinx-gallery tutorial into a clean page pair (in a copy of the fixture site)."""

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from torchnotes.checks import TRANSLATE_MARKER, check_pairs, check_translations, check_untranslated
from torchnotes.errors import UntranslatedPage
from torchnotes.pages import read_page

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "fixtures" / "tutorial_sample.py"

EXPECTED_EN = r"""---
title: Tensors in a nutshell
description: A small sphinx-gallery tutorial used by the importer's tests.
---

# Tensors in a nutshell

A small sphinx-gallery tutorial used by the importer's tests. It computes
$y = Wx + b$ with `torch.matmul`, as in the
[official tutorials](https://docs.pytorch.org/tutorials/).

```python
import torch

torch.manual_seed(0)
x = torch.ones(3)
print(x.sum())
```

## A second section

The mean squared error is

$$
\mathrm{MSE} = \frac{1}{n}\sum_i (y_i - \hat y_i)^2
$$

!!! note
    `torch.nn.MSELoss` computes it for you.
    See the [loss docs](https://docs.pytorch.org/docs/stable/nn.html#loss-functions).

!!! warning
    Mind the reduction.

```python
loss = torch.nn.MSELoss()(torch.zeros(2), torch.ones(2))
print(loss)
```
"""


def run_import(site, source, path):
    return subprocess.run([sys.executable, str(ROOT / "scripts/import_tutorial.py"), str(source), path,
                           "--root", str(site)], capture_output=True, text=True)


def test_import_writes_a_clean_page_pair(fixture_site):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    done = run_import(fixture_site, SAMPLE, "tensors/sample")
    assert done.returncode == 0, done.stderr
    docs = fixture_site / "docs"
    en = (docs / "en/tensors/sample.md").read_text(encoding="utf-8")
    zh = (docs / "zh/tensors/sample.md").read_text(encoding="utf-8")
    assert en == EXPECTED_EN
    # The zh twin: same text and code, plus the marker and a notice right under the title.
    assert TRANSLATE_MARKER in zh
    assert zh.replace(f"\n{TRANSLATE_MARKER}\n", "").replace(
        '\n!!! info "本页尚未翻译"\n    下面仍是英文原文。翻译完成后，请删除本说明和上一行的标记。\n', "") == en
    en_page, zh_page = read_page(docs / "en/tensors/sample.md"), read_page(docs / "zh/tensors/sample.md")
    code = [c.source for c in en_page.notebook.cells if c.cell_type == "code"]
    assert code == [c.source for c in zh_page.notebook.cells if c.cell_type == "code"]
    assert len(code) == 2 and not any("%matplotlib" in c for c in code)
    assert check_translations(docs, ["en", "zh"]) == []
    assert check_pairs(docs, fixture_site / "notebooks", ["en", "zh"]) == []
    nav = yaml.load((fixture_site / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"]
    tensors = next(item["Tensors"] for item in nav if isinstance(item, dict) and "Tensors" in item)
    assert tensors[-1] == "tensors/sample.md"


def test_check_reports_the_untranslated_twin_until_the_marker_goes(fixture_site):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    assert run_import(fixture_site, SAMPLE, "tensors/sample").returncode == 0
    docs = fixture_site / "docs"
    zh = docs / "zh/tensors/sample.md"
    [error] = check_untranslated(docs, ["en", "zh"])
    assert isinstance(error, UntranslatedPage)
    assert error.path == zh and error.line == zh.read_text(encoding="utf-8").splitlines().index(TRANSLATE_MARKER) + 1
    assert str(zh) in error.message
    cli = subprocess.run([sys.executable, "-m", "torchnotes", "check"], cwd=fixture_site, capture_output=True, text=True)
    assert cli.returncode == 1 and "not translated yet" in cli.stderr and str(Path("docs/zh/tensors/sample.md")) in cli.stderr
    zh.write_text(zh.read_text(encoding="utf-8").replace(TRANSLATE_MARKER, ""), encoding="utf-8")
    assert check_untranslated(docs, ["en", "zh"]) == []


def test_unknown_directive_fails_naming_it(fixture_site, tmp_path):
    shutil.copy(ROOT / "mkdocs.yml", fixture_site / "mkdocs.yml")
    source = tmp_path / "bad.py"
    source.write_text('"""\nTitle\n=====\n\n.. image:: /_static/img/x.png\n"""\n\nimport torch\n', encoding="utf-8")
    done = run_import(fixture_site, source, "tensors/bad")
    assert done.returncode == 1
    assert "'.. image::' directive" in done.stderr and str(source) in done.stderr
    assert not (fixture_site / "docs/en/tensors/bad.md").exists()
