#!/usr/bin/env bash
# Writes airlock's npm tarballs into OUT, the way esbuild and swc ship native code:
#
#   airlock-<version>.tgz               the binding (JavaScript) and the `airlock`
#                                       command: a postinstall (npm/install.cjs) puts
#                                       the platform package's binary in place of
#                                       bin/airlock, so that it runs with nothing in
#                                       between; with install scripts off bin/airlock
#                                       stays the sh launcher (npm/airlock-launcher.sh),
#                                       which execs that binary. It lists every
#                                       platform package as an optional dependency
#   airlock-<platform>-<version>.tgz    one per target: libairlock for the binding
#                                       and bin/airlock for the command, with `os`,
#                                       `cpu` (and on Linux `libc`) set so that npm
#                                       installs only the matching one: linux-x64,
#                                       linux-x64-musl, linux-arm64, linux-arm64-musl,
#                                       darwin-arm64, darwin-x64, win32-x64
#
# `npm install OUT/*.tgz` (or, published, `npm install airlock`, `npx airlock …`,
# `npm i -g airlock`) gives a working binding and command with no Rust toolchain,
# and no download at install time; the one install script only links a file that is
# already installed. AIRLOCK_LIB and the `library` option still override the packaged
# library.
#
# Usage:
#   scripts/package-node.sh OUT                  linux-x64 from the workspace's build
#   scripts/package-node.sh --from REL OUT       every target in the release
#                                                directory REL (scripts/release.sh)
#   scripts/package-node.sh --test [--from REL] OUT
#       also install the tarballs into fresh projects and run every conformance
#       vector through the installed binding and the installed command: under Node
#       20 (the `node` on PATH; install scripts on, so bin/airlock must be the native
#       binary) and Node 24 (scripts/node24.sh; --ignore-scripts, so it must be the
#       launcher) natively, and, when REL has linux-arm64, under arm64 Node 20 and 24
#       from npm run by qemu-user (--ignore-scripts: the install is a cross install)
#
# Needs cargo, npm and strip (binutils) without --from. The only network access is
# npm's: koffi (pinned), Node 24 and the arm64 Nodes (scripts/release/tools.sh).
set -euo pipefail

test=0 from=""
while [ "$#" -gt 1 ]; do
  case "$1" in
    --test) test=1; shift ;;
    --from) from="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ "$#" -eq 1 ] || { echo "usage: $0 [--test] [--from RELEASE_DIR] OUT" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
node_dir="$root/ffi/node"
version="$(node -p "require('$node_dir/package.json').version")"

stage="$(mktemp -d "${TMPDIR:-/tmp}/airlock-package.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

if [ -z "$from" ]; then
  # The workspace's own build, laid out as one release target.
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "package-node.sh: without --from, only linux-x64 is packaged (scripts/release.sh builds the rest)" >&2; exit 1 ;;
  esac
  (cd "$root" && cargo build -p airlock-ffi -p airlock-cli --release --locked --quiet)
  from="$stage/release"
  t="$from/airlock-$version-x86_64-unknown-linux-gnu"
  mkdir -p "$t/lib" "$t/bin"
  # The release build keeps debug info for profiling; the package does not need it.
  strip --strip-debug -o "$t/lib/libairlock.so" "${CARGO_TARGET_DIR:-$root/target}/release/libairlock.so"
  strip -o "$t/bin/airlock" "${CARGO_TARGET_DIR:-$root/target}/release/airlock"
fi
from="$(cd "$from" && pwd)"

# --- the platform packages ---------------------------------------------------------------
# triple:npm-suffix:os:cpu:libc:library
PLATFORMS=(
  x86_64-unknown-linux-gnu:linux-x64:linux:x64:glibc:libairlock.so
  x86_64-unknown-linux-musl:linux-x64-musl:linux:x64:musl:libairlock.so
  aarch64-unknown-linux-gnu:linux-arm64:linux:arm64:glibc:libairlock.so
  aarch64-unknown-linux-musl:linux-arm64-musl:linux:arm64:musl:libairlock.so
  aarch64-apple-darwin:darwin-arm64:darwin:arm64::libairlock.dylib
  x86_64-apple-darwin:darwin-x64:darwin:x64::libairlock.dylib
  x86_64-pc-windows-gnu:win32-x64:win32:x64::airlock.dll
)
packaged=()
for entry in "${PLATFORMS[@]}"; do
  IFS=: read -r triple suffix os cpu libc lib <<<"$entry"
  src="$from/airlock-$version-$triple"
  [ -d "$src" ] || continue
  exe=""; [ "$os" != win32 ] || exe=.exe
  name="airlock-$suffix"
  dir="$stage/$name"
  mkdir -p "$dir/bin"
  cp "$src/lib/$lib" "$dir/$lib"
  cp "$src/bin/airlock$exe" "$dir/bin/airlock$exe"
  chmod 0755 "$dir/bin/airlock$exe"
  cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$dir/"
  node - "$dir" "$name" "$version" "$lib" "$os" "$cpu" "$libc" "$exe" <<'JS'
