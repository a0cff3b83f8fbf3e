#!/usr/bin/env bash
# Guest instructions per byte of core's operations on aarch64, NEON against portable,
# under qemu-user: the instructions an arm64 CPU would retire, counted without one.
# Debian's qemu-user ships no TCG plugins (no libinsn.so), so this counts from qemu's
# own logs: `-d in_asm` prints each translated block's instructions once, `-d
# exec,nochain` logs every execution of a block (chaining off, so none is skipped);
# the count is the sum over executions of the block's length. Each figure is (a run
# doing the operation once) - (a run doing it zero times) over 1 MiB of fresh text
# (`instr`, the callgrind binary), so generation and setup cancel.
#
# `benches/qemu-instr.sh [op ...]` (default: scan strip sanitize_prose strict-strip).
# Slow: qemu logs a line per block executed (minutes on a loaded machine).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
cargo build -q --release --locked --target aarch64-unknown-linux-gnu -p airlock-benches --bin instr
bin="${CARGO_TARGET_DIR:-target}"/aarch64-unknown-linux-gnu/release/instr

count() {
  qemu-aarch64 -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain "$bin" "$@" 2>&1 >/dev/null |
    awk '
      /^IN:/ { block = 1; first = ""; n = 0; next }
      block && /^0x[0-9a-f]+:/ { if (first == "") first = $1; n++; next }
      block && /^$/ { if (first != "") { sub(":", "", first); len[first] = n } block = 0; next }
      /^Trace / {
        split($0, a, "/"); pc = "0x" a[2]; sub(/^0x0*/, "0x", pc)
        total += len[pc]
      }
      END { printf "%d\n", total }'
}

ops=("$@")
[ "${#ops[@]}" -gt 0 ] || ops=(scan strip sanitize_prose strict-strip)
printf '%-16s %-12s %10s %10s %8s\n' op kind portable neon ratio
for op in "${ops[@]}"; do
  for kind in clean-ascii mixed; do
    p0=$(AIRLOCK_FORCE_PORTABLE=1 count "$op" "$kind" 0)
    p1=$(AIRLOCK_FORCE_PORTABLE=1 count "$op" "$kind" 1)
    n0=$(count "$op" "$kind" 0)
    n1=$(count "$op" "$kind" 1)
    awk -v p0="$p0" -v p1="$p1" -v n0="$n0" -v n1="$n1" -v op="$op" -v kind="$kind" \
      'BEGIN { p = (p1 - p0) / 1048576; n = (n1 - n0) / 1048576;
               printf "%-16s %-12s %10.3f %10.3f %8.2f\n", op, kind, p, n, (n > 0 ? p / n : 0) }'
  done
done
