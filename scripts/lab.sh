#!/usr/bin/env bash
# Open JupyterLab on notebooks/ with this project's interpreter as the kernel (torch 2.13.0, the pinned stack).
# The notebooks are plain .ipynb files: no jupytext extension is needed to open or run them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pip install --quiet --disable-pip-version-check "jupyterlab==4.6.6"
exec .venv/bin/jupyter lab --notebook-dir=notebooks "$@"
