#!/usr/bin/env bash
# Checks one target of a release directory (scripts/release.sh): runs what can run on
# this machine, inspects what cannot.
#
#   linux x86-64 (gnu, musl)  natively; aarch64 (gnu, musl) under qemu-user;
#   Windows under wine:
#     1. every vector file with a command-line form through the release's CLI
#        (cli-vectors.mjs), byte for byte;
#     2. every vector file through the C ABI: the workspace's conformance tests
#        (airlock-tests: conformance_ffi, conformance_strict_ffi, ffi_out_pointers,
#        ffi_message_ids), cross-built for the target and run there;
#     3. tests/c/test_api.c compiled for the target with its C compiler and linked
#        against the release's shared library (the DLL on Windows) and, separately,
#        its static library;
#     4. aarch64-unknown-linux-gnu only: the Node binding's own vector test under an
#        arm64 Node from npm (Node 20 and 24), loading the release's libairlock.so.
#   Mach-O (both darwin targets; nothing runs): the architecture of every file, the
#   shared library's exports (exactly the header's functions), the libraries each
#   links (libSystem only) and the minimum macOS version.
#
# Usage: scripts/release/verify.sh OUT TARGET
# AIRLOCK_VERIFY_QUICK=1 (release.sh --quick) skips 2. and runs 4. under Node 20 only;
# the shared library still runs every vector there, through the Node binding.
set -euo pipefail

[ "$#" -eq 2 ] || { echo "usage: $0 OUT TARGET" >&2; exit 2; }
out="$(cd "$1" && pwd)" target="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)"
dir="$out/airlock-$version-$target"
[ -d "$dir" ] || { echo "verify.sh: $dir not built" >&2; exit 1; }
eval "$("$root/scripts/release/tools.sh")"
work="$(mktemp -d "${TMPDIR:-/tmp}/airlock-verify.XXXXXX")"
trap 'rm -rf "$work"' EXIT

failures=0
fail() { echo "FAIL [$target]: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok   [$target]: $*"; }

# The header's functions: what every shared library must export, exactly.
grep -o 'airlock_[a-z0-9_]*(' "$root/include/airlock.h" | tr -d '(' | LC_ALL=C sort -u >"$work/header"

runner=() cc="" exe="" shared="" cflags=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$dir/include")
case "$target" in
  x86_64-unknown-linux-gnu) cc=gcc shared=libairlock.so ;;
  # zig's cc for musl: it has musl's headers and libc for both architectures and the
  # libunwind that Rust's musl static library needs (-lunwind below).
  x86_64-unknown-linux-musl) cc="$ZIG_PATH/python-zig cc -target x86_64-linux-musl" shared=libairlock.so ;;
  aarch64-unknown-linux-gnu)
    cc=aarch64-linux-gnu-gcc shared=libairlock.so runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu) ;;
  aarch64-unknown-linux-musl)
    cc="$ZIG_PATH/python-zig cc -target aarch64-linux-musl" shared=libairlock.so runner=(qemu-aarch64) ;;
  x86_64-pc-windows-gnu) cc=x86_64-w64-mingw32-gcc exe=.exe shared=airlock.dll runner=(wine) ;;
  *-apple-darwin) ;;
  *) echo "verify.sh: unknown target $target" >&2; exit 2 ;;
esac
# A throwaway prefix under TMPDIR unless one is given: never the user's ~/.wine.
export WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-${TMPDIR:-/tmp}/airlock-wine-$(id -u)}"
if [[ "$target" == *-windows-* ]]; then
  # wine 8 has no bcryptprimitives.dll, whose ProcessPrng Rust's std (>= 1.78) imports:
  # a stand-in built here (wine-bcryptprimitives.c), on wine's DLL path for this run
  # only and preferred over any builtin; it never goes into the release.
  mkdir -p "$work/wine-dll"
  x86_64-w64-mingw32-gcc -std=c99 -Wall -Wextra -Werror -O2 -shared \
    -o "$work/wine-dll/bcryptprimitives.dll" "$root/scripts/release/wine-bcryptprimitives.c" -ladvapi32
  # A new prefix says so on stderr at its first run: made here, before any check.
  [ -d "$WINEPREFIX" ] || wineboot -i >/dev/null 2>&1 || true
  # Z: is the prefix's drive for / (wine's default); no wine call, so nothing to fail.
  export WINEPATH="Z:${work//\//\\}\\wine-dll" WINEDLLOVERRIDES="bcryptprimitives=n,b"
  # Fail once, plainly, rather than on every vector, if the CLI does not start.
  wine "$dir/bin/airlock.exe" --version >"$work/wine-version.log" 2>&1 ||
    { echo "verify.sh: $dir/bin/airlock.exe does not start under wine (exit $?, WINEPATH=$WINEPATH):" >&2
      cat "$work/wine-version.log" >&2; exit 1; }
