#!/usr/bin/env bash
# Per-call latency of `airlock hook send-gate`: process start, reading one call, loading and
# compiling the configuration, scanning every string, the digest and the ledger. Claude Code runs
# the hook before every gated tool call. Goal: under 4 ms per call.
#
# Usage: scripts/bench-send-gate.sh [CALLS] [BINARY]
#   CALLS   number of calls per scenario (default 300)
#   BINARY  airlock binary (default: target/release/airlock, built if missing)
set -euo pipefail

calls=${1:-300}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$repo/target/release/airlock}
if [[ ! -x $bin ]]; then
    cargo build --release -p airlock-cli --manifest-path "$repo/Cargo.toml" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AIRLOCK_SEND_GATE_CONFIG=$repo/cli/send-gate.example.json
export AIRLOCK_SEND_GATE_STATE=$work/state
export HOME=$work/home

slack() { # text
    printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__slack__slack_send_message","tool_input":{"channel":"C0123","message":"%s"}}' "$1"
}
html=$(printf '<p>The invoice went out on Tuesday; the <a href=\\"https://example.com/i/42\\">copy is here</a>.</p>%.0s' {1..20})

bench() { # label input [ground]
    local label=$1 input=$2 ground=${3:-} start end i per_call_us
    start=$(date +%s%N)
    for ((i = 0; i < calls; i++)); do
        if [[ -n $ground ]]; then
            # Filing the ledger is the composer's cost, not the hook's; it is
            # inside the loop only because a ledger is spent by one send.
            printf '%s' "$ground" >"$work/state/ledger/$digest.json"
        fi
        "$bin" hook send-gate <<<"$input" >/dev/null 2>&1 || true
    done
    end=$(date +%s%N)
    per_call_us=$(((end - start) / calls / 1000))
    printf '%-40s %6d calls  %5d.%03d ms/call\n' "$label" "$calls" \
        $((per_call_us / 1000)) $((per_call_us % 1000))
}

start=$(date +%s%N)
for ((i = 0; i < calls; i++)); do /bin/true <<<"x" >/dev/null; done
end=$(date +%s%N)
base_us=$(((end - start) / calls / 1000))
printf '%-40s %6d calls  %5d.%03d ms/call\n' "baseline (/bin/true)" "$calls" $((base_us / 1000)) $((base_us % 1000))

bench "block: no ledger (plain text)" "$(slack 'Thank you for the notes; Tuesday works.')"
bench "block: register pattern" "$(slack 'Sorry for the delay, I went quiet.')"
bench "block: hidden code point" "$(slack $'a\u200bb')"
bench "block: no ledger (2 KB of HTML)" "$(slack "$html")"
bench "exempt: read tool" '{"tool_name":"mcp__gmail__search_threads","tool_input":{"q":"x"}}'

# A full pass: scan, digest, ledger claimed, validated, logged, spent.
call=$(slack 'Thank you for the notes; Tuesday works.')
digest=$("$bin" guard sha <<<"$call")
mkdir -p "$work/state/ledger"
chmod 700 "$work/state" "$work/state/ledger"
ledger_for() { # created_at
    printf '{"created_at":"%s","message_sha256":"%s","is_reply":false,"no_factual_claims":true,"voice_rules_pass":true,"invented_precision_scan":true,"recipient_address_check":true,"ragbot_branding_check":true}' "$1" "$digest"
}
start=$(date +%s%N)
for ((i = 0; i < calls; i++)); do
    # A new created_at each time: a ledger that passed once is refused.
    ledger_for "$(date -u +%Y-%m-%dT%H:%M:%S).$(printf '%06d' "$i")Z" >"$work/state/ledger/$digest.json"
done
end=$(date +%s%N)
write_us=$(((end - start) / calls / 1000))
passed=0
start=$(date +%s%N)
for ((i = 0; i < calls; i++)); do
    ledger_for "$(date -u +%Y-%m-%dT%H:%M:%S).$(printf '%06d' "$i")Z" >"$work/state/ledger/$digest.json"
    if "$bin" hook send-gate <<<"$call" >/dev/null 2>&1; then passed=$((passed + 1)); fi
done
end=$(date +%s%N)
per_call_us=$(((end - start) / calls / 1000 - write_us))
printf '%-40s %6d calls  %5d.%03d ms/call  (%d passed; ledger filing subtracted)\n' "pass: valid ledger, logged, spent" "$calls" \
    $((per_call_us / 1000)) $((per_call_us % 1000)) "$passed"
