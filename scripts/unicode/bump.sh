#!/usr/bin/env bash
# Moves the strict profile (and the names `airlock scan` reports) to another Unicode
# version in one command, or checks that the tree is what that command produces.
#
# Usage:
#   scripts/unicode/bump.sh VERSION           # e.g. 18.0.0
#   scripts/unicode/bump.sh --check VERSION   # the test command runs this
#
# VERSION (when it is not the pinned one already):
#   1. versions.json: "previous" becomes the old "unicode", "unicode" becomes VERSION;
#      "reference" stays (it follows the JavaScript engine, not Unicode: see
#      node-engine-check.mjs and ffi/node/README.md);
#   2. pins the newest @unicode/unicode-VERSION and emoji-test-regex-pattern from npm
#      (exact versions, package-lock.json), unicodedata2==VERSION (requirements-strict.txt)
#      and unicodedata2==previous (requirements-previous.txt);
# then, every time:
#   3. regenerates every table, the strict vectors and the diff report
#      docs/unicode/VERSION.md (scripts/gen-tables.sh), recording the tables' expected
#      sizes in versions.json, and prints the report's summary;
#   4. adds a CHANGELOG entry under "## Unreleased" unless one names docs/unicode/VERSION.md.
# The registry look-ups of step 2 are the only network access beyond gen-tables' installs.
#
# --check VERSION verifies, without writing: versions.json and the pins name VERSION;
# every generated file is what gen-tables produces; the CHANGELOG has the entry; and the
# reference profile's engine-dependent behaviours hold under Node 20 (`node`) and the
# pinned Node 24 (scripts/node24.sh).
set -euo pipefail

usage() { echo "usage: $0 [--check] VERSION" >&2; exit 2; }
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
case "${1:-}" in -h|--help) sed -n '2,27p' "$0"; exit 0 ;; esac
[ "$#" -eq 1 ] || usage
version="$1"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "bump: VERSION must be like 18.0.0, not '$version'" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$here"
command -v node >/dev/null || { echo "bump: node not found" >&2; exit 1; }
get() { node -e 'process.stdout.write(String(require(process.argv[1])[process.argv[2]]))' "$here/versions.json" "$1"; }
changelog_has_entry() { grep -qF "docs/unicode/$version.md" "$root/CHANGELOG.md"; }

if [ "$check" -eq 1 ]; then
  fail=0
  unicode="$(get unicode)"
  previous="$(get previous)"
  if [ "$unicode" != "$version" ]; then
    echo "bump: the tree is on Unicode $unicode, not $version (run scripts/unicode/bump.sh $version)" >&2
    exit 1
  fi
  grep -qx "unicodedata2==$unicode" requirements-strict.txt ||
    { echo "bump: requirements-strict.txt does not pin unicodedata2==$unicode" >&2; fail=1; }
  grep -qx "unicodedata2==$previous" requirements-previous.txt ||
    { echo "bump: requirements-previous.txt does not pin unicodedata2==$previous" >&2; fail=1; }
  grep -q "\"@unicode/unicode-$unicode\"" package.json ||
    { echo "bump: package.json lacks @unicode/unicode-$unicode" >&2; fail=1; }
  "$root/scripts/gen-tables.sh" --check || fail=1
  changelog_has_entry || { echo "bump: CHANGELOG.md has no entry naming docs/unicode/$version.md" >&2; fail=1; }
  node node-engine-check.mjs || fail=1
  node24="$("$root/scripts/node24.sh")"
  "$node24" node-engine-check.mjs || fail=1
  [ "$fail" -eq 0 ] || exit 1
  echo "bump: the tree is what 'scripts/unicode/bump.sh $version' produces" >&2
  exit 0
fi

old="$(get unicode)"
if [ "$old" != "$version" ]; then
  reference="$(get reference)"
  old_previous="$(get previous)"
  echo "bump: Unicode $old -> $version" >&2
  node -e '
    const fs = require("fs");
    const [file, v, old] = process.argv.slice(1);
    const j = JSON.parse(fs.readFileSync(file, "utf8"));
    j.previous = old; j.unicode = v;
    fs.writeFileSync(file, JSON.stringify(j, null, 2) + "\n");' "$here/versions.json" "$version" "$old"
  npm install --save-exact --ignore-scripts --no-audit --no-fund \
    "@unicode/unicode-$version@latest" "emoji-test-regex-pattern@latest"
  if [ "$old_previous" != "$reference" ] && [ "$old_previous" != "$version" ]; then
    npm uninstall --ignore-scripts --no-audit --no-fund "@unicode/unicode-$old_previous"
  fi
  sed -i "s/^unicodedata2==.*/unicodedata2==$version/" requirements-strict.txt
  sed -i "s/^unicodedata2==.*/unicodedata2==$old/" requirements-previous.txt
fi

AIRLOCK_RECORD_COUNTS=1 "$root/scripts/gen-tables.sh"

if ! changelog_has_entry; then
  previous="$(get previous)"
  entry="- Unicode $version for the strict profile's tables, its conformance vectors and the
  names \`airlock scan\` reports (was $previous); what moved is in
  \`docs/unicode/$version.md\`. The reference profile stays on its JavaScript engine's
  Unicode ($(get reference))."
  node -e '
    const fs = require("fs");
    const [file, entry] = process.argv.slice(1);
    const lines = fs.readFileSync(file, "utf8").split("\n");
    const start = lines.indexOf("## Unreleased");
    if (start < 0) { console.error("bump: CHANGELOG.md has no \"## Unreleased\" section"); process.exit(1); }
    let end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
    if (end < 0) end = lines.length;
    let changed = lines.findIndex((l, i) => i > start && i < end && l === "### Changed");
    if (changed < 0) {
      lines.splice(end, 0, "### Changed", "");
      changed = end;
    }
    lines.splice(changed + 1, 0, ...entry.split("\n"));
    fs.writeFileSync(file, lines.join("\n"));' "$root/CHANGELOG.md" "$entry"
  echo "bump: added a CHANGELOG.md entry" >&2
fi
echo "bump: Unicode $version: every table, the strict vectors and docs/unicode/$version.md regenerated" >&2
