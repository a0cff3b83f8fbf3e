#!/usr/bin/env bash
# Regenerates include/airlock.h from ffi/src with a pinned cbindgen.
#
# Usage:
#   scripts/gen-header.sh           # (re)write include/airlock.h
#   scripts/gen-header.sh --check   # regenerate into a temp file; exit 1 with a diff
#                                   # if include/airlock.h is stale
#
# Installs the pinned cbindgen (cargo install --locked) when it is missing or another
# version; the only network access is that install, against crates.io.
set -euo pipefail

CBINDGEN_VERSION=0.29.4

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
[ "$#" -le 1 ] || { echo "usage: $0 [--check]" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$root/include/airlock.h"

cbindgen_bin="$(command -v cbindgen || true)"
if [ -z "$cbindgen_bin" ] || [ "$("$cbindgen_bin" --version)" != "cbindgen $CBINDGEN_VERSION" ]; then
  echo "gen-header: installing cbindgen $CBINDGEN_VERSION" >&2
  cargo install cbindgen --version "=$CBINDGEN_VERSION" --locked >&2
  cbindgen_bin="${CARGO_HOME:-$HOME/.cargo}/bin/cbindgen"
fi

generate() {
  (cd "$root/ffi" && "$cbindgen_bin" --quiet --config cbindgen.toml --crate airlock-ffi --output "$1" .)
}

if [ "$check" -eq 0 ]; then
  mkdir -p "$(dirname "$target")"
  generate "$target"
  exit 0
fi

tmp="$(mktemp "${TMPDIR:-/tmp}/airlock.h.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
generate "$tmp"
if ! diff -u "$target" "$tmp"; then
  echo "gen-header: include/airlock.h is stale; run scripts/gen-header.sh" >&2
  exit 1
fi
echo "gen-header: include/airlock.h is up to date" >&2
