#!/usr/bin/env bash
# Build the site, then print it as one PDF book per language: site/pdf/pytorch-notes-en.pdf and -zh.pdf
# (torchnotes/generators/pdf: Chromium prints the built pages in the order of mkdocs.yml's nav; pikepdf adds the outline).
# SITE_DIR=<folder> builds into another folder; SKIP_SITE=1 prints an already built site (the deploy workflow).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --pdf
site="${SITE_DIR:-site}"
if [ "${SKIP_SITE:-0}" != "1" ]; then
  NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --site-dir "$site"
elif [ ! -f "$site/index.html" ]; then
  echo "build_pdf.sh: SKIP_SITE=1 prints a site already built, but $site holds none (no index.html)." >&2
  echo "  -> build it first (.venv/bin/mkdocs build --strict --site-dir $site), or run without SKIP_SITE." >&2
  exit 1
fi
.venv/bin/python -m torchnotes pdf --site "$site" --out "$site/pdf"
