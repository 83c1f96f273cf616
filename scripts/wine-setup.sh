#!/usr/bin/env bash
# The Windows lane's Wine (docs/windows.md): installs Debian's Wine and mingw when missing, and
# makes a Wine prefix that reports Windows 10 and holds a bcryptprimitives.dll stand-in (Wine 8
# lacks it; Bun's runtime imports ProcessPrng from it). The prefix is cached under ~/.cache, keyed
# by the Wine version and the stand-in's source, so a second run takes well under a second.
#
#   bash scripts/wine-setup.sh        prints the prefix's path (WINEPREFIX) on its last line
#
# Exits non-zero, saying why, when Wine cannot be installed or the prefix cannot be made.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v wine >/dev/null 2>&1 || missing+=(wine wine64 libwine)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
if [ ${#missing[@]} -gt 0 ]; then
  echo "wine-setup: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then echo "wine-setup: need root to install ${missing[*]}" >&2 && exit 1; fi
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2
fi

source=test/windows/bcryptprimitives.c
key=$({ wine --version; cat "$source"; } | sha256sum | cut -c1-16)
prefix="${DERUN_WINE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/derun/wine-$key}"
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEARCH=win64
# No Mono or Gecko installers (no network, no window): derun needs neither.
export WINEDLLOVERRIDES="mscoree=;mshtml="
unset DISPLAY WAYLAND_DISPLAY

if [ ! -f "$prefix/.derun-ready" ]; then
  echo "wine-setup: making the prefix $prefix" >&2
  rm -rf "$prefix" && mkdir -p "$(dirname "$prefix")"
  timeout 300 wine wineboot --init >&2
  timeout 120 wine winecfg -v win10 >&2
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" "$source" -lbcrypt
  timeout 60 wineserver --wait || true
  touch "$prefix/.derun-ready"
fi
echo "$prefix"
