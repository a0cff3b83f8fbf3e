#!/usr/bin/env bash
# The one test command: installs what the tests need (pinned), then runs every check.
# CI runs exactly this (.ci/run); so does a developer on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time and CPU time (its processes' user + system), printed as it ends and
# again in a table at the end, so a slow step shows where the 45-minute CI budget goes. CPU
# time barely moves with the machine's load, so it budgets a fresh CI machine from a busy one.
step_name="" step_start=$SECONDS step_cpu=0 timings=""
times_file="$(mktemp "${TMPDIR:-/tmp}/airlock-times.XXXXXX")"
trap 'rm -f "$times_file"' EXIT
# Sets cpu_now to the CPU seconds of every process this script has waited for. `times`' second
# line is the children's user and system time, as `XmY.YYYs XmY.YYYs`; it is read in this shell
# and through a file, because in a pipe or `$(…)` it would report a fresh subshell's.
children_cpu() {
  times >"$times_file"
  cpu_now=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t }' "$times_file")
}
end_step() {
  [ -n "$step_name" ] || return 0
  children_cpu
  local took=$((SECONDS - step_start)) cpu=$((cpu_now - step_cpu))
  printf '    (%ds wall, %ds CPU)\n' "$took" "$cpu"
  timings+="$(printf '%5ds %5ds  %s' "$took" "$cpu" "${step_name:0:84}")"$'\n'
}
step() { end_step; children_cpu; step_name="$*" step_start=$SECONDS step_cpu=$cpu_now; printf '\n==> %s\n' "$*"; }

step "format"
cargo fmt --all -- --check

step "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "docs (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

step "tests: unit, property, integration, conformance"
cargo test --workspace --locked

step "core on the portable dispatch only (what aarch64 and other non-x86 targets run)"
cargo clippy -p airlock-core --all-targets --features portable-only --locked -- -D warnings
cargo test -p airlock-core --features portable-only --locked

step "no_std, no-heap link check of airlock-core"
cargo build --release --locked --manifest-path nostd-check/Cargo.toml --quiet

step "Unicode: every generated table, the strict vectors and the bump report match their pinned sources; the reference's engine data under Node 20 and 24"
scripts/unicode/bump.sh --check "$(node -p 'require("./scripts/unicode/versions.json").unicode')"

step "generated C header matches the ABI (pinned cbindgen)"
scripts/gen-header.sh --check

step "the Claude Code plugin's hooks.json is what tool-output --print-config prints"
scripts/gen-plugin.sh --check

step "C consumers: static, dynamic, ASan+UBSan, valgrind"
tests/c/run.sh

step "Node binding: ABI facts match the header, every vector, workers, library lookup (pinned koffi)"
ffi/node/test.sh

step "npm tarballs: install into a fresh project, every vector under Node 20 and Node 24 (pinned, from npm)"
npm_out="$(mktemp -d "${TMPDIR:-/tmp}/airlock-npm.XXXXXX")"
trap 'rm -rf "$npm_out" "$times_file"' EXIT
scripts/package-node.sh --test "$npm_out"

step "Go binding: every vector through cgo (Debian's golang-go, pinned)"
ffi/go/test.sh

step "real Claude Code end to end: pinned npm builds, mock API, the hooks (skipped loudly without the packages)"
tests/claude/run.sh

step "fail-closed matrix: every malformed hook input denied and blocked (a few s)"
cargo build --release --locked -p airlock-cli --quiet
scripts/fail-closed-matrix.sh --check target/release/airlock >/dev/null

step "WebAssembly package: every vector under Node 20/24, Deno, workerd; the playground in Chromium (pinned, from npm)"
# OUT is kept: it holds the tarball, the playground and the browser's screenshots.
scripts/package-wasm.sh --test "$(mktemp -d "${TMPDIR:-/tmp}/airlock-wasm-out.XXXXXX")"

step "Python wheel: build (x86-64, aarch64), install into fresh venvs, every vector (aarch64 under qemu), batches, llm-guard, Spark 100k rows (pinned, from PyPI)"
scripts/test-python.sh

step "real Codex end to end: pinned npm build, mock Responses API, write-scope and the wrappers (skipped loudly without the packages)"
tests/codex/run.sh

step "core and ffi on aarch64 under qemu-user: the NEON backend through the per-backend, property and exhaustive tests (scripts/test-aarch64.sh; --full: the eight slowest too)"
scripts/test-aarch64.sh

step "throughput ratio gate (quick, a few s; interleaved, thread CPU time, floors per backend)"
cargo run --release --locked -p airlock-benches --bin gate -- --quick
cargo run --release --locked -p airlock-benches --bin gate -- --quick --portable

step "fuzz smoke: every target a few seconds (nightly cargo-fuzz; skipped loudly without nightly)"
fuzz/smoke.sh 3

end_step
echo
printf ' wall   CPU\n%s' "$timings"
children_cpu
printf '%5ds %5ds  total\n' "$SECONDS" "$cpu_now"
echo "all checks passed"
