#!/usr/bin/env bash
# Install what is needed, then run every check: lint, page checks, a strict build of the whole site
# (executing every page), and the test suite, whose browser tests drive Chromium over that build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
# tests/test_generators.py builds the site a second time with Zensical, from the same cache; tests/test_workflow_runs.py
# runs the workflows' steps with act (scripts/run_workflow.py). One install, one resolution for both.
bash scripts/install.sh -r requirements-zensical.txt -r requirements-workflows.txt
export NO_MKDOCS_2_WARNING=1
site="${SITE_DIR:-site}"
.venv/bin/ruff check torchnotes tests scripts
# The GitHub workflows cannot run here: lint them (.github/actionlint.yaml declares the self-hosted gpu label).
.venv/bin/actionlint
.venv/bin/zizmor --offline --quiet .github/workflows
.venv/bin/python -m torchnotes check
.venv/bin/mkdocs build --strict --site-dir "$site"
# pytest-xdist, a whole module per worker at a time, longest first by measured seconds (tests/schedule.py): module-scoped fixtures,
# such as a fixture site built once, stay shared within their module. One worker more than there are cores: much
# of the suite waits (on kernels starting, timeouts, a browser, mkdocs serve), and on 2 cores 3 workers took 387 s
# where 2 took 495 s.
workers="${TEST_WORKERS:-$(( $(nproc) + 1 ))}"
# --slow: every test, the slow ones too (tests/slow.py), which a plain `pytest` leaves out.
TORCHNOTES_SITE="$site" .venv/bin/python -m pytest -n "$workers" --slow "$@"
