#!/usr/bin/env bash
# Regenerates every generated Unicode table from pinned registry data (the versions in
# scripts/unicode/versions.json, the packages in scripts/unicode/package-lock.json and
# scripts/unicode/requirements-*.txt):
#   core/src/tables.rs                    the reference profile's Extended_Pictographic
#                                         (versions.json "reference": the JS engine's)
#   core/src/strict/tables.rs             the strict profile (versions.json "unicode")
#   core/src/strict/tokens.rs             the strict profile's fixed special tokens, from
#                                         scripts/tokens/tokens.json (each with its source)
#   cli/src/names/table.rs                the names `airlock scan` reports ("unicode")
#   tests/conformance/strict-vectors.jsonl  the strict vectors, by the JavaScript oracle
#   docs/unicode/<unicode>.md             the report of "previous" -> "unicode"
# scripts/unicode/bump.sh VERSION moves to another Unicode version and runs this.
#
# Usage:
#   scripts/gen-tables.sh           # (re)write them all
#   scripts/gen-tables.sh --check   # exit 1 with a diff if one is stale
#
# Needs node (>= 20), npm, python3 and pip. The only network access is `npm ci` against the
# npm registry and `pip install` against PyPI, and only when scripts/unicode/node_modules,
# scripts/unicode/pydeps or scripts/unicode/pydeps-previous lacks a pinned package.
set -euo pipefail

check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
[ "$#" -le 1 ] || { echo "usage: $0 [--check]" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
unicode_dir="$root/scripts/unicode"

command -v node >/dev/null || { echo "gen-tables: node not found" >&2; exit 1; }
command -v npm >/dev/null || { echo "gen-tables: npm not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "gen-tables: python3 not found" >&2; exit 1; }

version_of() { node -e 'process.stdout.write(require(process.argv[1])[process.argv[2]])' "$unicode_dir/versions.json" "$1"; }
unicode="$(version_of unicode)"
previous="$(version_of previous)"
reference="$(version_of reference)"

# npm: every package the lockfile pins must be installed at its pinned version.
if ! node -e '
  const fs = require("fs"), path = require("path");
  const dir = process.argv[1];
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8"));
  for (const [p, meta] of Object.entries(lock.packages)) {
    if (p === "") continue;
    const pj = path.join(dir, p, "package.json");
    if (!fs.existsSync(pj) || JSON.parse(fs.readFileSync(pj, "utf8")).version !== meta.version) process.exit(1);
  }' "$unicode_dir" 2>/dev/null; then
  echo "gen-tables: installing pinned Unicode data (npm ci)" >&2
  (cd "$unicode_dir" && npm ci --ignore-scripts --no-audit --no-fund)
fi
for v in "$unicode" "$previous" "$reference"; do
  [ -d "$unicode_dir/node_modules/@unicode/unicode-$v" ] ||
    { echo "gen-tables: scripts/unicode/package.json lacks @unicode/unicode-$v (versions.json names it)" >&2; exit 1; }
done

# pip: one target per requirements file, reinstalled when a pin is not there.
pip_target() {
  local target="$1" reqs="$2" want
  want="$(sed -n 's/^\([A-Za-z0-9_.-]*\)==\(.*\)$/\1-\2.dist-info/p' "$reqs" | tr '-' '_' | sed 's/_\([0-9][^_]*\)\.dist_info$/-\1.dist-info/')"
  for d in $want; do
    if [ ! -d "$target/$d" ]; then
      echo "gen-tables: installing pinned Unicode data (pip install --target $(basename "$target"))" >&2
      rm -rf "$target"
      python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$target" -r "$reqs"
      return
    fi
  done
}
pip_target "$unicode_dir/pydeps" "$unicode_dir/requirements-strict.txt"
pip_target "$unicode_dir/pydeps-previous" "$unicode_dir/requirements-previous.txt"

# Each generated file: path, then the generator.
outputs=(
  "core/src/tables.rs gen-tables.mjs"
  "core/src/strict/tables.rs gen-strict-tables.mjs"
  "core/src/strict/tokens.rs ../tokens/gen-tokens.mjs"
  "cli/src/names/table.rs gen-names.mjs"
  "tests/conformance/strict-vectors.jsonl gen-strict-vectors.mjs"
  "docs/unicode/$unicode.md diff-report.mjs"
)

if [ "$check" -eq 0 ]; then
  mkdir -p "$root/docs/unicode" "$root/cli/src/names"
  for o in "${outputs[@]}"; do
    set -- $o
    node "$unicode_dir/$2" "$root/$1"
  done
  exit 0
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/gen-tables.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
stale=0
for o in "${outputs[@]}"; do
  set -- $o
  node "$unicode_dir/$2" "$tmp/out"
  if [ ! -f "$root/$1" ]; then
    echo "gen-tables: $1 is missing; run scripts/gen-tables.sh" >&2
    stale=1
  elif ! cmp -s "$root/$1" "$tmp/out"; then
    diff -u --label "$1" --label regenerated "$root/$1" "$tmp/out" | head -60 || true
    echo "gen-tables: $1 is out of date; run scripts/gen-tables.sh" >&2
    stale=1
  fi
done
[ "$stale" -eq 0 ] || exit 1
echo "gen-tables: every generated table is up to date (strict Unicode $unicode, reference $reference)" >&2
