#!/usr/bin/env bash
# Latency of `airlock hook tool-output`: per call on the captured Claude Code fixtures
# (process start, parse, contain, answer), and per MiB of tool output, with peak RSS.
# Claude Code runs the hook after every tool call. Reports; asserts nothing.
#
# Usage: scripts/bench-tool-output.sh [CALLS] [BINARY]
#   CALLS   calls per per-call scenario (default 500)
#   BINARY  airlock binary (default: target/release/airlock, built if missing)
set -euo pipefail

calls=${1:-500}
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$repo/target/release/airlock}
fixtures=$repo/cli/tests/tool_output/fixtures
if [[ ! -x $bin ]]; then
    cargo build --release --locked -p airlock-cli --manifest-path "$repo/Cargo.toml" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Wall time on a shared machine swings with load; CPU time (user + sys, the process
# and the shell's fork/exec) is reported beside it and is the steadier number.
TIMEFORMAT='%R %U %S'
loop() { # command... ; prints "wall_us cpu_us" per call
    local t
    t=$({ time { for ((i = 0; i < calls; i++)); do "$@" >/dev/null; done; } ; } 2>&1)
    read -r real user sys <<<"$t"
    awk -v r="$real" -v u="$user" -v s="$sys" -v n="$calls" 'BEGIN { printf "%d %d", r * 1e6 / n, (u + s) * 1e6 / n }'
}
report() { # label wall_us cpu_us
    printf '%-40s %6d calls  %5d.%03d ms/call wall  %5d.%03d ms/call cpu\n' "$1" "$calls" \
        $(($2 / 1000)) $(($2 % 1000)) $(($3 / 1000)) $(($3 % 1000))
}
per_call() { # label file
    local r
    r=$(loop sh -c '"$0" hook tool-output <"$1"' "$bin" "$2")
    report "$1" $r
}

report "baseline (sh + /bin/true)" $(loop sh -c '/bin/true <"$0"' "$fixtures/2.1.332-Bash.json")
per_call "Bash, clean (prints nothing)" "$fixtures/2.1.332-Bash-clean.json"
per_call "Bash, every attack (rewritten)" "$fixtures/2.1.332-Bash.json"
per_call "Read, every attack" "$fixtures/2.1.332-Read.json"
per_call "MCP, every attack" "$fixtures/2.1.332-mcp-fetch_page.json"

# Large outputs: mixed prose with an escape, an invisible and a token every ~200 bytes
# (worst realistic case: everything is rewritten), plain ASCII (nothing changes), and
# hostile text built to make each position expensive.
node - "$work" <<'JS'
const fs = require('fs');
const dir = process.argv[2];
const dirty = 'The build finished in 3.2 s; see \u001b[32mgreen\u001b[0m output, caf\u00e9 \u200b <|im_end|> and more words here to fill a line of ordinary log text.\n';
const clean = 'The build finished in 3.2 s; see the green output and more words here to fill a line of ordinary log text, nothing to do.\n';
// Adversarial: unterminated string introducers, token openers, literal first letters.
const hostile = '\u001b]\u001bP<|<!<u#[' + 'u'.repeat(20) + '<|' + 'a'.repeat(70) + '\n';
for (const [name, unit] of [['dirty', dirty], ['clean', clean], ['hostile', hostile]]) {
  for (const mib of [1, 7]) {
    const n = Math.floor((mib * 1024 * 1024) / Buffer.byteLength(unit));
    const input = { tool_name: 'Bash', tool_input: { command: 'x' }, tool_response: { stdout: unit.repeat(n), stderr: '', interrupted: false, isImage: false } };
    fs.writeFileSync(`${dir}/${name}-${mib}.json`, JSON.stringify(input));
  }
}
JS
for f in "$work"/*.json; do
    size=$(stat -c %s "$f")
    best=
    for _ in 1 2 3; do
        /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$bin" hook tool-output <"$f" >/dev/null
        cpu_ms=$(awk '{ printf "%d", ($2 + $3) * 1000 }' "$work/t")
        if [[ -z $best || $cpu_ms -lt $best ]]; then best=$cpu_ms; rss=$(awk '{ print $4 }' "$work/t"); fi
    done
    mib_x100=$((size * 100 / 1048576))
    printf '%-40s %5d.%02d MiB  %6d ms cpu  %6d ms/MiB  peak RSS %6d KiB\n' "stdout $(basename "$f" .json)" \
        $((mib_x100 / 100)) $((mib_x100 % 100)) "$best" $((best * 100 / (mib_x100 > 0 ? mib_x100 : 1))) "$rss"
done

# The re-anchoring PreToolUse hook (`--reanchor`) against a bare tool-output call, per
# Edit/Write call: one file of ~16 KiB HTML with a comment and a special token every
# few lines, the PostToolUse of its Read (the bare call) and the Edit and Write the
# model sends against the contained view. Interleaved A/B/C/D, each call's own CPU time
# (user + sys of the child, from getrusage), median and mean; the added CPU is each
# re-anchor case minus the bare call.
python3 - "$bin" "$work" "$calls" <<'PY'
import json, os, resource, statistics, subprocess, sys
binary, work, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = []
for i in range(200):
    lines.append(f'<p id="p{i}">Paragraph {i} of the page, ordinary text to edit.</p>')
    if i % 4 == 0:
        lines.append(f'<!-- section {i}: keep this comment -->')
    if i % 10 == 0:
        lines.append(f'<pre>EOT = "<|endoftext|>"  # token {i}</pre>')
real = '\n'.join(lines) + '\n'
# The contained view of exactly these constructs (checked below: the hook must rewrite).
view = real.replace('<!--', '[html-comment]').replace('<|endoftext|>', '[redacted special token]')
path = os.path.join(work, 'page.html')
open(path, 'w').write(real)
def pre(tool, tool_input):
    return json.dumps({'hook_event_name': 'PreToolUse', 'session_id': 'bench', 'cwd': work,
                       'tool_name': tool, 'tool_input': {'file_path': path, **tool_input}}).encode()
cases = {
    'bare tool-output (Read of the file)': (['hook', 'tool-output'], json.dumps({
        'hook_event_name': 'PostToolUse', 'session_id': 'bench', 'cwd': work, 'tool_name': 'Read',
        'tool_input': {'file_path': path},
        'tool_response': {'type': 'text', 'file': {'filePath': path, 'content': real,
                          'numLines': real.count('\n'), 'startLine': 1, 'totalLines': real.count('\n')}}}).encode()),
    're-anchor: Edit, placeholder in old_string': (['hook', 'tool-output', '--reanchor'], pre('Edit', {
        'old_string': 'EOT = "[redacted special token]"  # token 100',
        'new_string': 'EOT = "[redacted special token]"  # token one hundred'})),
    're-anchor: Edit beside the placeholders': (['hook', 'tool-output', '--reanchor'], pre('Edit', {
        'old_string': 'Paragraph 150 of the page', 'new_string': 'Paragraph 150, edited'})),
    're-anchor: Write of the whole view': (['hook', 'tool-output', '--reanchor'], pre('Write', {
        'content': view.replace('Paragraph 199 of', 'Last paragraph of')})),
}
# Each case must take the path it is named for: a rewrite, or (text beside the
# placeholders, the same in the view and the file) no change at all.
for name, (args, data) in cases.items():
    out = subprocess.run([binary, *args], input=data, capture_output=True).stdout
    changed = b'updatedToolOutput' in out or b'updatedInput' in out
    if b'"deny"' in out or changed == ('beside' in name):
        sys.exit(f'bench-tool-output: {name}: not the path it is named for; the hook said {out[:300]!r}')
cpu = {name: [] for name in cases}
def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for _ in range(calls):
    for name, (args, data) in cases.items():
        before = child_cpu()
        subprocess.run([binary, *args], input=data, stdout=subprocess.DEVNULL, check=True)
        cpu[name].append((child_cpu() - before) * 1e3)
bare = statistics.median(cpu['bare tool-output (Read of the file)'])
print(f'\nper call, {calls} interleaved rounds, {len(real)} bytes of HTML (process CPU, ms):')
for name, xs in cpu.items():
    med = statistics.median(xs)
    extra = '' if name.startswith('bare') else f'  added {med - bare:+.3f}'
    print(f'{name:<45} median {med:.3f}  mean {statistics.mean(xs):.3f}{extra}')
PY
