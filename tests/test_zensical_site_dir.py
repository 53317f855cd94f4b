"""`python -m torchnotes zensical` writes its site inside the project: Zensical reads site_dir relative to the
configuration it is given, which is written there. A folder outside is refused by name, with what to pass instead,
before any page runs (it was a ValueError's traceback after the whole publish step)."""

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import settings_at

from torchnotes.errors import GeneratorFailed
from torchnotes.generators.zensical import site_folder


def test_a_site_folder_outside_the_project_is_refused_with_what_to_pass(tmp_path):
    settings = settings_at(tmp_path / "project")
    assert site_folder(settings, Path("site-zensical")) == Path("site-zensical")
    assert site_folder(settings, tmp_path / "project" / "build" / "z") == Path("build/z")
    for outside in (tmp_path / "elsewhere", Path(".."), Path(".")):
        with pytest.raises(GeneratorFailed) as refused:
            site_folder(settings, outside)
        assert "must be written to a folder inside the project" in refused.value.message
        assert "--site-dir site-zensical" in refused.value.message


def test_the_command_refuses_it_before_any_page_runs(fixture_site, tmp_path):
    done = subprocess.run([sys.executable, "-m", "torchnotes", "zensical", "--site-dir", str(tmp_path / "out")],
                          cwd=fixture_site, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "must be written to a folder inside the project" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (fixture_site / ".cache").exists() and not (tmp_path / "out").exists()
