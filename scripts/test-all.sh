#!/usr/bin/env bash
# The one test command: installs what the tests need (pinned), then runs every check.
# CI runs exactly this (.ci/run); so does a developer on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

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

step "generated Unicode table matches its pinned source"
scripts/gen-tables.sh --check

step "generated C header matches the ABI (pinned cbindgen)"
scripts/gen-header.sh --check

step "C consumers: static, dynamic, ASan+UBSan, valgrind"
tests/c/run.sh

step "Node binding: ABI facts match the header, every vector, workers, library lookup (pinned koffi)"
ffi/node/test.sh

step "npm tarballs: install into a fresh project, every vector under Node 20 and Node 24 (pinned, from npm)"
npm_out="$(mktemp -d "${TMPDIR:-/tmp}/airlock-npm.XXXXXX")"
trap 'rm -rf "$npm_out"' EXIT
scripts/package-node.sh --test "$npm_out"

step "Go binding: every vector through cgo (Debian's golang-go, pinned)"
ffi/go/test.sh

step "real Claude Code end to end: pinned npm builds, mock API, the hooks (skipped loudly without the packages)"
tests/claude/run.sh

step "fail-closed matrix: every malformed hook input denied and blocked (a few s)"
cargo build --release --locked -p airlock-cli --quiet
scripts/fail-closed-matrix.sh --check target/release/airlock >/dev/null

step "prebuilt release slice: aarch64-linux-gnu cross-built, every vector under qemu (CLI, C, Node arm64); Mach-O etc. in --full (docs/RELEASING.md)"
scripts/release.sh --targets aarch64-unknown-linux-gnu --quick "$npm_out/release"

step "throughput ratio gate (quick, a few s; interleaved, thread CPU time, floors per backend)"
cargo run --release --locked -p airlock-benches --bin gate -- --quick
cargo run --release --locked -p airlock-benches --bin gate -- --quick --portable

step "fuzz smoke: every target a few seconds (nightly cargo-fuzz; skipped loudly without nightly)"
fuzz/smoke.sh 3

echo
echo "all checks passed"
