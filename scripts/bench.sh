#!/usr/bin/env bash
# The bench command (issue 17): reports every ratio against its ambitious target and
# never fails; the test command gates the floors (scripts/test-all.sh). Each section
# prints what BENCHMARKS.md's end-to-end table records.
#   scripts/bench.sh [gate|cli|cabi|hooks|node]...   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
sections=("$@")
[ "${#sections[@]}" -gt 0 ] || sections=(gate cli cabi hooks node)
for section in "${sections[@]}"; do
  case "$section" in
    gate)
      printf '\n==> core ratios, full rounds, against targets (SIMD, then portable)\n'
      cargo run --release --locked -q -p airlock-benches --bin gate -- --report
      cargo run --release --locked -q -p airlock-benches --bin gate -- --report --portable
      ;;
    cli)
      printf '\n==> CLI, whole process on 256 MiB of mixed prose vs cat of the same file\n'
      cargo build --release --locked -q -p airlock-cli -p airlock-benches --bin gen
      python3 benches/cli.py
      ;;
    cabi) printf '\n==> C ABI vs core\n'; benches/cabi.sh ;;
    hooks) printf '\n==> hooks per call\n'; benches/hooks.sh ;;
    node)
      printf '\n==> Node binding vs the JavaScript reference, interleaved, Node 20 then Node 24\n'
      cargo build --release --locked -q -p airlock-ffi
      (cd ffi/node && npm ci --no-audit --no-fund --silent)
      node24="$(scripts/node24.sh)"
      for node in node "$node24"; do
        (cd ffi/node && "$node" bench/interleaved.mjs && "$node" bench/options.mjs)
      done
      ;;
    *) echo "bench.sh: unknown section $section" >&2; exit 2 ;;
  esac
done
