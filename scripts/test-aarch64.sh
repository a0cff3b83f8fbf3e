#!/usr/bin/env bash
# core's and ffi's test suites for aarch64-unknown-linux-gnu, cross-built and run
# under qemu-user: the NEON backend (and the portable one beside it) through every
# per-backend, property and exhaustive test. Installs what it needs (Debian's
# qemu-user, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross; rustup's target).
#
# The test profile, as on x86: every crate at opt-level 2 (the workspace's
# Cargo.toml), overflow checks and debug assertions on. `--release` runs the release
# profile instead.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=()
[ "${1:-}" = "--release" ] && profile=(--release)

say() { printf '%s\n' "test-aarch64: $*"; }

need=()
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || need+=(libc6-dev-arm64-cross)
if [ "${#need[@]}" -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}"
fi
rustup target list --installed | grep -qx aarch64-unknown-linux-gnu ||
  rustup target add aarch64-unknown-linux-gnu

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"

# ffi's cdylib links with its version script (GNU ld takes it for any ELF target);
# the check below reads the exports of the library the tests were built beside.
cargo test "${profile[@]}" --locked --target aarch64-unknown-linux-gnu \
  -p airlock-core -p airlock-ffi

dir=target/aarch64-unknown-linux-gnu/"$([ "${#profile[@]}" -gt 0 ] && echo release || echo debug)"
so="$dir/libairlock.so"
cargo build "${profile[@]}" --locked --target aarch64-unknown-linux-gnu -p airlock-ffi --quiet
readelf -h "$so" | grep -q 'Machine:.*AArch64' || { say "FAIL: $so is not AArch64"; exit 1; }
bad="$(readelf --dyn-syms -W "$so" | awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' |
  grep -v '^airlock_' || true)"
[ -z "$bad" ] || { say "FAIL: $so exports more than airlock_*: $bad"; exit 1; }
say "core and ffi pass on aarch64 (qemu); $so exports only airlock_*"
