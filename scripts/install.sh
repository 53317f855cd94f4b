#!/usr/bin/env bash
# Install packages into .venv: scripts/install.sh -r requirements.txt [...] (the arguments of `pip install`).
# uv does it where .venv is an environment of its own: from its cache it links each package's files into the
# environment, where pip unpacks every wheel again (torch's CUDA build with its libraries is 5 GB): a fresh clone's
# set-up takes seconds instead of minutes. uv is pinned here and installed by pip; pip stays in the environment, for
# the scripts that use it. --compile-bytecode: pip compiles what it installs, uv does not unless told, and where
# PYTHONDONTWRITEBYTECODE is set (this machine, CI) every process would compile torch from its sources again.
# An environment layered over another (scripts/layered_venv.py) keeps pip: uv looks only
# in the environment's own site-packages, not at the packages the shared one lends, and would install them all again.
set -euo pipefail
cd "$(dirname "$0")/.."
uv_pin="0.13.9"
site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
if [ -f "$site/_shared_venv.pth" ]; then
  exec .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@"
fi
if [ "$(.venv/bin/uv --version 2>/dev/null | cut -d" " -f2)" != "$uv_pin" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$uv_pin"
fi
exec .venv/bin/uv pip install --quiet --compile-bytecode --python .venv/bin/python "$@"
