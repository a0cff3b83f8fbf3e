#!/usr/bin/env bash
# Per-call latency of `airlock hook write-scope`: process start, argument parsing, reading one
# call and deciding it. Claude Code runs the hook before every tool call, so this is the cost an
# agent pays each time. Goal: under 2 ms per call.
#
# Usage: scripts/bench-write-scope.sh [CALLS] [BINARY]
#   CALLS   number of calls per scenario (default 1000)
#   BINARY  airlock binary (default: target/release/airlock, built if missing)
set -euo pipefail

calls=${1:-1000}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$repo/target/release/airlock}
if [[ ! -x $bin ]]; then
    cargo build --release -p airlock-cli --manifest-path "$repo/Cargo.toml" >&2
fi

tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/.git" "$tree/src" "$tree/tmp/audit/sub"
echo audit >"$tree/AUDIT.md"
ln -s tmp/audit/sub "$tree/docs"

call() { # tool path
    printf '{"hook_event_name":"PreToolUse","tool_name":"%s","tool_input":{"file_path":"%s","content":"x"},"cwd":"%s"}' \
        "$1" "$2" "$tree"
}

# Wall time per call, and CPU time (user + system of the hook processes) per call: on a
# shared, loaded machine the wall time mostly measures waiting for a core, the CPU time what
# the hook itself costs.
bench() { # label input [flags...]
    local label=$1 input=$2 start end i
    shift 2
    local flags=("$@")
    [[ ${#flags[@]} -gt 0 ]] || flags=(--allow AUDIT.md --allow-dir tmp/audit)
    local before after
    before=$(cpu_us)
    start=$(date +%s%N)
    for ((i = 0; i < calls; i++)); do
        # A deny exits 2 by design; the loop only times it.
        "$bin" hook write-scope "${flags[@]}" <<<"$input" >/dev/null 2>&1 || true
    done
    end=$(date +%s%N)
    after=$(cpu_us)
    report "$label" $(((end - start) / calls / 1000)) $(((after - before) / calls))
}

# User + system CPU time of this shell's finished children, in microseconds.
cpu_us() {
    local ticks
    ticks=$(awk '{ print $16 + $17 }' "/proc/$$/stat")
    echo $((ticks * 1000000 / $(getconf CLK_TCK)))
}

report() { # label wall_us cpu_us
    printf '%-40s %6d calls  wall %3d.%03d ms/call  cpu %3d.%03d ms/call\n' "$1" "$calls" \
        $(($2 / 1000)) $(($2 % 1000)) $(($3 / 1000)) $(($3 % 1000))
}

# The same loop around `true` shows what the shell's fork and exec cost on their own.
before=$(cpu_us)
start=$(date +%s%N)
for ((i = 0; i < calls; i++)); do /bin/true <<<"x" >/dev/null; done
end=$(date +%s%N)
after=$(cpu_us)
report "baseline (/bin/true)" $(((end - start) / calls / 1000)) $(((after - before) / calls))

bench "allow: existing allowed file" "$(call Write "$tree/AUDIT.md")"
bench "allow: new file in new subdirs" "$(call Write "$tree/tmp/audit/a/b/c.md")"
bench "deny: source file" "$(call Write "$tree/src/x.ts")"
bench "deny: Bash" "$(call Bash "$tree/src/x.ts")"
bench "allow: \`..\` (lexical check too)" "$(call Write "$tree/tmp/audit/sub/../x.md")"
bench "deny: \`..\` after a symlink" "$(call Write "$tree/docs/../../AUDIT.md")"
bench "deny: leading NBSP" "$(call Write $'\u00a0'"$tree/AUDIT.md")"
bench "allow-dir .: protected-name scan" "$(call Write "$tree/src/deep/er/x.ts")" --allow-dir .
bench "deny: .GIT/hooks under allow-dir ." "$(call Write "$tree/.GIT/hooks/pre-commit")" --allow-dir .
