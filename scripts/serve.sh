#!/usr/bin/env bash
# Install what is needed, then build and serve the site: English at http://127.0.0.1:8000/, 简体中文 at /zh/
# (mkdocs.serve.yml: mkdocs.yml with the site at the server's root). Arguments go to mkdocs serve (-a HOST:PORT).
# --dirty: a rebuild renders only the pages that changed; the plugin keeps navigation, search and deleted pages
# right (torchnotes/generators/mkdocs/dirty.py), so the preview follows an edit in about a second.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NO_MKDOCS_2_WARNING=1
exec .venv/bin/mkdocs serve --dirty -f mkdocs.serve.yml "$@"
