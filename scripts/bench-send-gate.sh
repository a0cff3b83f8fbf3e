#!/usr/bin/env bash
# The send gate's cost per call, two ways.
#
#   scripts/bench-send-gate.sh cpu [ROUNDS] [CALLS] [BASE]
#     The gate's CPU per call (the whole decision: configuration loaded and compiled, the
#     call parsed, every string decoded, rendered, folded and scanned, the digest, the
#     ledger look-up), in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, so a loaded
#     machine does not add the time the thread waited for a core), on each fixture below,
#     for this work tree ("after") and for commit BASE ("before", default: the merge base
#     with main), built from the same example (hooks/examples/send_gate_cpu.rs) and run
#     interleaved: ROUNDS rounds (default 9) of before then after, CALLS calls per fixture
#     each (default 200). Prints, per fixture, the median over rounds of each round's
#     median, in µs. Goal: the 10 KB HTML mail in at most 2 ms.
#
#   scripts/bench-send-gate.sh fixtures DIR
#     Writes the fixtures to DIR (one tool call per file), for a profiler:
#     valgrind --tool=callgrind target/release/examples/send_gate_cpu \
#       cli/send-gate.example.json STATE 20 DIR/html-10k.json
#
#   scripts/bench-send-gate.sh latency [CALLS] [BINARY]
#     Wall-clock latency of `airlock hook send-gate` as Claude Code runs it: process start,
#     reading one call, the decision, the ledger. Goal: under 4 ms per call.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-cpu}
shift || true

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

slack() { # text (JSON-escaped)
    printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__slack__slack_send_message","tool_input":{"channel":"C0123","message":"%s"}}' "$1"
}
html=$(printf '<p>The invoice went out on Tuesday; the <a href=\\"https://example.com/i/42\\">copy is here</a>.</p>%.0s' {1..20})

# A 10 KB HTML mail as mail clients write them: a layout table, inline styles, links, a
# signature, Outlook's conditional comment.
mail_10k() {
    local row i
    row='<tr><td style=\"padding:8px 16px;font-family:Arial,sans-serif;font-size:14px;line-height:20px;color:#333333;background-color:#ffffff\">Line item: the quarterly report for the <a href=\"https://example.com/r/ROW\" style=\"color:#1a73e8;text-decoration:underline\">north region</a>, reviewed on Tuesday.</td></tr>'
    printf '%s' '<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>td{font-family:Arial}</style><!--[if mso]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]--></head><body style=\"margin:0;background:#f4f4f4\"><table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" bgcolor=\"#f4f4f4\"><tr><td align=\"center\"><table width=\"600\" style=\"background:#ffffff;border:1px solid #dddddd\">'
    for i in $(seq 1 32); do printf '%s' "${row//ROW/$i}"; done
    printf '%s' '<tr><td style=\"padding:16px;color:#777777;font-size:12px\">Ann Example<br>Example Ltd &middot; 1 Example Street<br><a href=\"mailto:ann@example.com\">ann@example.com</a></td></tr></table></td></tr></table></body></html>'
}
gmail() { # tool_input fields (JSON)
    printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__workspace-mcp__send_gmail_message","tool_input":{"to":"ann@example.com",%s}}' "$1"
}
raw_mime() {
    printf 'From: bot@example.com\r\nTo: ann@example.com\r\nSubject: =?utf-8?B?UXVhcnRlcmx5IHJlcG9ydA==?=\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
    for i in $(seq 1 20); do printf 'The quarterly report for the north region was reviewed on Tuesday, r=\r\nrow %s.\r\n' "$i"; done
    printf '\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n'
    printf '<p>The quarterly report for the north region was reviewed on Tuesday.</p>%.0s' {1..20} | base64 -w 76 | sed 's/$/\r/'
    printf '\r\n--b1--\r\n'
}

fixtures() { # dir
    local d=$1
    mkdir -p "$d"
    slack 'Thank you for the notes; Tuesday works.' >"$d/plain.json"
    slack 'Sorry for the delay, I went quiet.' >"$d/register-block.json"
    slack $'a\u200bb' >"$d/hidden-block.json"
    slack "$html" >"$d/html-2k.json"
    slack "$(mail_10k)" >"$d/html-10k.json"
    gmail "\"body\":\"see raw\",\"raw\":\"$(raw_mime | base64 -w 0 | tr '+/' '-_')\"" >"$d/mime-raw.json"
    printf '{"tool_name":"mcp__gmail__search_threads","tool_input":{"q":"x"}}' >"$d/exempt.json"
}

