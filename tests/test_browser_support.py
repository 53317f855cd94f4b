"""Where the browser tests find Chromium, and that under CI=true a missing browser fails instead of skipping."""

import os
import subprocess
import sys

import pytest
from browser_support import find_chromium, skip_or_fail
from helpers import ROOT, plant_suite

CHOOSE = ROOT / "scripts" / "browser_source.sh"
DEBIAN_POLICY = "chromium:\n  Installed: (none)\n  Candidate: 156.0.8078.79-1~deb12u1\n  Version table:\n"
UBUNTU_POLICY = "chromium:\n  Installed: (none)\n  Candidate: 2:1snap1-0ubuntu2\n  Version table:\n"


def test_missing_chromium_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no Chromium.*Under CI=true the browser tests must run"):
        skip_or_fail("no Chromium")


def test_missing_chromium_skips_elsewhere(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium"):
        skip_or_fail("no Chromium")


def test_chromium_from_debian_or_playwright(tmp_path):
    shell, debian, bundled = tmp_path / "shell", tmp_path / "chromium", tmp_path / "ms-playwright" / "chrome"
    apt = (str(shell), str(debian))
    assert find_chromium(str(bundled), debian=apt) is None
    bundled.parent.mkdir()
    bundled.write_text("")
    assert find_chromium(str(bundled), debian=apt) == str(bundled)
    debian.write_text("")
    assert find_chromium(str(bundled), debian=apt) == str(debian)  # Debian's first, where both exist
    shell.write_text("")
    assert find_chromium(str(bundled), debian=apt) == str(shell)  # and its headless shell before its browser
    assert find_chromium(None, debian=(str(tmp_path / "none"),)) is None


def choose(tmp_path, os_release: str, policy: str | None) -> str:
    release = tmp_path / "os-release"
    release.write_text(os_release)
    env = {"PATH": "/usr/bin:/bin", "TORCHNOTES_OS_RELEASE": str(release)}
    if policy is not None:
        env["TORCHNOTES_APT_POLICY"] = policy
    return subprocess.run(["bash", str(CHOOSE)], env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("os_release, policy, expected", [
    ('ID=debian\nVERSION_ID="12"\n', DEBIAN_POLICY, "debian"),
    ("ID=ubuntu\nID_LIKE=debian\n", UBUNTU_POLICY, "playwright"),  # the ubuntu-24.04 runners: a snap
    ("ID=ubuntu\nID_LIKE=debian\n", DEBIAN_POLICY, "playwright"),  # Ubuntu, whatever apt says
    ("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", DEBIAN_POLICY, "playwright"),
    ("ID=debian\n", "chromium:\n  Installed: (none)\n  Candidate: (none)\n", "playwright"),
    ("ID=debian\n", "", "playwright"),  # no apt-cache
], ids=["debian", "ubuntu-snap", "ubuntu", "ubuntu-like", "no-candidate", "no-apt"])
def test_browser_source_choice(tmp_path, os_release, policy, expected):
    assert choose(tmp_path, os_release, policy) == expected


def test_setup_installs_what_was_chosen_and_says_so():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    block = setup[setup.index('"--browser"'):]
    assert "scripts/browser_source.sh" in block and 'echo "setup.sh: Chromium for the browser tests from:' in block
    debian, playwright = block.split("else", 1)
    assert "apt-get install -y -qq chromium" in debian and "playwright install" not in debian
    assert "chromium-headless-shell" in debian  # where the browser tests run (browser_support.find_chromium)
    assert "playwright install --with-deps chromium" in playwright and "install -y -qq chromium" not in playwright


SKIPPING = '''
import pytest

@pytest.mark.browser
def test_needs_a_browser():
    pytest.skip("no Chromium here")

def test_not_a_browser_test():
    pytest.skip("nothing to do")
'''


@pytest.mark.parametrize("ci, outcome", [("true", "1 failed, 1 skipped"), ("", "2 skipped")])
def test_conftest_turns_browser_skips_into_failures_under_ci(tmp_path, ci, outcome):
    plant_suite(tmp_path, {"test_planted": SKIPPING})
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = ci
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--slow", "tests"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert outcome in done.stdout, done.stdout + done.stderr
    if ci:
        assert "no Chromium here" in done.stdout and "Under CI=true the browser tests must run" in done.stdout
