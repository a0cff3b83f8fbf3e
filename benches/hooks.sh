#!/usr/bin/env bash
# Per-call cost of each hook against the kind of script it replaces (issue 17):
# `airlock hook write-scope` vs a bash+jq PreToolUse guard, `airlock hook send-gate`
# vs a stdlib-only python3 gate. The replaced scripts are not in this repository
# (the seeds describe them): the baselines below are minimal stand-ins doing the
# same work (parse the call's JSON, resolve the path / scan the text, decide), so
# they bound the originals from below. Wall time per call, CALLS calls each,
# alternated in blocks of 10. Reports only.
#   benches/hooks.sh [CALLS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
calls="${1:-200}"
cd "$root"
cargo build --release --locked -q -p airlock-cli
bin="${CARGO_TARGET_DIR:-$root/target}/release/airlock"
work="$(mktemp -d "${TMPDIR:-/tmp}/airlock-hooks.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/src" "$work/tree/tmp/audit" "$work/state"
echo audit >"$work/tree/AUDIT.md"
write_call="{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"src/x.ts\",\"content\":\"x\"},\"cwd\":\"$work/tree\"}"
send_call='{"hook_event_name":"PreToolUse","tool_name":"mcp__mail__send_email","tool_input":{"to":"a@b.c","body":"Hello, the build is green again after the cache fix."}}'
cat >"$work/guard.sh" <<'SH'
#!/usr/bin/env bash
# Stand-in for a bash+jq write guard: allow the audit paths, deny the rest.
set -u
input=$(cat) || exit 2
tool=$(jq -r '.tool_name // empty' <<<"$input") || exit 2
path=$(jq -r '.tool_input.file_path // empty' <<<"$input") || exit 2
cwd=$(jq -r '.cwd // empty' <<<"$input") || exit 2
case "$tool" in Write|Edit|NotebookEdit) ;; *) exit 0 ;; esac
real=$(cd "$cwd" && realpath -m -- "$path") || exit 2
case "$real" in "$cwd/AUDIT.md"|"$cwd"/tmp/audit/*) exit 0 ;; esac
jq -cn --arg r "write outside the audit paths: $path" \
  '{hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"deny",permissionDecisionReason:$r}}'
SH
cat >"$work/gate.py" <<'PY'
# Stand-in for a stdlib-only python3 send gate: parse, scan the text, decide.
import json, re, sys, unicodedata
call = json.load(sys.stdin)
text = " ".join(str(v) for v in call.get("tool_input", {}).values())
hidden = [c for c in text if unicodedata.category(c) in ("Cf", "Cc") and c not in "\t\n"]
if hidden or re.search(r"(?i)ignore (all|previous) instructions", text):
    print("BLOCKED", file=sys.stderr)
    sys.exit(2)
PY
chmod +x "$work/guard.sh"
per_call() { # NAME STDIN COMMAND... -> ms per call
  local input="$1"; shift
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$calls"); do "$@" <<<"$input" >/dev/null 2>&1 || true; done
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v n="$calls" 'BEGIN { printf "%.2f", ns / n / 1e6 }'
}
ws=$(cd "$work/tree" && per_call "$write_call" "$bin" hook write-scope --allow AUDIT.md --allow-dir tmp/audit --allow-tool Read)
jqg=$(per_call "$write_call" "$work/guard.sh")
sg=$(AIRLOCK_SEND_GATE_CONFIG="$root/cli/send-gate.example.json" AIRLOCK_SEND_GATE_STATE="$work/state" \
  per_call "$send_call" "$bin" hook send-gate)
py=$(per_call "$send_call" python3 "$work/gate.py")
printf '%-34s %12s %12s %8s\n' hook "airlock ms" "script ms" speedup
printf '%-34s %12s %12s %8.1f\n' "write-scope vs bash+jq guard" "$ws" "$jqg" "$(awk -v a="$ws" -v b="$jqg" 'BEGIN { print b / a }')"
printf '%-34s %12s %12s %8.1f\n' "send-gate vs python3 gate" "$sg" "$py" "$(awk -v a="$sg" -v b="$py" 'BEGIN { print b / a }')"
