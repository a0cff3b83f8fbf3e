#!/usr/bin/env bash
# Builds airlock's prebuilt release into OUT, reproducibly, for every target (or those
# named with --targets), and with --test runs what can run on this machine.
#
#   OUT/airlock-<version>-<target>/           one directory per target, also archived:
#     bin/airlock[.exe]                        the CLI
#     lib/libairlock.{so,dylib} | airlock.dll  the shared library (Windows: plus the
#                                              import library libairlock.dll.a)
#     lib/libairlock.a                         the static library
#     include/airlock.h                        the C header
#     LICENSE-MIT LICENSE-APACHE README.md
#   OUT/airlock-<version>-<target>.tar.gz      the same, as a sorted tar (fixed mtime
#                                              and owners, gzip -n)
#   OUT/SHA256SUMS                             one line per file of every target and
#                                              every archive
#   OUT/manifest.json                          per target: the triple, its names for
#                                              npm, Node, Go and Python wheels, and
#                                              every file with its size and SHA-256
#
# The npm packages (scripts/package-node.sh --from OUT), and later a Python wheel or a
# Go module, take their libraries from these directories; manifest.json says which
# directory is which platform for each of them.
#
# Usage:
#   scripts/release.sh OUT                       every target, built and checked
#   scripts/release.sh --full OUT                every target, and --test
#   scripts/release.sh --targets T1,T2 [--test] OUT
#   scripts/release.sh --targets T --quick OUT  the test command's slice: --test without
#                                               the cross-built Rust C ABI tests and with
#                                               one arm64 Node (20) instead of two
#
# --test runs, per target (scripts/release/verify.sh): every vector file through the
# CLI and through the C ABI, natively (x86-64), under qemu-user (aarch64) or under
# wine (Windows); the Node binding's vectors under an arm64 Node from npm (qemu);
# and for Mach-O, which cannot run here, its architecture, exports, linked libraries
# and minimum OS version. Without --quick, and when linux-x64 was built, it then runs
# scripts/package-node.sh --test --from OUT OUT/npm (the npm tarballs under Node 20 and
# 24, x86-64 natively and arm64 under qemu) and, when x86-64 musl was built, the Claude
# Code plugin e2e from the archives (tests/claude/plugin.mjs --release OUT).
#
# Reproducible: SOURCE_DATE_EPOCH is the last commit's time (unless set), paths are
# remapped, debug info is off and every binary is stripped. Tools are pinned and
# installed by scripts/release/tools.sh.
set -euo pipefail

ALL_TARGETS=(x86_64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-gnu
  aarch64-unknown-linux-musl aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu)

targets=("${ALL_TARGETS[@]}")
test=0
while [ "$#" -gt 1 ]; do
  case "$1" in
    --full) test=1; shift ;;
    --test) test=1; shift ;;
    --quick) test=1; export AIRLOCK_VERIFY_QUICK=1; shift ;;
    --targets) IFS=, read -r -a targets <<<"$2"; shift 2 ;;
    *) break ;;
  esac
done
[ "$#" -eq 1 ] || { echo "usage: $0 [--full | --targets T1,T2 [--test | --quick]] OUT" >&2; exit 2; }
for t in "${targets[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "release.sh: unknown target $t" >&2; exit 2; }
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
log() { echo "release.sh: $*" >&2; }

eval "$("$root/scripts/release/tools.sh")"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)"
[ -n "$version" ] || { log "no workspace version in Cargo.toml"; exit 1; }
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}"
export CARGO_TARGET_DIR="${AIRLOCK_DIST_TARGET_DIR:-$root/target/dist}"
# Release profile, minus what makes a binary machine-specific or large.
export CARGO_PROFILE_RELEASE_DEBUG=0
export CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
# The oldest macOS each architecture's Rust target supports; stated, not defaulted.
export MACOSX_DEPLOYMENT_TARGET_aarch64=11.0 MACOSX_DEPLOYMENT_TARGET_x86_64=10.12
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
# The target directory last, so that it wins over the checkout's prefix when it is
# inside it (the last matching prefix applies): paths under it (build scripts'
# OUT_DIR) can reach the binaries, and a build into another directory
# (AIRLOCK_DIST_TARGET_DIR) must give the same bytes.
remap="--remap-path-prefix=$root=/airlock --remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$rustup_home=/rustup"
remap="$remap --remap-path-prefix=$CARGO_TARGET_DIR=/target"

