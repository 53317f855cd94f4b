#!/usr/bin/env bash
# Create .venv and install the pinned requirements with scripts/install.sh (uv; idempotent; fast when nothing changed:
# delete .venv/.torchnotes-setup to install again).
# Installs Debian's CJK fonts when missing (the zh figures need them). With --browser, also what the browser
# tests need: Chromium (Debian's, or Playwright's on Ubuntu) and axe-core from npm. With --pdf, only Chromium
# (what scripts/build_pdf.sh prints the books with).
set -euo pipefail
cd "$(dirname "$0")/.."
# grep reads fc-list's whole output: with -q it would stop at the first match, fc-list would die of SIGPIPE, and
# under pipefail the fonts would count as missing (apt-get then ran at random, and two at once fail on its lock).
has_cjk_font() { fc-list : family 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null; }
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# Checking ~30 pins and rebuilding the editable install of torchnotes costs seconds on every call: done again only when
# the pins or pyproject.toml changed since it last succeeded in this environment. An environment layered over
# another (scripts/layered_venv.py: the tests' clones, the workflow jobs run locally) carries that one's stamp.
stamp=".venv/.torchnotes-setup"
# requirements-import.txt (pandoc, for scripts/import_tutorial.py) is installed too, so that the contributor guide's
# import command works as written after the README's set-up (issue 45).
want="$(cat requirements.txt requirements-import.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  bash scripts/install.sh -r requirements.txt -r requirements-import.txt
  echo "$want" > "$stamp"
else
  # The same pins, but the editable install may name another checkout (this one moved, or the environment is
  # another's, layered): point it here, without resolving the pins again (3 s, not 13). setuptools builds it
  # in place where the environment has it (Python 3.12's venvs have none: pip's isolated build then).
  where="$(.venv/bin/python -c 'import importlib.util as u, pathlib as p, sys
sys.path = [f for f in sys.path if f]  # where `mkdocs` would look: not in the current folder first, as `python -c` does
s = u.find_spec("torchnotes")
print("here" if s and s.origin and p.Path(s.origin).resolve() == p.Path("torchnotes/__init__.py").resolve() else "elsewhere",
      "--no-build-isolation" if u.find_spec("setuptools") else "")')"
  if [ "${where%% *}" != "here" ]; then
    # shellcheck disable=SC2086  # the option, or nothing
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps ${where#* } -e .
  fi
fi
# The Chinese pages' figures have Chinese titles and labels: matplotlib needs a CJK font at build time
# (Debian's package, never a CDN).
if ! has_cjk_font; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq fontconfig fonts-noto-cjk >/dev/null
fi
if [ "${1:-}" = "--browser" ] || [ "${1:-}" = "--pdf" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  # Debian's chromium where apt has a real .deb of it; Playwright's own build on Ubuntu runners, whose apt
  # chromium is a snap transitional package (scripts/browser_source.sh decides).
  browser_from="$(bash scripts/browser_source.sh)"
  echo "setup.sh: Chromium for the browser tests from: $browser_from"
  if [ "$browser_from" = "debian" ]; then
    # The book is printed with chromium; the browser tests run in its headless shell (tests/browser_support.py:
    # the same engine without the browser's windows, half the time and two thirds of the CPU over the whole site).
    shell=()
    if [ "${1:-}" = "--browser" ]; then shell=(chromium-headless-shell); fi
    if ! command -v chromium >/dev/null || ! has_cjk_font \
        || { [ ${#shell[@]} -gt 0 ] && ! command -v chromium-headless-shell >/dev/null; }; then
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-noto-cjk "${shell[@]}" >/dev/null
    fi
  else
    if ! has_cjk_font; then
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq fonts-noto-cjk >/dev/null
    fi
    # Downloads Chromium and its system libraries: only where no Debian chromium is to be had.
    .venv/bin/python -m playwright install --with-deps chromium
  fi
  if [ "${1:-}" = "--browser" ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
