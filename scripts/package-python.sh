#!/usr/bin/env bash
# Writes the Python wheels into OUT:
#
#   airlock-<version>-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
#   airlock-<version>-cp39-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
#
# One abi3 wheel per platform serves CPython 3.9 and later. Both are cross-linked by
# maturin through zig against glibc 2.17 (manylinux2014), so the x86-64 wheel does
# not carry this machine's glibc requirement; `pip install` of a wheel needs no Rust.
#
# Usage: scripts/package-python.sh OUT
#   PYTHON_VENV=DIR  the venv with python/requirements-dev.txt installed (made, and
#                    filled from PyPI, when absent)
#   TARGETS="..."    the Rust targets (default: both above)
set -euo pipefail
[ "$#" -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
venv="${PYTHON_VENV:-$root/python/target/venv}"
targets="${TARGETS:-x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu}"

if [ ! -x "$venv/bin/maturin" ] || [ ! -x "$venv/bin/python-zig" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/python/requirements-dev.txt"
fi
for t in $targets; do
  rustup target list --installed 2>/dev/null | grep -qx "$t" || rustup target add "$t"
done

cd "$root/python"
# The targets build at the same time, each in its own target dir: a release build
# with one codegen unit and LTO spends most of its time in a few crates compiled one
# after the other (core, ffi, this crate), so two targets side by side fill both
# cores of a two-core machine. Each build's log is printed when it ends.
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
pids=()
for t in $targets; do
  # ziglang's `python -m ziglang` is what maturin --zig runs; the venv's bin first.
  PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --release --locked --zig \
    --target "$t" --target-dir "$root/python/target/build-$t" \
    --compatibility manylinux2014 --out "$out" > "$logs/$t.log" 2>&1 &
  pids+=("$!")
done
failed=0
i=0
for t in $targets; do
  if wait "${pids[$i]}"; then
    tail -n 3 "$logs/$t.log"
  else
    cat "$logs/$t.log"
    echo "package-python: the $t wheel did not build (above)" >&2
    failed=1
  fi
  i=$((i + 1))
done
[ "$failed" = 0 ] || exit 1
ls -1 "$out"/*.whl