fi

# --- Mach-O: inspect --------------------------------------------------------------------
if [[ "$target" == *-apple-darwin ]]; then
  arch="${target%%-*}"; [ "$arch" = aarch64 ] && arch=arm64
  want_min=11.0; [ "$arch" = x86_64 ] && want_min=10.12
  for f in bin/airlock lib/libairlock.dylib; do
    info="$(llvm-objdump --macho --private-headers "$dir/$f")"
    # From the saved text: awk exiting early would SIGPIPE llvm-objdump (pipefail).
    got_arch="$(awk '/magic/ { getline; print $2; exit }' <<<"$info")"
    case "$arch:$got_arch" in
      arm64:ARM64 | x86_64:X86_64) pass "$f is Mach-O $arch" ;;
      *) fail "$f: cputype $got_arch, want $arch" ;;
    esac
    # LC_BUILD_VERSION (minos) or, for old deployment targets, LC_VERSION_MIN_MACOSX.
    min="$(awk '/cmd LC_BUILD_VERSION/ { b = 1 } b && /minos/ { print $2; exit }
                /cmd LC_VERSION_MIN_MACOSX/ { m = 1 } m && /version/ { print $2; exit }' <<<"$info")"
    [ "$min" = "$want_min" ] && pass "$f: minimum macOS $min" || fail "$f: minimum macOS '$min', want $want_min"
    libs="$(llvm-objdump --macho --dylibs-used "$dir/$f" | tail -n +2 | awk '{ print $1 }' | grep -v '/libairlock' || true)"
    # The CLI also links libiconv (and zig's stub of it, libcharset): Rust's std asks
    # for -liconv on every Apple target, and zig's linker keeps a library nothing
    # uses (no -dead_strip_dylibs). Both are in every macOS's /usr/lib; the check
    # names them rather than failing, and fails on anything else. The dylib, which
    # release.sh relinks with ld64.lld, links libSystem alone.
    allowed='^/usr/lib/libSystem.B.dylib$'
    [ "$f" != bin/airlock ] || allowed='^/usr/lib/(libSystem.B|libiconv.2|libcharset.1).dylib$'
    strays="$(grep -Ev "$allowed" <<<"$libs" || true)"
    if [ -z "$strays" ] && grep -qx /usr/lib/libSystem.B.dylib <<<"$libs"; then
      pass "$f links $(tr '\n' ' ' <<<"$libs")(libSystem$([ "$f" != bin/airlock ] || echo ', and the libiconv std asks for'))"
    else
      fail "$f links: $libs"
    fi
  done
  llvm-nm --extern-only --defined-only "$dir/lib/libairlock.dylib" | awk '{ print $3 }' \
    | sed 's/^_//' | LC_ALL=C sort -u >"$work/exports"
  if cmp -s "$work/header" "$work/exports"; then
    pass "libairlock.dylib exports exactly the header's $(wc -l <"$work/header") functions"
  else
    fail "libairlock.dylib exports differ from the header:"; diff "$work/header" "$work/exports" >&2 || true
  fi
  for f in lib/libairlock.a; do
    archs="$(llvm-objdump --macho --private-headers "$dir/$f" 2>/dev/null | awk '/magic/ { getline; print $2 }' | sort -u | tr '\n' ' ')"
    [ "$archs" = "$( [ "$arch" = arm64 ] && echo ARM64 || echo X86_64) " ] && pass "$f: every member $arch" || fail "$f: members $archs"
  done
  [ "$failures" -eq 0 ] || { echo "verify [$target]: $failures failure(s)" >&2; exit 1; }
  echo "verify [$target]: Mach-O checks passed (built and inspected; nothing run)"
  exit 0
fi

# --- exports of the shared library -------------------------------------------------------
if [[ "$target" == *-windows-* ]]; then
  llvm-objdump -p "$dir/lib/$shared" | awk '/Ordinal +RVA +Name/ { on = 1; next } on && NF == 3 { print $3 } on && NF == 0 { on = 0 }' \
    | LC_ALL=C sort -u >"$work/exports"
