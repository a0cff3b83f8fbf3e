#!/bin/sh
# `airlock` from npm (npx airlock, npm i -g airlock): execs the prebuilt binary of the
# platform package npm installed beside this one (airlock-linux-x64, …-musl,
# airlock-darwin-arm64, …). Hooks run it once per tool call, so it uses shell builtins
# only — no Node, no readlink, no uname: npm installs just the one platform package
# whose os/cpu/libc match, and the first of the layouts below that holds it wins.
#   $0 = node_modules/.bin/airlock                 → node_modules/airlock-P
#   $0 = PREFIX/bin/airlock (npm i -g)             → PREFIX/lib/node_modules/…
#   $0 = node_modules/airlock/bin/airlock (itself) → its node_modules, or beside it
d=${0%/*}
for base in "$d/.." "$d/../lib/node_modules" "$d/../lib/node_modules/airlock/node_modules" \
  "$d/../node_modules" "$d/../.."; do
  for p in linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl darwin-arm64 darwin-x64; do
    [ -x "$base/airlock-$p/bin/airlock" ] && exec "$base/airlock-$p/bin/airlock" "$@"
  done
  # Windows (npm's shim runs this file with Git for Windows' sh).
  [ -f "$base/airlock-win32-x64/bin/airlock.exe" ] && exec "$base/airlock-win32-x64/bin/airlock.exe" "$@"
done
# Some other layout (a symlinked package, pnpm): resolve this file and look beside it.
real=$(readlink -f "$0" 2>/dev/null) && [ "$real" != "$0" ] && exec "$real" "$@"
echo "airlock: no prebuilt airlock for this platform is installed (npm installs airlock-<os>-<cpu>[-musl] as an optional dependency; was it omitted?). See the airlock README, Install." >&2
exit 2
