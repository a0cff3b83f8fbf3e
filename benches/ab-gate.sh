#!/usr/bin/env bash
# Interleaved A/B of the ratio gate against another revision (default: main), in one
# run and both orders: A B B A … per round, so drift on a shared machine falls on both
# sides. Builds the gate binary of that revision (exported with `git archive`, the
# repository untouched) and of this tree, each in a target directory of its own, and
# runs both on each backend asked for: `avx512` (the CPU's best, if it has it),
# `avx2` (`--avx2`) and `portable` (`--portable`). Prints every run's rows, labelled;
# compare a row's ratios across the two sides (the gate's ratios are against
# baselines measured in the same process, so A and B are comparable).
#
# `benches/ab-gate.sh [--rev REV] [--rounds N] [backend ...]` (default: main, 2,
# avx512 avx2 portable). A move of x86 kernels lands only when no row of any backend
# is slower on this tree (core/DESIGN.md, issue 29).
set -euo pipefail
cd "$(dirname "$0")/.."

rev=main
rounds=2
backends=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rev) rev="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    avx512|avx2|portable) backends+=("$1"); shift ;;
    *) printf 'usage: %s [--rev REV] [--rounds N] [avx512|avx2|portable ...]\n' "$0" >&2; exit 2 ;;
  esac
done
[ "${#backends[@]}" -gt 0 ] || backends=(avx512 avx2 portable)

work="$(mktemp -d "${TMPDIR:-/tmp}/airlock-ab.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/a"
git archive "$rev" | tar -x -C "$work/a"

build() { # dir target-dir
  (cd "$1" && CARGO_TARGET_DIR="$2" cargo build -q --release --locked -p airlock-benches --bin gate)
}
build "$work/a" "$work/target-a"
build "$PWD" "$work/target-b"
a="$work/target-a/release/gate"
b="$work/target-b/release/gate"

flags() {
  case "$1" in
    avx512) ;;
    avx2) echo --avx2 ;;
    portable) echo --portable ;;
  esac
}

run() { # label binary backend
  # --report: every ratio printed, never a failing exit (a side's floor is not the
  # question here, the two sides' difference is).
  # shellcheck disable=SC2046
  "$2" --report $(flags "$3") | sed "s/^/$1 $3: /"
}

for backend in "${backends[@]}"; do
  for ((round = 1; round <= rounds; round++)); do
    if [ $((round % 2)) -eq 1 ]; then
      run "A($rev)" "$a" "$backend"; run "B(tree)" "$b" "$backend"
    else
      run "B(tree)" "$b" "$backend"; run "A($rev)" "$a" "$backend"
    fi
  done
done
