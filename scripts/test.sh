#!/usr/bin/env bash
# Install what is needed, then run every check: lint, page checks, the test suite, and a strict site build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NO_MKDOCS_2_WARNING=1
.venv/bin/ruff check torchnotes tests scripts
.venv/bin/python -m torchnotes check
.venv/bin/python -m pytest "$@"
.venv/bin/mkdocs build --strict --site-dir "${SITE_DIR:-site}"
