#!/usr/bin/env bash
# Instructions per byte (callgrind's Ir) of scan, strip and sanitize over 1 MiB of
# clean and mixed text: a repeatable measure where timing ratios are noisy. Each
# figure is (Ir of a run doing the operation once) - (Ir of a run doing it zero
# times), divided by the text length. AVX2 runs under valgrind; AVX-512 would not
# (instr forces dense drop regions onto AVX2 + BMI2). AIRLOCK_FORCE_PORTABLE=1: SWAR.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p airlock-benches --bin instr
bin=target/release/instr
ir() {
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$@" >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    rm -f "$out"
}
printf '%-16s %-24s %12s\n' op kind 'Ir/byte'
for op in memcpy scan strip sanitize_prose strict-strip strict-sanitize; do
    for kind in clean-ascii mixed hostile-invisible hostile-literal-prefix; do
        base=$(ir "$op" "$kind" 0)
        one=$(ir "$op" "$kind" 1)
        awk -v a="$one" -v b="$base" -v op="$op" -v kind="$kind" \
            'BEGIN { printf "%-16s %-24s %12.3f\n", op, kind, (a - b) / 1048576 }'
    done
done
