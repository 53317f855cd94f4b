#!/usr/bin/env bash
# Create .venv and install the pinned requirements (idempotent; fast when nothing changed).
# Installs Debian's CJK fonts when missing (the zh figures need them). With --browser, also what the browser
# tests need: Debian's chromium and axe-core from npm.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
# The Chinese pages' figures have Chinese titles and labels: matplotlib needs a CJK font at build time
# (Debian's package, never a CDN).
if ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq fontconfig fonts-noto-cjk >/dev/null
fi
if [ "${1:-}" = "--browser" ]; then
  if ! command -v chromium >/dev/null || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
    # Never 'playwright install': it downloads a browser; Debian's chromium is used instead.
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
  fi
  npm ci --no-audit --no-fund --loglevel=error
fi
