#!/usr/bin/env bash
# Install what is needed, then build and serve the site at http://127.0.0.1:8000 (both languages).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NO_MKDOCS_2_WARNING=1
exec .venv/bin/mkdocs serve "$@"
