#!/usr/bin/env bash
# Install what is needed, then run every check: lint, page checks, a strict build of the whole site
# (executing every page), and the test suite, whose browser tests drive Chromium over that build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
# tests/test_generators.py builds the site a second time with Zensical, from the same cache.
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-zensical.txt
export NO_MKDOCS_2_WARNING=1
site="${SITE_DIR:-site}"
.venv/bin/ruff check torchnotes tests scripts
.venv/bin/python -m torchnotes check
.venv/bin/mkdocs build --strict --site-dir "$site"
# One worker per core (pytest-xdist), a whole module per worker at a time: module-scoped fixtures (a fixture
# site built once) stay shared within their module.
TORCHNOTES_SITE="$site" .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
