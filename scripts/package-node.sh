#!/usr/bin/env bash
# Writes the Node binding's npm tarballs into OUT:
#
#   airlock-<version>.tgz            the binding (JavaScript only); it lists every
#                                    platform package as an optional dependency
#   airlock-linux-x64-<version>.tgz  the platform package: a release libairlock.so
#                                    for Linux x86-64 (glibc), `os`/`cpu` set so npm
#                                    installs it only there
#
# The esbuild/swc pattern: `npm install OUT/*.tgz` in any project gives a working
# binding with no Rust toolchain and no environment variable; AIRLOCK_LIB and the
# `library` option still override the packaged library.
#
# Usage:
#   scripts/package-node.sh OUT           # build and pack
#   scripts/package-node.sh --test OUT    # also install the tarballs into a fresh
#                                         # temporary project and run every
#                                         # conformance vector through the installed
#                                         # package, under Node 20 (the `node` on
#                                         # PATH) and Node 24 (scripts/node24.sh)
#
# Needs cargo, npm and strip (binutils). The only network access is npm's, for the
# binding's one dependency (koffi, pinned) and scripts/node24.sh.
set -euo pipefail

test=0
if [ "${1:-}" = "--test" ]; then test=1; shift; fi
[ "$#" -eq 1 ] || { echo "usage: $0 [--test] OUT" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
node_dir="$root/ffi/node"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 lib=libairlock.so ;;
  *) echo "package-node.sh: only linux-x64 is packaged (see ffi/node/README.md for the others)" >&2; exit 1 ;;
esac

version="$(node -p "require('$node_dir/package.json').version")"
platform_name="airlock-$platform"

(cd "$root" && cargo build -p airlock-ffi --release --locked)

stage="$(mktemp -d "${TMPDIR:-/tmp}/airlock-package.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# --- the platform package ---------------------------------------------------------
mkdir -p "$stage/$platform_name"
# The release build keeps debug info for profiling; the package does not need it.
strip --strip-debug -o "$stage/$platform_name/$lib" "$root/target/release/$lib"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/$platform_name/"
node - "$stage/$platform_name" "$platform_name" "$version" "$lib" <<'JS'
const [dir, name, version, lib] = process.argv.slice(2);
const manifest = {
  name,
  version,
  description: `libairlock (the C ABI of airlock) prebuilt for ${name.replace('airlock-', '')}; installed by the package airlock`,
  license: 'MIT OR Apache-2.0',
  os: ['linux'],
  cpu: ['x64'],
  files: [lib, 'LICENSE-MIT', 'LICENSE-APACHE'],
  preferUnplugged: true,
};
require('node:fs').writeFileSync(`${dir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
require('node:fs').writeFileSync(
  `${dir}/README.md`,
  `# ${name}\n\nThe prebuilt \`${lib}\` the package \`airlock\` loads on this platform. Install \`airlock\`, not this.\n`,
);
JS

# --- the binding ------------------------------------------------------------------
mkdir -p "$stage/airlock"
cp -R "$node_dir/index.js" "$node_dir/index.d.ts" "$node_dir/lib" "$node_dir/README.md" "$stage/airlock/"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/airlock/"
node - "$node_dir/package.json" "$stage/airlock/package.json" "$platform_name" "$version" <<'JS'
const [from, to, platformName, version] = process.argv.slice(2);
const fs = require('node:fs');
const manifest = JSON.parse(fs.readFileSync(from, 'utf8'));
delete manifest.private;
delete manifest.scripts;
delete manifest.devDependencies;
manifest.files = [...manifest.files, 'LICENSE-MIT', 'LICENSE-APACHE'];
// Every platform package that exists; npm skips those whose os/cpu do not match.
manifest.optionalDependencies = { [platformName]: version };
fs.writeFileSync(to, `${JSON.stringify(manifest, null, 2)}\n`);
JS

rm -f "$out/airlock-$version.tgz" "$out/$platform_name-$version.tgz"
(cd "$stage/$platform_name" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd "$stage/airlock" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "package-node: wrote $out/airlock-$version.tgz and $out/$platform_name-$version.tgz" >&2

[ "$test" -eq 1 ] || exit 0

# --- install test -----------------------------------------------------------------
# A fresh project per Node version installs only the tarballs (and koffi from the
# registry), then runs the binding's own conformance test against the installed
# package, with no AIRLOCK_LIB and no workspace build output in reach.
node24="$("$root/scripts/node24.sh")"
for node_bin in "$(command -v node)" "$node24"; do
  ver="$("$node_bin" --version)"
  project="$stage/project-$ver"
  mkdir -p "$project/test"
  (
    cd "$project"
    export PATH="$(dirname "$node_bin"):$PATH"
    unset AIRLOCK_LIB
    echo '{ "name": "airlock-install-test", "private": true, "type": "module" }' > package.json
    npm install --no-audit --no-fund --no-package-lock \
      "$out/airlock-$version.tgz" "$out/$platform_name-$version.tgz" >&2
    # The binding's own suite, run on the installed package (AIRLOCK_MODULE below).
    cp "$node_dir/test/conformance.test.js" "$node_dir/test/vectors.js" test/
    cat > test/installed.test.js <<'JS'
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { createAirlock, defaultAirlock } from 'airlock';

test('the installed package loads the platform package library', () => {
  const lib = defaultAirlock().libraryPath;
  assert.match(lib, /node_modules[/\\]airlock-linux-x64[/\\]libairlock\.so$/);
});

test('AIRLOCK_LIB and the library option still come first', () => {
  assert.throws(() => createAirlock({ library: '/nonexistent/libairlock.so' }), /the library option/);
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "import('airlock').then((a) => a.sanitizeProse('x', { field: 'f', maxBytes: 1 }))"],
    { env: { ...process.env, AIRLOCK_LIB: '/nonexistent/libairlock.so' }, encoding: 'utf8' },
  );
  assert.notEqual(child.status, 0);
  assert.match(child.stderr, /from AIRLOCK_LIB/);
});
JS
    AIRLOCK_MODULE=airlock AIRLOCK_VECTORS_DIR="$root/tests/conformance" node --test test/*.test.js >&2
  )
  echo "package-node: the installed tarballs pass every vector under Node $ver" >&2
done
