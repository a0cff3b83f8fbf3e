#!/usr/bin/env bash
# Writes the WebAssembly package and the playground into OUT:
#
#   airlock-wasm-<version>.tgz   the npm package (wasm/npm + airlock.wasm): the Node
#                                binding's API for browsers, Node >= 20, Deno, workerd
#   playground/                  the static playground page, built from that tarball
#
# Usage:
#   scripts/package-wasm.sh OUT          # build and pack, print the module's size
#   scripts/package-wasm.sh --test OUT   # also: install the tarball into a fresh
#                                        # project and run every conformance vector
#                                        # file through it under Node 20 (the `node`
#                                        # on PATH), Node 24 (scripts/node24.sh), Deno
#                                        # and workerd (both pinned, from npm); then
#                                        # the playground in headless Chromium
#                                        # (wasm/test/browser.mjs), screenshots kept
#                                        # in OUT/screenshots
#
# Needs cargo with the wasm32-unknown-unknown target (added with rustup when
# missing), npm; for --test, Debian's chromium (installed with apt when missing).
# Network: npm (the pinned tools in wasm/test/package-lock.json, node24.sh), apt.
set -euo pipefail

test=0
if [ "${1:-}" = "--test" ]; then test=1; shift; fi
[ "$#" -eq 1 ] || { echo "usage: $0 [--test] OUT" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
pkg_dir="$root/wasm/npm"
version="$(node -p "require('$pkg_dir/package.json').version")"
name=airlock-wasm
tarball="$out/$name-$version.tgz"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# The workspace's release profile keeps debug info (for profiling) and thin LTO; the
# module is shipped, so it is built without debug info, stripped, with whole-program
# LTO and abort on panic (core cannot panic; the handler traps).
(
  cd "$root"
  CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
    CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_PANIC=abort \
    cargo build -p airlock-wasm --release --locked --target wasm32-unknown-unknown --quiet
  # abi.rs compiles only for wasm32, so the workspace's clippy (on the host) never sees it.
  if [ "$test" -eq 1 ]; then
    cargo clippy -p airlock-wasm --release --locked --target wasm32-unknown-unknown --quiet -- -D warnings
  fi
)
wasm="$root/target/wasm32-unknown-unknown/release/airlock_wasm.wasm"

stage="$(mktemp -d "${TMPDIR:-/tmp}/airlock-wasm.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# --- the package ------------------------------------------------------------------
mkdir -p "$stage/$name"
# -L: lib/constants.js and lib/node-api.d.ts are the Node binding's own files (links).
cp -RL "$pkg_dir/index.js" "$pkg_dir/index.workerd.js" "$pkg_dir/index.d.ts" "$pkg_dir/lib" \
  "$pkg_dir/README.md" "$stage/$name/"
cp "$wasm" "$stage/$name/airlock.wasm"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/$name/"
node - "$pkg_dir/package.json" "$stage/$name/package.json" <<'JS'
const [from, to] = process.argv.slice(2);
const fs = require('node:fs');
const manifest = JSON.parse(fs.readFileSync(from, 'utf8'));
delete manifest.private;
manifest.files = [...manifest.files, 'LICENSE-MIT', 'LICENSE-APACHE'];
fs.writeFileSync(to, `${JSON.stringify(manifest, null, 2)}\n`);
JS
rm -f "$tarball"
(cd "$stage/$name" && npm pack --silent --pack-destination "$out" >/dev/null)
raw="$(wc -c < "$wasm")"
gz="$(gzip -9 -c "$wasm" | wc -c)"
echo "package-wasm: wrote $tarball (airlock.wasm: $raw bytes, $gz gzipped)" >&2

# --- the playground, from the tarball's own files ----------------------------------
rm -rf "$out/playground"
mkdir -p "$out/playground/airlock-wasm"
tar -xzf "$tarball" -C "$out/playground/airlock-wasm" --strip-components=1 package/
cp "$root/playground/index.html" "$root/playground/app.js" "$root/playground/names.js" \
  "$root/playground/style.css" "$out/playground/"
echo "package-wasm: wrote $out/playground (open index.html from any static server)" >&2

[ "$test" -eq 1 ] || exit 0

# --- install test -----------------------------------------------------------------
vectors="$root/tests/conformance"
tools="$root/wasm/test"

# Loud, as tests/claude/run.sh's: only a pinned tool that cannot be installed or run
# here is skipped; once it runs, any failure fails.
skipped() {
  printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '!!! SKIPPED: package-wasm --test: %s\n' "$*" >&2
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' >&2
}
tools_ok=1
if ! (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error >&2); then
  tools_ok=0
  skipped "npm ci could not install the pinned deno, workerd and playwright-core (see above)"
fi
runs() { [ "$tools_ok" -eq 1 ] && "$tools/node_modules/.bin/$1" --version >/dev/null 2>&1; }

# A fresh project installs only the tarball; under-test.js imports it by name, so the
# package's `exports` decide what loads; the Node binding's own suites run on it.
project="$stage/project"
mkdir -p "$project"
(
  cd "$project"
  echo '{ "name": "airlock-wasm-install-test", "private": true, "type": "module" }' > package.json
  npm install --no-audit --no-fund --no-package-lock --loglevel=error "$tarball" >&2
  echo "export * from '$name';" > under-test.js
)
node24="$("$root/scripts/node24.sh")"
for node_bin in "$(command -v node)" "$node24"; do
  ver="$("$node_bin" --version)"
  AIRLOCK_MODULE="$project/under-test.js" AIRLOCK_WASM_DIR="$project/node_modules/$name" "$node_bin" --test \
    "$root/ffi/node/test/conformance.test.js" "$root/ffi/node/test/strict.test.js" \
    "$root/ffi/node/test/inputs.test.js" "$tools/package.test.js" >&2
  echo "package-wasm: the installed package passes every vector under Node $ver" >&2
done

# Deno: the same entry point (its fetch reads the file: URL of airlock.wasm).
if runs deno; then
  (
    cd "$project"
    AIRLOCK_MODULE="$project/under-test.js" AIRLOCK_VECTORS_DIR="$vectors" \
      "$tools/node_modules/.bin/deno" run --quiet --no-prompt --node-modules-dir=manual \
      --allow-read --allow-env "$tools/vectors.mjs" >&2
  )
  echo "package-wasm: the installed package passes every vector under Deno $("$tools/node_modules/.bin/deno" --version | head -1 | cut -d' ' -f2)" >&2
else
  skipped "the pinned deno does not run here"
fi

# workerd: the package's workerd entry, the module imported as a wasm module.
if runs workerd; then
  cp "$tools/worker.js" "$tools/worker.capnp" "$root/ffi/node/test/vectors.js" "$vectors"/*.jsonl "$project/"
  (cd "$project" && "$tools/node_modules/.bin/workerd" test worker.capnp >&2)
  echo "package-wasm: the installed package passes every vector under workerd $("$tools/node_modules/.bin/workerd" --version | cut -d' ' -f2)" >&2
else
  skipped "the pinned workerd does not run here"
fi

# --- the playground in a real browser -----------------------------------------------
if ! [ -x /usr/bin/chromium ]; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -o DPkg::Lock::Timeout=600 >&2
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -o DPkg::Lock::Timeout=600 -y chromium >&2
fi
if [ "$tools_ok" -eq 1 ]; then
  mkdir -p "$out/screenshots"
  node "$tools/browser.mjs" "$out/playground" "$vectors" "$out/screenshots" >&2
  echo "package-wasm: the playground passes in Chromium; screenshots in $out/screenshots" >&2
else
  skipped "no playwright-core, so no browser test"
fi
