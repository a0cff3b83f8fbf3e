#!/usr/bin/env bash
# Builds libairlock, checks the generated ABI facts against the header, installs the
# binding's locked dependencies and runs its tests.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && cargo build -p airlock-ffi --release)
cd "$here"
node tools/gen-abi.mjs --check
npm ci --no-audit --no-fund
npm test
