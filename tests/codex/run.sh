#!/usr/bin/env bash
# The real-Codex end-to-end test: installs the pinned Codex CLI and its native build from the
# npm registry (package-lock.json), builds airlock, runs run.mjs. Skips — loudly — only when
# the packages cannot be installed or run on this machine; once they run, any failure fails.
#
#   tests/codex/run.sh            the fast slice (what scripts/test-all.sh runs)
#   tests/codex/run.sh --full     every case, the whole verdict matrix of cli/CLIENTS.md, Claude
#                                 Code's columns included (installs tests/claude's packages;
#                                 builds the debug binary too, for its failure switches), and
#                                 prints the matrix's tables; `--full NAME…` only those cases
#   tests/codex/run.sh NAME…      the cases whose names contain NAME (`^NAME`: start with it;
#                                 `--table` prints the matrix's tables of those that ran)
set -euo pipefail
cd "$(dirname "$0")"

skip() {
  printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n'
  printf '!!! SKIPPED: real Codex end-to-end test: %s\n' "$*"
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n'
  exit 0
}

command -v node >/dev/null || skip "node is not installed"
command -v npm >/dev/null || skip "npm is not installed"
[ "$(uname -s)" = Linux ] || skip "the pinned native build is Linux-only here ($(uname -s))"
if ! npm ci --no-audit --no-fund --loglevel=error >npm-ci.log 2>&1; then
  tail -20 npm-ci.log >&2
  skip "npm ci could not install the pinned @openai/codex build (see above)"
fi
rm -f npm-ci.log
# The claude test's modules are imported (lib.mjs, mcp-mail.mjs); they need no install.
bin=$(node -e 'import("./lib.mjs").then((m) => console.log(m.CODEX.bin))')
[ -x "$bin" ] || skip "installed, but $bin is missing"
# Even `--version` writes under $CODEX_HOME (default ~/.codex: its arg0 links), so the probe
# gets a throwaway home, as every run does, and the user's ~/.codex is never touched.
probe_home="$(mktemp -d "${TMPDIR:-/tmp}/airlock-codex-probe.XXXXXX")"
HOME="$probe_home" CODEX_HOME="$probe_home" "$bin" --version >/dev/null 2>&1 ||
  { rm -rf "$probe_home"; skip "installed, but $bin does not run here"; }
rm -rf "$probe_home"

cargo build --release --locked -p airlock-cli --quiet
export AIRLOCK_BIN="$(cd ../.. && pwd)/target/release/airlock"
if [ "${1:-}" = --full ]; then
  shift
  # The debug build's switches make the crash, stall and panic cells (hooks/src/verdict.rs).
  cargo build --locked -p airlock-cli --quiet
  export AIRLOCK_DEBUG_BIN="$(cd ../.. && pwd)/target/debug/airlock"
  # Claude Code's columns too: the pinned builds of tests/claude.
  (cd ../claude && npm ci --no-audit --no-fund --loglevel=error)
  CLAUDE=1 node run.mjs --table "$@"
elif [ "$#" -gt 0 ]; then
  node run.mjs "$@"
else
  # The fast slice: Codex's protocol on the answers the contract uses, write-scope in both
  # registration forms as --print-config --client codex prints them, each wrapper on a deny,
  # the send gate on an MCP send and tool-output on an MCP result (hooks.json form), and two
  # cells of the matrix with the release build (a send-gate deny under `|| exit 1`, a
  # tool-output memory exhaustion under the printed wrapper).
  node run.mjs 'protocol: JSON deny, exit 0' 'protocol: JSON deny, exit 1' 'exit 2, reason on stderr' \
    'write-scope (' 'wrapper' 'send-gate (hooks.json)' 'tool-output (hooks.json): an MCP result' \
    'matrix Codex 0.171.0: send-gate, || exit 1, deny' 'matrix Codex 0.171.0: tool-output, fail-closed, oom'
fi