else
  llvm-nm -D --defined-only "$dir/lib/$shared" | awk 'NF >= 3 { print $3 }' | LC_ALL=C sort -u >"$work/exports"
fi
if cmp -s "$work/header" "$work/exports"; then
  pass "$shared exports exactly the header's $(wc -l <"$work/header") functions"
else
  fail "$shared exports differ from the header:"; diff "$work/header" "$work/exports" >&2 || true
fi

# --- 1. the CLI ---------------------------------------------------------------------------
if node "$root/scripts/release/cli-vectors.mjs" ${runner:+--runner "${runner[*]}"} \
  "$dir/bin/airlock$exe" "$root/tests/conformance" >"$work/cli.log" 2>&1; then
  pass "$(tail -1 "$work/cli.log")"
else
  fail "CLI vectors:"; tail -40 "$work/cli.log" >&2
fi

# --- 2. the C ABI: the workspace's conformance tests, for the target ----------------------
# Built with the release's own environment (linkers, zig) into a directory beside the
# release build's (AIRLOCK_DIST_TARGET_DIR, as release.sh), so that neither rebuilds the other.
tests_target_dir="${AIRLOCK_DIST_TARGET_DIR:-$root/target/dist}-tests"
build_tool=("$ZIGBUILD") zig_target="$target"
case "$target" in *-windows-*) build_tool=(cargo) ;; *-linux-gnu) zig_target="$target.2.17" ;; esac
sub=test; [ "${build_tool[0]}" = cargo ] || sub=zigbuild
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
tbin=""
if [ -n "${AIRLOCK_VERIFY_QUICK:-}" ]; then
  :
elif [ "$sub" = test ]; then
  tbin="$(cd "$root" && CARGO_TARGET_DIR="$tests_target_dir" cargo test --release --locked -p airlock-tests \
    --test integration --target "$target" --no-run --message-format=json 2>"$work/build.log" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const m=JSON.parse(l);if(m.executable&&m.target&&m.target.name==="integration")console.log(m.executable)}catch{}}})')" || true
else
  # cargo-zigbuild has no `test`; `zigbuild --tests` builds the same binary.
  tbin="$(cd "$root" && PATH="$ZIG_PATH:$PATH" CARGO_TARGET_DIR="$tests_target_dir" "$ZIGBUILD" zigbuild --release --locked \
    -p airlock-tests --test integration --target "$zig_target" --message-format=json 2>"$work/build.log" \
    | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{for(const l of s.split("\n")){try{const m=JSON.parse(l);if(m.executable&&m.target&&m.target.name==="integration")console.log(m.executable)}catch{}}})')" || true
fi
if [ -n "${AIRLOCK_VERIFY_QUICK:-}" ]; then
  echo "skip [$target]: the cross-built C ABI conformance tests (quick; the full run has them)"
elif [ -z "$tbin" ]; then
  fail "could not build the C ABI conformance tests:"; tail -20 "$work/build.log" >&2
elif "${runner[@]}" "$tbin" --test-threads=2 conformance_ffi conformance_strict_ffi ffi_out_pointers ffi_message_ids \
  >"$work/abi.log" 2>&1; then
  pass "C ABI vectors: $(grep -E '^test result' "$work/abi.log" | tail -1)"
else
  fail "C ABI vectors:"; tail -40 "$work/abi.log" >&2
fi

