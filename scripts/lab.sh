#!/usr/bin/env bash
# Open JupyterLab on notebooks/ with this project's interpreter as the kernel (the torch and the stack pinned in requirements.txt).
# The notebooks are plain .ipynb files: no jupytext extension is needed to open or run them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# JupyterLab lives in an environment of its own, layered over .venv (scripts/layered_venv.py): its kernel sees .venv's
# torch and pinned stack, and .venv stays as requirements.txt made it. Installed into .venv, JupyterLab's packages
# brought rfc3987-syntax, which jsonschema imports whenever it is present: every process that reads a notebook
# (each torchnotes command, each build) then took 1.4 s longer to start.
lab=.cache/lab-venv
# Made again when setup.sh installed other pins (its stamp, which layered_venv.py copies; cmp fails on a missing one).
if [ ! -x "$lab/bin/python" ] || ! cmp -s .venv/.torchnotes-setup "$lab/.torchnotes-setup"; then
  .venv/bin/python scripts/layered_venv.py .venv "$lab"
fi
# pip, as scripts/install.sh does in a layered environment: it sees the packages .venv lends as installed.
"$lab/bin/python" -m pip install --quiet --disable-pip-version-check "jupyterlab==4.6.6"
# Jupyter refuses to start as root unless told; containers and CI machines run as root.
root=()
if [ "$(id -u)" -eq 0 ]; then root=(--allow-root); fi
exec "$lab/bin/jupyter" lab --notebook-dir=notebooks "${root[@]}" "$@"