# build TARGET PACKAGE EXTRA_RUSTFLAGS: cargo build (or cargo zigbuild where zig links).
build() {
  local target="$1" package="$2" extra="$3" tool=(cargo build) zig_target="$1"
  # zig links every Unix target: Mach-O without an SDK, musl's shared library, and
  # glibc targets against glibc 2.17's symbols (what manylinux2014 wheels assume),
  # with lld (GNU ld refuses rustc's version script beside ffi/airlock.map).
  case "$target" in
    *-apple-darwin | *-linux-musl) tool=("$ZIGBUILD" zigbuild) ;;
    *-linux-gnu) tool=("$ZIGBUILD" zigbuild) zig_target="$target.2.17" ;;
  esac
  case "$target" in
    aarch64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET="$MACOSX_DEPLOYMENT_TARGET_aarch64" ;;
    x86_64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET="$MACOSX_DEPLOYMENT_TARGET_x86_64" ;;
  esac
  # A separate directory per flag set: changing RUSTFLAGS would rebuild the other.
  local dir="$CARGO_TARGET_DIR"
  [ -z "$extra" ] || dir="$CARGO_TARGET_DIR/shared-libc"
  (cd "$root" && PATH="$ZIG_PATH:$PATH" CARGO_TARGET_DIR="$dir" RUSTFLAGS="$remap $extra" \
    "${tool[@]}" --release --locked --quiet --target "$zig_target" -p "$package")
}

# Whether a target's toolchain is the llvm one (strip etc.) or GNU binutils.
strip_static() { llvm-strip --strip-debug "$1"; }

# relink_dylib TARGET STATICLIB OUT: libairlock.dylib linked again, from the static
# library, by rustup's own lld as ld64 (rust-lld -flavor darwin) against zig's
# libSystem stub. zig's Mach-O linker drops rustc's -exported_symbols_list, so the
# dylib cargo-zigbuild links exports every Rust symbol (1885 where the header has 41)
# and names itself by its build path; ld64.lld honours the list (exactly the header's
# functions), dead-strips what they do not reach, and takes an @rpath install name.
relink_dylib() {
  local target="$1" archive="$2" to="$3" arch min
  case "$target" in
    aarch64-apple-darwin) arch=arm64 min="$MACOSX_DEPLOYMENT_TARGET_aarch64" ;;
    x86_64-apple-darwin) arch=x86_64 min="$MACOSX_DEPLOYMENT_TARGET_x86_64" ;;
  esac
  local lld libsystem list
  lld="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/rust-lld"
  libsystem="$("$ZIG_PATH/python-zig" env | sed -n 's/^ *\.lib_dir = "\(.*\)",$/\1/p')/libc/darwin"
  [ -x "$lld" ] && [ -e "$libsystem/libSystem.tbd" ] || { log "relink_dylib: no $lld or $libsystem/libSystem.tbd"; return 1; }
  list="$(mktemp)"
  grep -o 'airlock_[a-z0-9_]*(' "$root/include/airlock.h" | tr -d '(' | LC_ALL=C sort -u | sed 's/^/_/' >"$list"
  # -u for every export: lld takes an archive member only for an undefined symbol,
  # and the export list alone makes none.
  local undefined=()
  while read -r sym; do undefined+=(-u "$sym"); done <"$list"
  "$lld" -flavor darwin -arch "$arch" -dylib -platform_version macos "$min" "$min" \
    -install_name @rpath/libairlock.dylib -exported_symbols_list "$list" -dead_strip -x \
    "${undefined[@]}" -o "$to" "$archive" -L"$libsystem" -lSystem
  rm -f "$list"
}

