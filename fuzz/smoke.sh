#!/usr/bin/env bash
# A short fuzz smoke: every target for a few seconds from the committed corpus.
# Usage: fuzz/smoke.sh [seconds-per-target]   (default 5)
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-5}"
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "!!! fuzz smoke SKIPPED: no nightly toolchain (cargo +nightly). The proptest" >&2
  echo "!!! properties in core still cover the invariants; install nightly to fuzz." >&2
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: installing cargo-fuzz (pinned)"
  cargo install cargo-fuzz --version 0.13.2 --locked
fi
cargo +nightly fuzz build -O
for target in $(cargo +nightly fuzz list); do
  work="$(mktemp -d)"
  # Fuzz into a scratch copy so the committed corpus only changes on purpose.
  if [ -d "corpus/$target" ]; then cp -r "corpus/$target/." "$work/"; fi
  echo "fuzz smoke: $target (${secs}s)"
  log="$work.log"
  status=0
  # Targets that fuzz a hook's whole decision run under the limits the hook promises. The
  # sanitizer's quarantine of freed memory is off for them: it is resident memory the hook
  # never uses, and would count against the 64 MiB.
  limits=()
  asan="${ASAN_OPTIONS:-}"
  case "$target" in
    write_scope)
      limits=(-rss_limit_mb=64 -timeout=1)
      asan="${asan:+$asan:}quarantine_size_mb=0:allocator_release_to_os_interval_ms=0"
      ;;
    tool_output)
      # Instrumented, the hook's resident memory reaches 64 MiB on inputs whose live heap
      # is about 34 MiB (24 MiB of it libFuzzer's own), so an RSS limit of 64 fails at
      # random here. No single allocation may pass 64 MiB; the 64 MiB peak-RSS promise
      # is held on the release binary by cli/tests/tool_output.rs.
      limits=(-malloc_limit_mb=64 -rss_limit_mb=160 -timeout=1)
      asan="${asan:+$asan:}quarantine_size_mb=0:allocator_release_to_os_interval_ms=0"
      ;;
  esac
  # The hook targets keep per-process state directories under $TMPDIR: a scratch one,
  # removed below, so that no run leaves them behind in /tmp.
  scratch="$(mktemp -d)"
  TMPDIR="$scratch" ASAN_OPTIONS="$asan" cargo +nightly fuzz run -O "$target" "$work" -- -max_total_time="$secs" \
    -max_len=65536 "${limits[@]}" -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E "^stat::number_of_executed_units" "$log" || true
  if [ "$status" -ne 0 ]; then tail -40 "$log" >&2; fi
  rm -f "$log"
  rm -rf "$work" "$scratch"
  if [ "$status" -ne 0 ]; then
    echo "fuzz smoke: $target FAILED (artifacts in fuzz/artifacts/$target)" >&2
    exit 1
  fi
done
echo "fuzz smoke: all targets clean"
