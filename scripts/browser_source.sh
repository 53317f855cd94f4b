#!/usr/bin/env bash
# Print where the browser tests' Chromium should come from: "debian" or "playwright".
# Debian's chromium when apt offers a real .deb of it and this is not Ubuntu; elsewhere Playwright's own build:
# on Ubuntu (the ubuntu-24.04 runners) apt's chromium is a transitional package that installs a snap.
# For tests: TORCHNOTES_OS_RELEASE names another os-release file, TORCHNOTES_APT_POLICY gives the text of
# `apt-cache policy chromium` ("" = apt-cache is missing).
set -euo pipefail
os_release="${TORCHNOTES_OS_RELEASE:-/etc/os-release}"
if [ -n "${TORCHNOTES_APT_POLICY+set}" ]; then
  policy="$TORCHNOTES_APT_POLICY"
elif command -v apt-cache >/dev/null; then
  policy="$(apt-cache policy chromium 2>/dev/null || true)"
else
  policy=""
fi
os_id="$( (. "$os_release" 2>/dev/null && echo "${ID:-} ${ID_LIKE:-}") || true)"
candidate="$(printf '%s\n' "$policy" | sed -n 's/^ *Candidate: *//p' | head -n 1)"
case " $os_id " in
  *" ubuntu "*) echo playwright; exit 0 ;;
esac
if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && ! printf '%s' "$candidate" | grep -qi snap; then
  echo debian
else
  echo playwright
fi