# The directory of one target, laid out as above.
stage() {
  local target="$1" name="airlock-$version-$1"
  local dir="$out/$name" exe="" shared=() rel="$CARGO_TARGET_DIR/$1/release"
  local shared_rel="$rel"
  case "$target" in
    *-windows-*) exe=.exe; shared=(airlock.dll libairlock.dll.a) ;;
    *-apple-darwin) shared=(libairlock.dylib) ;;
    *) shared=(libairlock.so) ;;
  esac
  log "building $target"
  build "$target" airlock-cli ""
  if [[ "$target" == *-linux-musl ]]; then
    # musl targets link statically by default, which has no shared library; the CLI
    # stays static, libairlock.so links musl's libc dynamically (as Alpine's do).
    build "$target" airlock-ffi "-C target-feature=-crt-static"
    shared_rel="$CARGO_TARGET_DIR/shared-libc/$1/release"
  else
    build "$target" airlock-ffi ""
  fi
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/lib" "$dir/include"
  cp "$rel/airlock$exe" "$dir/bin/"
  for f in "${shared[@]}"; do cp "$shared_rel/$f" "$dir/lib/"; done
  [[ "$target" != *-apple-darwin ]] || relink_dylib "$target" "$shared_rel/libairlock.a" "$dir/lib/libairlock.dylib"
  # The static library comes from where airlock-ffi was built (shared-libc on musl).
  cp "$shared_rel/libairlock.a" "$dir/lib/"
  strip_static "$dir/lib/libairlock.a"
  [[ "$target" != *-windows-* ]] || strip_static "$dir/lib/libairlock.dll.a"
  cp "$root/include/airlock.h" "$dir/include/"
  cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$dir/"
  cat >"$dir/README.md" <<EOF
# airlock $version for $target

* \`bin/airlock$exe\`: the command (\`airlock --help\`; hooks: \`airlock hook --help\`)
* \`lib/\`: libairlock, shared and static; \`include/airlock.h\`: its C header

Built from the airlock repository by scripts/release.sh; checksums in SHA256SUMS and
manifest.json beside this archive. Source, docs and licences: the repository.
EOF
  # Every file's mtime is the source date, so that the archive's bytes are too.
  find "$dir" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  chmod -R u=rwX,go=rX "$dir"
  chmod 0755 "$dir/bin/airlock$exe"
  (cd "$out" && tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 \
    --numeric-owner --format=gnu -cf - "$name" | gzip -9 -n >"$name.tar.gz")
}

for t in "${targets[@]}"; do stage "$t"; done

# --- checksums and manifest ---------------------------------------------------------
# Over every target directory present in OUT (an earlier run's included), so that a
# run for one target keeps the others' lines.
(cd "$out" && find . -path './airlock-*' -type f ! -name SHA256SUMS ! -name manifest.json \
  | sed 's#^\./##' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
node "$root/scripts/release/manifest.mjs" "$out" "$version" "$SOURCE_DATE_EPOCH" >"$out/manifest.json"
log "wrote $out (${targets[*]})"

[ "$test" -eq 1 ] || exit 0
status=0
for t in "${targets[@]}"; do
  "$root/scripts/release/verify.sh" "$out" "$t" || status=1
done
# The npm tarballs of this release, installed into fresh projects under Node 20 and 24:
# x86-64 natively and, when arm64 was built, arm64 under qemu (slow: not in --quick).
if [ -z "${AIRLOCK_VERIFY_QUICK:-}" ] && [ -d "$out/airlock-$version-x86_64-unknown-linux-gnu" ]; then
  "$root/scripts/package-node.sh" --test --from "$out" "$out/npm" || status=1
fi
# The Claude Code plugin from this release's archives (checked against SHA256SUMS and
# unpacked afresh), installed into the real client with its own plugin commands
# (tests/claude/plugin.mjs --release). The client comes from tests/claude's lockfile;
# if it cannot be installed the run fails: a release is not checked without it.
if [ -z "${AIRLOCK_VERIFY_QUICK:-}" ] && [ -d "$out/airlock-$version-x86_64-unknown-linux-musl" ]; then
  if [ -e "$root/tests/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude" ] ||
    (cd "$root/tests/claude" && npm ci --no-audit --no-fund --loglevel=error >&2); then
    node "$root/tests/claude/plugin.mjs" --release "$out" || status=1
  else
    log "the Claude Code plugin e2e: npm ci in tests/claude failed"; status=1
  fi
fi
exit "$status"
