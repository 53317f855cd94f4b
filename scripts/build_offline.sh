#!/usr/bin/env bash
# Build the offline copy of the site and zip it, one zip per language: site/offline/pytorch-notes-en.zip and -zh.zip
# (torchnotes/generators/offline: mkdocs.offline.yml builds build/offline-site/ with .html links, per-language search scripts
# and the vendored iframe-worker; every link and asset is checked to open from disk before anything is zipped).
# Each zip holds both languages and opens in its own. OUT=<folder> writes the zips elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m torchnotes offline --site build/offline-site --out "${OUT:-site/offline}"