const [dir, name, version, lib, os, cpu, libc, exe] = process.argv.slice(2);
const fs = require('node:fs');
const manifest = {
  name,
  version,
  description: `airlock prebuilt for ${name.replace('airlock-', '')}: libairlock (the C ABI) and the airlock command; installed by the package airlock`,
  license: 'MIT OR Apache-2.0',
  os: [os],
  cpu: [cpu],
  ...(libc ? { libc: [libc] } : {}),
  files: [lib, `bin/airlock${exe}`, 'LICENSE-MIT', 'LICENSE-APACHE'],
  preferUnplugged: true,
};
fs.writeFileSync(`${dir}/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
fs.writeFileSync(
  `${dir}/README.md`,
  `# ${name}\n\nThe prebuilt \`${lib}\` and \`bin/airlock${exe}\` the package \`airlock\` uses on this platform. Install \`airlock\`, not this.\n`,
);
JS
  rm -f "$out/$name-$version.tgz"
  (cd "$dir" && npm pack --silent --pack-destination "$out" >/dev/null)
  packaged+=("$name")
done
[ "${#packaged[@]}" -gt 0 ] || { echo "package-node.sh: no target in $from" >&2; exit 1; }

# --- the binding and the command ----------------------------------------------------------
mkdir -p "$stage/airlock/bin"
cp -R "$node_dir/index.js" "$node_dir/index.d.ts" "$node_dir/lib" "$node_dir/README.md" "$stage/airlock/"
cp "$root/npm/airlock-launcher.sh" "$stage/airlock/bin/airlock"
chmod 0755 "$stage/airlock/bin/airlock"
cp "$root/npm/install.cjs" "$stage/airlock/"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/airlock/"
node - "$node_dir/package.json" "$stage/airlock/package.json" "$version" "${packaged[@]}" <<'JS'
const [from, to, version, ...platforms] = process.argv.slice(2);
const fs = require('node:fs');
const manifest = JSON.parse(fs.readFileSync(from, 'utf8'));
delete manifest.private;
delete manifest.devDependencies;
// The only script: npm/install.cjs, which swaps bin/airlock for the platform binary.
manifest.scripts = { postinstall: 'node install.cjs' };
manifest.bin = { airlock: 'bin/airlock' };
manifest.files = [...manifest.files, 'bin/airlock', 'install.cjs', 'LICENSE-MIT', 'LICENSE-APACHE'];
// Every platform package built; npm skips those whose os/cpu/libc do not match.
manifest.optionalDependencies = Object.fromEntries(platforms.map((p) => [p, version]));
fs.writeFileSync(to, `${JSON.stringify(manifest, null, 2)}\n`);
JS
rm -f "$out/airlock-$version.tgz"
(cd "$stage/airlock" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "package-node: wrote $out/airlock-$version.tgz and ${packaged[*]}" >&2

[ "$test" -eq 1 ] || exit 0

# --- install test ---------------------------------------------------------------------------
# A fresh project per Node installs only the tarballs (and koffi from the registry) —
# npm picks the platform package itself — then runs the binding's own conformance test
# against the installed package, with no AIRLOCK_LIB and no workspace build in reach,
# and every vector through the installed command (node_modules/.bin/airlock).
# install_test NAME PLATFORM_PACKAGE SCRIPTS RUN_PREFIX... -- NODE
#   SCRIPTS: on (npm runs install.cjs: bin/airlock must be the platform binary) or off
#   (--ignore-scripts: bin/airlock must be the sh launcher)
install_test() {
  local label="$1" platform="$2" scripts="$3" want=launcher; shift 3
  [ "$scripts" = off ] || want=native
  local prefix=()
  while [ "$1" != -- ]; do prefix+=("$1"); shift; done
  local node_bin="$2" project="$stage/project-$label"
  mkdir -p "$project/test"
  (
    cd "$project"
    unset AIRLOCK_LIB
    # The platform packages resolve, as airlock's optional dependencies, to the local
    # tarballs (overrides); npm then skips every one whose os/cpu/libc do not match
    # --cpu/--libc (this machine's, or the emulated target's).
    node - "$out" "$version" "${packaged[@]}" <<'JS' >package.json
const [out, version, ...platforms] = process.argv.slice(2);
const file = (n) => `file:${out}/${n}-${version}.tgz`;
console.log(JSON.stringify({
  name: 'airlock-install-test', private: true, type: 'module',
  dependencies: { airlock: file('airlock') },
  overrides: Object.fromEntries(platforms.map((p) => [p, file(p)])),
}, null, 2));
JS
    ignore=(); [ "$scripts" = on ] || ignore=(--ignore-scripts)
    npm install "${ignore[@]}" --no-audit --no-fund --no-package-lock --loglevel=error --os=linux \
      --cpu="$([[ "$platform" == *arm64* ]] && echo arm64 || echo x64)" \
      --libc="$([[ "$platform" == *musl ]] && echo musl || echo glibc)" >&2
    [ -d "node_modules/$platform" ] || { echo "package-node: npm did not install $platform" >&2; exit 1; }
    for other in "${packaged[@]}"; do
      [ "$other" = "$platform" ] || [ ! -d "node_modules/$other" ] ||
        { echo "package-node: npm installed $other beside $platform" >&2; exit 1; }
    done
    # The binding's own suites, run on the installed package (AIRLOCK_MODULE below).
    cp "$node_dir/test/conformance.test.js" "$node_dir/test/strict.test.js" "$node_dir/test/vectors.js" test/
    cat >test/installed.test.js <<JS
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { createAirlock, defaultAirlock } from 'airlock';

test('the installed package loads the platform package library', () => {
  const lib = defaultAirlock().libraryPath;
  assert.match(lib, /node_modules[/\\\\]$platform[/\\\\]libairlock\.so\$/);
});

test('AIRLOCK_LIB and the library option still come first', () => {
  assert.throws(() => createAirlock({ library: '/nonexistent/libairlock.so' }), /the library option/);
  // Under qemu-user (AIRLOCK_TEST_RUNNER) the arm64 node starts only through qemu.
  const runner = (process.env.AIRLOCK_TEST_RUNNER ?? '').split(' ').filter(Boolean);
  const argv = [...runner, process.execPath,
    '--input-type=module', '-e', "import('airlock').then((a) => a.sanitizeProse('x', { field: 'f', maxBytes: 1 }))"];
  const child = spawnSync(
    argv[0],
    argv.slice(1),
    { env: { ...process.env, AIRLOCK_LIB: '/nonexistent/libairlock.so' }, encoding: 'utf8' },
  );
  assert.notEqual(child.status, 0);
  assert.match(child.stderr, /from AIRLOCK_LIB/);
});
JS
    export AIRLOCK_MODULE=airlock AIRLOCK_VECTORS_DIR="$root/tests/conformance"
    if [ "${#prefix[@]}" -eq 0 ]; then
      "$node_bin" --test test/*.test.js >"$project/node.log" 2>&1 || { tail -40 "$project/node.log" >&2; exit 1; }
    else
      # `node --test FILES` spawns process.execPath per file, an arm64 ELF the shell
      # cannot start without binfmt: each file runs directly (in-process) instead.
      : >"$project/node.log"
      for f in test/*.test.js; do
        AIRLOCK_TEST_RUNNER="${prefix[*]}" "${prefix[@]}" "$node_bin" "$f" >>"$project/node.log" 2>&1 ||
          { tail -40 "$project/node.log" >&2; exit 1; }
      done
    fi
    echo "package-node: $label: binding: $(grep -E '^(# |ℹ )(pass|fail) ' "$project/node.log" | tr '\n' ' ')" >&2
    # The command: npm's own link, run as a hook would run it.
    [ -L node_modules/.bin/airlock ] || { echo "package-node: npm linked no airlock command" >&2; exit 1; }
    # What npm's link points at: the platform binary itself (install.cjs ran) or the
    # launcher (scripts off). Either way the vectors below run through that link.
    if [ "$(head -c 2 node_modules/airlock/bin/airlock)" = '#!' ]; then got=launcher; else got=native; fi
    [ "$got" = "$want" ] ||
      { echo "package-node: $label: bin/airlock is the $got, want the $want (install scripts $scripts)" >&2; exit 1; }
    if [ "$got" = native ]; then
      cmp -s node_modules/airlock/bin/airlock "node_modules/$platform/bin/airlock" ||
        { echo "package-node: $label: bin/airlock is not $platform's binary" >&2; exit 1; }
    fi
    if [ "${#prefix[@]}" -eq 0 ]; then
      # The same binary under every Node: its vectors run once per way npm links it.
      [ "${cli_done:-}" = "$platform:$got" ] ||
        node "$root/scripts/release/cli-vectors.mjs" node_modules/.bin/airlock "$root/tests/conformance" >&2
    else
      # qemu-user cannot follow the launcher's exec into an arm64 binary (no binfmt
      # here): the installed binary runs under qemu directly.
      [ "${cli_done:-}" = "$platform:$got" ] ||
        node "$root/scripts/release/cli-vectors.mjs" --runner "${prefix[*]}" \
          "node_modules/$platform/bin/airlock" "$root/tests/conformance" >&2
    fi
    echo "package-node: $label: bin/airlock is the $got (install scripts $scripts)" >&2
  )
  echo "package-node: $label: the installed tarballs pass every vector" >&2
  cli_done="$platform:$want"
}

node24="$("$root/scripts/node24.sh")"
install_test "node$(node --version)-x64" airlock-linux-x64 on -- "$(command -v node)"
install_test "node$("$node24" --version)-x64" airlock-linux-x64 off -- "$node24"
if [[ " ${packaged[*]} " == *" airlock-linux-arm64 "* ]]; then
  eval "$("$root/scripts/release/tools.sh" | grep '^NODE_ARM64_')"
  for v in "$NODE_ARM64_20" "$NODE_ARM64_24"; do
    install_test "node$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$v" --version)-arm64" airlock-linux-arm64 off \
      qemu-aarch64 -L /usr/aarch64-linux-gnu -- "$v"
  done
fi
