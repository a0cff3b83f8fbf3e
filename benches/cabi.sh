#!/usr/bin/env bash
# C ABI vs core, side by side (issue 17): the exported functions (benches/cabi.c,
# linked against release libairlock.so) and core's functions (corebench) on the
# same fresh 64 KiB pieces of 16 MiB of mixed prose, both validating their input,
# thread CPU time, alternated ROUNDS times (medians). Reports only.
#   benches/cabi.sh [ROUNDS] [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-5}" secs="${2:-0.5}"
cd "$root"
cargo build --release --locked -q -p airlock-ffi -p airlock-benches --bin corebench --bin gen
lib="${CARGO_TARGET_DIR:-$root/target}/release"
work="$(mktemp -d "${TMPDIR:-/tmp}/airlock-cabi.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$lib/gen" mixed 16 "$work/mixed.txt"
gcc -std=c99 -O2 -Wall -Wextra -I"$root/include" benches/cabi.c -L"$lib" -lairlock \
  -Wl,-rpath,"$lib" -o "$work/cabi"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-10s %10s %10s %8s\n' op "C ABI GB/s" "core GB/s" ratio
for op in sanitize strip fence; do
  : >"$work/c" && : >"$work/r"
  for _ in $(seq "$rounds"); do
    "$work/cabi" "$op" "$work/mixed.txt" "$secs" >>"$work/c"
    "$lib/corebench" "$op" "$work/mixed.txt" "$secs" >>"$work/r"
  done
  c="$(median <"$work/c")" r="$(median <"$work/r")"
  printf '%-10s %10s %10s %8.3f\n' "$op" "$c" "$r" "$(awk -v c="$c" -v r="$r" 'BEGIN { print c / r }')"
done