cpu() {
    local rounds=${1:-9} calls=${2:-200} base=${3:-}
    [[ -n $base ]] || base=$(git -C "$repo" merge-base HEAD main)
    fixtures "$work/fixtures"
    printf 'html-10k fixture: %d bytes of tool call\n' "$(wc -c <"$work/fixtures/html-10k.json")" >&2
    # Before: BASE's sources with this tree's bench example, built in a target directory
    # of its own (the two would otherwise overwrite each other's example binary).
    mkdir -p "$work/base"
    git -C "$repo" archive "$base" | tar -x -C "$work/base"
    mkdir -p "$work/base/hooks/examples"
    cp "$repo/hooks/examples/send_gate_cpu.rs" "$work/base/hooks/examples/"
    local target=${CARGO_TARGET_DIR:-$repo/target}
    cargo build -q --release -p airlock-hooks --example send_gate_cpu \
        --manifest-path "$work/base/Cargo.toml" --target-dir "$target/bench-base" >&2
    cargo build -q --release -p airlock-hooks --example send_gate_cpu \
        --manifest-path "$repo/Cargo.toml" --target-dir "$target" >&2
    local before=$target/bench-base/release/examples/send_gate_cpu
    local after=$target/release/examples/send_gate_cpu
    mkdir -p "$work/state/ledger" && chmod 700 "$work/state" "$work/state/ledger"
    local cfg=$repo/cli/send-gate.example.json r
    local files=("$work"/fixtures/*.json)
    for ((r = 0; r < rounds; r++)); do
        "$before" "$cfg" "$work/state" "$calls" "${files[@]}" | sed 's/^/before\t/' >>"$work/samples"
        "$after" "$cfg" "$work/state" "$calls" "${files[@]}" | sed 's/^/after\t/' >>"$work/samples"
    done
    printf 'CPU per call (thread CPU time), median of %d interleaved rounds of %d calls; base %s\n' \
        "$rounds" "$calls" "$(git -C "$repo" rev-parse --short "$base")"
    python3 - "$work/samples" <<'EOF'
import statistics, sys
rows = {}
verdicts = {}
for line in open(sys.argv[1]):
    side, name, median, _min, verdict = line.rstrip("\n").split("\t")
    rows.setdefault(name, {}).setdefault(side, []).append(float(median))
    verdicts[(name, side)] = verdict
print(f"{'fixture':<16} {'before µs':>10} {'after µs':>10}  after's verdict")
for name, sides in rows.items():
    b = statistics.median(sides["before"])
    a = statistics.median(sides["after"])
    print(f"{name:<16} {b:>10.1f} {a:>10.1f}  {verdicts[(name, 'after')]}")
EOF
}

latency() {
    local calls=${1:-300}
    local bin=${2:-$repo/target/release/airlock}
    if [[ ! -x $bin ]]; then
        cargo build --release -p airlock-cli --manifest-path "$repo/Cargo.toml" >&2
    fi
    export AIRLOCK_SEND_GATE_CONFIG=$repo/cli/send-gate.example.json
    export AIRLOCK_SEND_GATE_STATE=$work/state
    export HOME=$work/home
    bench() { # label input [ground]
        local label=$1 input=$2 start end i per_call_us
        start=$(date +%s%N)
        for ((i = 0; i < calls; i++)); do
            "$bin" hook send-gate <<<"$input" >/dev/null 2>&1 || true
        done
        end=$(date +%s%N)
        per_call_us=$(((end - start) / calls / 1000))
        printf '%-40s %6d calls  %5d.%03d ms/call\n' "$label" "$calls" \
            $((per_call_us / 1000)) $((per_call_us % 1000))
    }
    local start end i base_us
    start=$(date +%s%N)
    for ((i = 0; i < calls; i++)); do /bin/true <<<"x" >/dev/null; done
    end=$(date +%s%N)
    base_us=$(((end - start) / calls / 1000))
    printf '%-40s %6d calls  %5d.%03d ms/call\n' "baseline (/bin/true)" "$calls" $((base_us / 1000)) $((base_us % 1000))

    bench "block: no ledger (plain text)" "$(slack 'Thank you for the notes; Tuesday works.')"
    bench "block: register pattern" "$(slack 'Sorry for the delay, I went quiet.')"
    bench "block: hidden code point" "$(slack $'a\u200bb')"
    bench "block: no ledger (2 KB of HTML)" "$(slack "$html")"
    bench "block: no ledger (10 KB HTML mail)" "$(slack "$(mail_10k)")"
    bench "exempt: read tool" '{"tool_name":"mcp__gmail__search_threads","tool_input":{"q":"x"}}'

    # A full pass: scan, digest, ledger claimed, validated, logged, spent.
    local call digest write_us passed=0 per_call_us
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
    start=$(date +%s%N)
    for ((i = 0; i < calls; i++)); do
        ledger_for "$(date -u +%Y-%m-%dT%H:%M:%S).$(printf '%06d' "$i")Z" >"$work/state/ledger/$digest.json"
        if "$bin" hook send-gate <<<"$call" >/dev/null 2>&1; then passed=$((passed + 1)); fi
    done
    end=$(date +%s%N)
    per_call_us=$(((end - start) / calls / 1000 - write_us))
    printf '%-40s %6d calls  %5d.%03d ms/call  (%d passed; ledger filing subtracted)\n' "pass: valid ledger, logged, spent" "$calls" \
        $((per_call_us / 1000)) $((per_call_us % 1000)) "$passed"
}

case $mode in
    cpu) cpu "$@" ;;
    latency) latency "$@" ;;
    fixtures) fixtures "${1:?usage: $0 fixtures DIR}" ;;
    -h | --help) sed -n '2,23p' "$0" ;;
    *) echo "usage: $0 cpu [ROUNDS] [CALLS] [BASE] | latency [CALLS] [BINARY] | fixtures DIR" >&2; exit 2 ;;
esac
