#!/usr/bin/env bash
# Runs every class of malformed hook input through both guards and prints the observed
# decision as a Markdown table (ROBUSTNESS.md carries its output).
#   scripts/fail-closed-matrix.sh [--check] [path/to/airlock]
# With --check (the test command) it also fails unless every malformed input is
# denied by write-scope (exit 2) and blocked by send-gate, and the control write is
# allowed.
set -uo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
bin=$(realpath -m "${1:-target/release/airlock}")
[ -x "$bin" ] || cargo build --release -p airlock-cli --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/src" "$work/state"
printf 'x\n' > "$work/root/AUDIT.md"
ln -s /etc/passwd "$work/root/link.md"
cfg=cli/send-gate.example.json

big="$work/big.json"
python3 - "$big" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"tool_name":"Write","tool_input":{"file_path":"AUDIT.md","content":"')
    f.write("a" * (8 * 1024 * 1024))
    f.write('"}}')
PY
deep='{"tool_name":"mcp__mail__send_email","tool_input":{"body":"x","a":'"$(printf '[%.0s' $(seq 40))1$(printf ']%.0s' $(seq 40))"'}}'

cases=(
  "empty stdin|"
  "whitespace only|   "
  "malformed JSON|{\"tool_name\":"
  "JSON null|null"
  "JSON array|[]"
  "JSON string|\"Write\""
  "object without tool_name|{}"
  "tool_name not a string|{\"tool_name\":5,\"tool_input\":{}}"
  "tool_input not an object|{\"tool_name\":\"Write\",\"tool_input\":\"AUDIT.md\"}"
  "write without a path|{\"tool_name\":\"Write\",\"tool_input\":{}}"
  "path not a string|{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":7}}"
  "NUL in path|{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"AUDIT.md\\u0000x\"}}"
  "ESC in path|{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"AUDIT\\u001b.md\"}}"
  "traversal in new part|{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"tmp/new/../../etc/passwd\"}}"
  "symlinked leaf|{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"link.md\"}}"
  "unknown tool|{\"tool_name\":\"Frobnicate\",\"tool_input\":{}}"
  "duplicate keys|{\"tool_name\":\"Read\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"src/x\"}}"
  "send without text field|{\"tool_name\":\"mcp__mail__send_email\",\"tool_input\":{\"to\":\"a@b.c\"}}"
  "send with hidden Unicode|{\"tool_name\":\"mcp__mail__send_email\",\"tool_input\":{\"body\":\"hi\\u202e\"}}"
  "nesting deeper than 32|$deep"
)

decide_ws() {
  out=$("$bin" hook write-scope --allow AUDIT.md --allow-dir tmp/audit --allow-tool Read "$@" 2>/dev/null)
  code=$?
  # A pattern test, not `printf | grep -q`: under pipefail, printf dies of SIGPIPE
  # when grep stops reading at its first match, and the deny was read as no deny.
  if [[ $out == *'"permissionDecision":"deny"'* ]]; then
    reason=$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["permissionDecisionReason"])' | sed 's/^airlock write-scope: //' | cut -c1-50 | tr '|' '/')
    # A deny is the JSON line and exit 2; anything else would be a regression worth seeing.
    if [ $code -eq 2 ]; then echo "deny: ${reason}…"; else echo "deny, but exit $code: ${reason}…"; fi
  elif [ $code -eq 0 ] && [ -z "$out" ]; then echo "**allow**";
  elif [ $code -ne 0 ]; then echo "exit $code (blocks)";
  else echo "?? $out"; fi
}
decide_sg() {
  err=$(AIRLOCK_SEND_GATE_CONFIG=${AIRLOCK_SEND_GATE_CONFIG:-$cfg} AIRLOCK_SEND_GATE_STATE="$work/state" "$bin" hook send-gate 2>&1 >/dev/null)
  code=$?
  # The first line by expansion (`head -n1` would stop reading early: SIGPIPE).
  reason=$(printf '%s' "${err%%$'\n'*}" | sed 's/^airlock send-gate BLOCKED: //' | cut -c1-60 | tr '|' '/')
  if [ $code -eq 2 ]; then echo "block: ${reason}…"; elif [ $code -eq 0 ]; then echo "**pass**"; else echo "exit $code"; fi
}

bad=0
# expect NAME GOT PATTERN: a glob the observed decision must match.
expect() {
  # shellcheck disable=SC2053
  if [[ $2 != $3 ]]; then echo "fail-closed-matrix: $1: got '$2', expected '$3'" >&2; bad=$((bad + 1)); fi
}

echo "| input | write-scope | send-gate |"
echo "|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}; json=${c#*|}
  json=${json//\"cwd\":\"ROOT\"/}
  ws=$(cd "$work/root" && printf '%s' "$json" | sed "s|^{|{\"cwd\":\"$work/root\",|; s|^{\"cwd\":\"[^\"]*\",}|{}|" | decide_ws)
  sg=$(printf '%s' "$json" | decide_sg)
  echo "| $name | $ws | $sg |"
  expect "$name (write-scope)" "$ws" 'deny: *'; expect "$name (send-gate)" "$sg" 'block: *'
done
ws=$(printf '\xff\xfe{}' | decide_ws); sg=$(printf '\xff\xfe{}' | decide_sg)
echo "| invalid UTF-8 | $ws | $sg |"
expect "invalid UTF-8 (write-scope)" "$ws" 'deny: *'; expect "invalid UTF-8 (send-gate)" "$sg" 'block: *'
ws=$(decide_ws < "$big"); sg=$(decide_sg < "$big")
echo "| input over 8 MiB | $ws | $sg |"
expect "over 8 MiB (write-scope)" "$ws" 'deny: *'; expect "over 8 MiB (send-gate)" "$sg" 'block: *'
ws=$(cd "$work/root" && printf '{"tool_name":"Write","tool_input":{"file_path":"AUDIT.md"},"cwd":"%s"}' "$work/root" | decide_ws)
sg=$(printf '{"tool_name":"mcp__mail__send_email","tool_input":{"body":"hello"}}' | AIRLOCK_SEND_GATE_CONFIG=/nonexistent decide_sg)
echo "| control: allowed write / send with missing config | $ws | $sg |"
expect "control write" "$ws" '\*\*allow\*\*'; expect "missing config" "$sg" 'block: *'
sg=$(printf '{"tool_name":"mcp__mail__send_email","tool_input":{"body":"hello"}}' | AIRLOCK_SEND_GATE_TEST_PANIC=1 decide_sg)
echo "| injected panic (send-gate test hook) | — | $sg |"
expect "injected panic" "$sg" 'block: *'
if [ $check -eq 1 ] && [ $bad -gt 0 ]; then
  echo "fail-closed-matrix: $bad decisions were not fail-closed" >&2
  exit 1
fi
