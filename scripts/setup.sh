#!/usr/bin/env bash
# Create .venv and install the pinned requirements (idempotent; fast when nothing changed: delete
# .venv/.torchnotes-setup to make pip check the environment again).
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
# pip checks ~30 pins and rebuilds the editable install of torchnotes (~15 s) on every call: done again only
# when requirements.txt or this checkout's place changed since it last succeeded here.
stamp=".venv/.torchnotes-setup"
# requirements-import.txt (pandoc, for scripts/import_tutorial.py) is installed too, so that the contributor guide's
# import command works as written after the README's set-up (issue 45).
want="$(cat requirements.txt requirements-import.txt | sha256sum | cut -d' ' -f1) $PWD"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-import.txt
  echo "$want" > "$stamp"
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
    if ! command -v chromium >/dev/null || ! has_cjk_font; then
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
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
