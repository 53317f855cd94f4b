#!/usr/bin/env bash
# Build the site with Zensical into site-zensical/ (English at /, Chinese at /zh/), from the same published
# tree as the MkDocs build: same pages, same outputs. Extra arguments go to `python -m torchnotes zensical`
# (e.g. --site-dir DIR). Serve the result with: python -m http.server -d site-zensical
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/install.sh -r requirements-zensical.txt
.venv/bin/python -m torchnotes zensical "$@"