# --- 3. a C program linking the release's libraries ---------------------------------------
src="$root/tests/c/test_api.c"
case "$target" in
  *-windows-*)
    # Linked against the import library; run beside the DLL, as Windows finds it.
    mkdir -p "$work/win"
    cp "$dir/lib/airlock.dll" "$work/win/"
    $cc "${cflags[@]}" "$src" -L"$dir/lib" -l:libairlock.dll.a -o "$work/win/test_api-dll.exe"
    $cc "${cflags[@]}" "$src" "$dir/lib/libairlock.a" -lws2_32 -luserenv -lntdll -lbcrypt -o "$work/win/test_api-static.exe"
    imports="$(llvm-objdump -p "$work/win/test_api-dll.exe" | awk '/DLL Name:/ { print $3 }' | tr '\n' ' ')"
    [[ "$imports" == *airlock.dll* ]] && pass "test_api-dll.exe imports airlock.dll ($imports)" || fail "test_api-dll.exe imports: $imports"
    progs=("$work/win/test_api-dll.exe" "$work/win/test_api-static.exe")
    ;;
  *-linux-musl)
    # Static: Rust's musl std unwinds with LLVM's libunwind, which zig ships.
    $cc "${cflags[@]}" -static "$src" "$dir/lib/libairlock.a" -lunwind -o "$work/test_api-static"
    progs=("$work/test_api-static")
    # The dynamic one needs musl's loader for the target's architecture, which a
    # glibc machine has only with musl installed for it (Debian: x86-64 only).
    loader=/lib/ld-musl-x86_64.so.1; [[ "$target" != aarch64-* ]] || loader=/lib/ld-musl-aarch64.so.1
    if [ -e "$loader" ]; then
      $cc "${cflags[@]}" "$src" "$dir/lib/libairlock.so" -Wl,-rpath,"$dir/lib" -o "$work/test_api-dynamic"
      progs+=("$work/test_api-dynamic")
    else
      echo "skip [$target]: test_api-dynamic: no musl loader ($loader) on this machine; the static test ran"
    fi
    ;;
  *)
    $cc "${cflags[@]}" "$src" -L"$dir/lib" -l:libairlock.so -Wl,-rpath,"$dir/lib" -o "$work/test_api-dynamic"
    $cc "${cflags[@]}" "$src" "$dir/lib/libairlock.a" -lpthread -ldl -lm -o "$work/test_api-static"
    progs=("$work/test_api-dynamic" "$work/test_api-static")
    ;;
esac
for p in "${progs[@]}"; do
  if "${runner[@]}" "$p" >"$work/c.log" 2>&1; then
    pass "$(basename "$p"): $(tail -1 "$work/c.log")"
  else
    fail "$(basename "$p"):"; tail -20 "$work/c.log" >&2
  fi
done

# --- 4. the Node binding under an arm64 Node (qemu) ----------------------------------------
if [ "$target" = aarch64-unknown-linux-gnu ]; then
  versions=(20 24); [ -z "${AIRLOCK_VERIFY_QUICK:-}" ] || versions=(20)
  # A copy of the binding whose koffi has its arm64 native module: koffi ships it as
  # the optional package @koromix/koffi-linux-arm64 (pinned in package-lock.json),
  # which npm installs only for --cpu=arm64.
  node_copy="$work/node-arm64"
  mkdir -p "$node_copy"
  cp -R "$root/ffi/node/package.json" "$root/ffi/node/package-lock.json" "$root/ffi/node/index.js" \
    "$root/ffi/node/lib" "$root/ffi/node/test" "$node_copy/"
  koffi_ok=1
  (cd "$node_copy" && npm ci --omit=dev --os=linux --cpu=arm64 --libc=glibc --ignore-scripts \
    --no-audit --no-fund --loglevel=error) >"$work/npm.log" 2>&1 || koffi_ok=0
  [ -d "$node_copy/node_modules/@koromix/koffi-linux-arm64" ] || koffi_ok=0
  [ "$koffi_ok" -eq 1 ] || { fail "npm ci of the binding for arm64:"; tail -20 "$work/npm.log" >&2; }
  for v in "${versions[@]}"; do
    [ "$koffi_ok" -eq 1 ] || break
    var="NODE_ARM64_$v" node_bin="${!var}"
    # Each file run directly, not through `node --test FILES`: that spawns a child per
    # file with process.execPath, the arm64 ELF, which this machine's shell cannot
    # start (qemu-user without binfmt); run directly, node:test runs them in-process.
    if (cd "$node_copy" && for f in test/conformance.test.js test/strict.test.js; do
      AIRLOCK_LIB="$dir/lib/libairlock.so" AIRLOCK_VECTORS_DIR="$root/tests/conformance" \
        qemu-aarch64 -L /usr/aarch64-linux-gnu "$node_bin" "$f" || exit 1
    done) >"$work/node.log" 2>&1; then
      pass "Node $("${runner[@]}" "$node_bin" --version) (arm64, qemu): $(grep -E '^(# |ℹ )(pass|fail) ' "$work/node.log" | tr '\n' ' ')"
    else
      fail "Node arm64 $v:"; tail -30 "$work/node.log" >&2
    fi
  done
fi

[ "$failures" -eq 0 ] || { echo "verify [$target]: $failures failure(s)" >&2; exit 1; }
echo "verify [$target]: all passed"
