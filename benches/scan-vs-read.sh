#!/usr/bin/env bash
# `airlock scan` over a large tree against just reading every file of it, warm cache:
# the ratio read time / scan time (issue 17 asks for >= 0.5). Reports, never gates.
#
# Usage: benches/scan-vs-read.sh [TREE]   (default: ~/.cargo/registry/src)
# Each side runs 5 times, interleaved; the best time of each is compared. "Read" is
# every regular file read to the end in one process (Python's `os.walk`, 1 MiB reads:
# no process per file), and by `cat` on every core (`xargs -P`); the ratio is shown
# against both. `BASELINE=path/to/airlock` also times another build of scan.
set -euo pipefail
cd "$(dirname "$0")/.."
tree="${1:-$HOME/.cargo/registry/src}"
cargo build --release --locked -p airlock-cli --quiet
bin="$PWD/target/release/airlock"
cores="$(nproc)"
files="$(find "$tree" -type f | wc -l)"
bytes="$(du -sb "$tree" | cut -f1)"

now() { date +%s.%N; }
best() { printf '%s\n' "$@" | sort -g | head -n1; }
timed() {
  local t0 t1
  t0="$(now)"
  "$@" >/dev/null 2>&1 || true
  t1="$(now)"
  echo "$t1 - $t0" | bc -l
}

# Warm the page cache.
find "$tree" -type f -print0 | xargs -0 cat >/dev/null
read1=() readn=() scan=() base=()
reader='import os,sys
for d,_,fs in os.walk(sys.argv[1]):
    for f in fs:
        p=os.path.join(d,f)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p,"rb",buffering=0) as h:
                while h.read(1<<20): pass'
for _ in 1 2 3 4 5; do
  read1+=("$(timed python3 -c "$reader" "$tree")")
  readn+=("$(timed sh -c "find '$tree' -type f -print0 | xargs -0 -n 64 -P $cores cat")")
  scan+=("$(timed "$bin" scan "$tree")")
  if [ -n "${BASELINE:-}" ]; then base+=("$(timed "$BASELINE" scan "$tree")"); fi
done
r1="$(best "${read1[@]}")" rn="$(best "${readn[@]}")" s="$(best "${scan[@]}")"
printf 'tree %s: %s files, %s bytes, %s cores\n' "$tree" "$files" "$bytes" "$cores"
printf 'read, one process   %.3f s\n' "$r1"
printf 'read, every core    %.3f s\n' "$rn"
printf 'airlock scan        %.3f s\n' "$s"
if [ -n "${BASELINE:-}" ]; then
  b="$(best "${base[@]}")"
  printf 'baseline scan       %.3f s (%s)\n' "$b" "$BASELINE"
  printf 'ratio read(1 process) / baseline scan %.2f\n' "$(echo "$r1 / $b" | bc -l)"
fi
printf 'ratio read(1 process) / scan %.2f\n' "$(echo "$r1 / $s" | bc -l)"
printf 'ratio read(all cores) / scan %.2f\n' "$(echo "$rn / $s" | bc -l)"
