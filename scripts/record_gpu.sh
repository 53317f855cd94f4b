#!/usr/bin/env bash
# Record the outputs of every page with a needs-cuda cell on this machine's GPU into recorded/ (commit it).
#
#   bash scripts/record_gpu.sh                   a venv in .cache/gpu-venv that sees the system's packages:
#                                                the torch installed there is used as is; what is missing
#                                                comes from the package registry
#   bash scripts/record_gpu.sh --wheels DIR      the same, installing only from the wheels in DIR (no registry)
#   bash scripts/record_gpu.sh --python PY       use interpreter PY as it is (its torch, its packages)
#   ... -- ARGS                                  more arguments for `python -m torchnotes execute --record`
#
# The torch may differ from the pinned one (a CUDA build, another version): each record names what ran.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: bash scripts/record_gpu.sh [--wheels DIR] [--python PY] [-- EXECUTE-ARGS]" >&2
  exit 64
}

wheels=""
python=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wheels) [ $# -ge 2 ] || usage; wheels="$2"; shift 2 ;;
    --python) [ $# -ge 2 ] || usage; python="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) usage ;;
  esac
done
if [ -n "$wheels" ] && [ ! -d "$wheels" ]; then
  echo "--wheels $wheels: no such folder" >&2
  exit 64
fi

has_cuda() {
  "$1" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 3)' 2>/dev/null
}
no_cuda() {
  echo "no CUDA device visible to $1 ($("$1" -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1))." >&2
  echo "Run this on a machine with an NVIDIA GPU and a CUDA build of torch (nvidia-smi should list the GPU)." >&2
  exit 2
}

# Before anything is downloaded or installed (a CUDA torch is ~5 GB): is there an NVIDIA GPU here at all?
gpu_present() {
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then return 0; fi
  compgen -G '/dev/nvidia[0-9]*' >/dev/null
}
if ! gpu_present; then
  echo "record_gpu.sh: no NVIDIA GPU on this machine (nvidia-smi lists none, no /dev/nvidia* device); nothing was" >&2
  echo "installed or run. Record on a machine with an NVIDIA GPU and its driver (nvidia-smi should list the GPU)." >&2
  exit 2
fi

if [ -n "$python" ]; then
  # Checked before anything is installed or executed.
  has_cuda "$python" || no_cuda "$python"
else
  venv=.cache/gpu-venv
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$venv"
  fi
  python="$venv/bin/python"
  pip=("$python" -m pip install --quiet --disable-pip-version-check)
  if [ -n "$wheels" ]; then
    pip+=(--no-index --find-links "$wheels")
  fi
  if ! "$python" -c 'import torch' 2>/dev/null; then
    "${pip[@]}" torch
  fi
  has_cuda "$python" || no_cuda "$python"
  # The build's requirements without the torch pin (the GPU's own torch stays) and without the test tools.
  grep -vE '^(torch==|playwright|pytest|ruff|-e )' requirements.txt >"$venv/requirements-gpu.txt"
  if ! "${pip[@]}" -r "$venv/requirements-gpu.txt"; then
    [ -n "$wheels" ] || exit 1
    echo "some pinned versions are not in $wheels; installing the versions it has (the records name torch's)" >&2
    sed -E 's/[=<>!~].*$//' "$venv/requirements-gpu.txt" >"$venv/requirements-loose.txt"
    "${pip[@]}" -r "$venv/requirements-loose.txt"
  fi
fi

"$python" -c 'import torch; print("recording with torch", torch.__version__, "on", torch.cuda.get_device_name(0))'
# PYTHONPATH: this checkout's torchnotes, whatever the interpreter has installed. The kernels are this
# interpreter too (nbclient's python3 kernel is the running Python).
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$python" -m torchnotes execute --record "$@"
