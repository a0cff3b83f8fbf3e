#!/usr/bin/env bash
# The real-client end-to-end test: installs the pinned Claude Code builds from the npm
# registry (package-lock.json), builds airlock, runs run.mjs. Skips — loudly — only when
# the packages cannot be installed or run on this machine; once they run, any failure fails.
set -euo pipefail
cd "$(dirname "$0")"

skip() {
  printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n'
  printf '!!! SKIPPED: real Claude Code end-to-end test: %s\n' "$*"
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n'
  exit 0
}

command -v node >/dev/null || skip "node is not installed"
command -v npm >/dev/null || skip "npm is not installed"
[ "$(uname -s)" = Linux ] || skip "the pinned native build is Linux-only here ($(uname -s))"
if ! npm ci --no-audit --no-fund --loglevel=error >npm-ci.log 2>&1; then
  tail -20 npm-ci.log >&2
  skip "npm ci could not install the pinned @anthropic-ai/claude-code builds (see above)"
fi
rm -f npm-ci.log
for bin in node_modules/claude-raw-paths/cli.js node_modules/@anthropic-ai/claude-code-linux-*/claude; do
  [ -e "$bin" ] || skip "installed, but $bin is missing"
done

cargo build --release --locked -p airlock-cli --quiet
AIRLOCK_BIN="$(cd ../.. && pwd)/target/release/airlock" node run.mjs "$@"
# The plugin, installed with the client's own plugin commands from its npm source.
[ "$#" -gt 0 ] || AIRLOCK_BIN="$(cd ../.. && pwd)/target/release/airlock" node plugin.mjs
# Edits through the contained view, round trips with the current build (issue 26).
[ "$#" -gt 0 ] || AIRLOCK_BIN="$(cd ../.. && pwd)/target/release/airlock" node reanchor.mjs
# What the client adds outside PostToolUse: the refused channels and the unreached ones.
[ "$#" -gt 0 ] || AIRLOCK_BIN="$(cd ../.. && pwd)/target/release/airlock" node channels.mjs
