#!/usr/bin/env bash
# Open JupyterLab on notebooks/ with this project's interpreter as the kernel (the torch and the stack pinned in requirements.txt).
# The notebooks are plain .ipynb files: no jupytext extension is needed to open or run them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/install.sh "jupyterlab==4.6.6"
# Jupyter refuses to start as root unless told; containers and CI machines run as root.
root=()
if [ "$(id -u)" -eq 0 ]; then root=(--allow-root); fi
exec .venv/bin/jupyter lab --notebook-dir=notebooks "${root[@]}" "$@"
