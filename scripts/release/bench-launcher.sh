#!/usr/bin/env bash
# The npm command's launcher overhead: CPU time (user + system, of every child) per
# call of `airlock --version` through node_modules/.bin/airlock (npm's link to the
# package's bin/airlock) against the platform package's binary called directly.
# bin/airlock is that binary itself when npm ran the postinstall (npm/install.cjs), and
# the sh launcher (npm/airlock-launcher.sh, which execs it) under --ignore-scripts:
# bench both by installing twice. Interleaved A/B rounds in one run; reported, not gated.
#
# Usage: scripts/release/bench-launcher.sh PROJECT [CALLS_PER_ROUND] [ROUNDS]
#   PROJECT: a directory whose node_modules has airlock and airlock-linux-x64 installed
set -euo pipefail
project="$(cd "$1" && pwd)" calls="${2:-300}" rounds="${3:-5}"
launcher="$project/node_modules/.bin/airlock"
bare="$(ls "$project"/node_modules/airlock-linux-*/bin/airlock | head -1)"
[ -x "$launcher" ] && [ -x "$bare" ] || { echo "bench-launcher: no installed airlock in $project" >&2; exit 1; }
if [ "$(head -c 2 "$launcher")" = '#!' ]; then echo "bin/airlock: the sh launcher"; else echo "bin/airlock: the native binary"; fi

# cpu_ms CMD: total child CPU in ms of CALLS runs of `CMD --version`.
cpu_ms() {
  local line
  line="$( (for ((i = 0; i < calls; i++)); do "$1" --version >/dev/null; done; times) | tail -1)"
  # `times`' second line: children's user and system, as 0m0.123s 0m0.456s
  awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.3f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' <<<"$line"
}
total_l=0 total_b=0
for ((r = 1; r <= rounds; r++)); do
  b="$(cpu_ms "$bare")"; l="$(cpu_ms "$launcher")"
  printf 'round %d: bare %.3f ms/call, launcher %.3f ms/call\n' "$r" "$(bc -l <<<"$b / $calls")" "$(bc -l <<<"$l / $calls")"
  total_b="$(bc -l <<<"$total_b + $b")" total_l="$(bc -l <<<"$total_l + $l")"
done
n=$((calls * rounds))
printf 'launcher overhead: %.3f ms CPU per call (bare %.3f, through the launcher %.3f; %d calls each)\n' \
  "$(bc -l <<<"($total_l - $total_b) / $n")" "$(bc -l <<<"$total_b / $n")" "$(bc -l <<<"$total_l / $n")" "$n"
