#!/usr/bin/env bash
# A longer fuzz campaign: every target for SECONDS each (default 300), one after the
# other, on one core, into a scratch copy of the committed corpus. Prints a summary
# line per target (executions, seconds, coverage, crashes) for ROBUSTNESS.md.
#   fuzz/campaign.sh [seconds-per-target] [target...]
set -uo pipefail
cd "$(dirname "$0")"
secs="${1:-300}"; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
cargo +nightly fuzz build -O >/dev/null 2>&1 || { echo "campaign: build failed" >&2; exit 2; }
status=0
for target in "${targets[@]}"; do
  work=$(mktemp -d)
  [ -d "corpus/$target" ] && cp -r "corpus/$target/." "$work/"
  log="$work.log"
  start=$(date +%s)
  cargo +nightly fuzz run -O "$target" "$work" -- -max_total_time="$secs" -max_len=65536 \
    -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1
  code=$?
  end=$(date +%s)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  result=clean
  if [ $code -ne 0 ]; then result="FAILED (exit $code, see fuzz/artifacts/$target)"; status=1; tail -30 "$log"; fi
  echo "campaign: $target execs=${execs:-?} seconds=$((end-start)) cov=${cov:-?} corpus=$(ls "$work" | wc -l) $result"
  rm -rf "$work" "$log"
done
exit $status
