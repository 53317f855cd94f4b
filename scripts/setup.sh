#!/usr/bin/env bash
# Create .venv and install the pinned requirements (idempotent; fast when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
