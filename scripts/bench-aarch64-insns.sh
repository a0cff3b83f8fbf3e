#!/usr/bin/env bash
# Instructions per byte of core's main operations on arm64, NEON against portable,
# counted under qemu-user by qemu's own instruction-counting TCG plugin (`libinsn`,
# one inline add per guest instruction executed): the instructions an AArch64 CPU
# would retire, without one. Reporting only: not part of the test command.
#
#   scripts/bench-aarch64-insns.sh [--kind KIND] [--rounds N] [op ...]
#
# ops (benches' `instr` names): sanitize_prose (reference sanitize), strict-sanitize,
# strip, strict-strip, truncate, from_utf8 (validation: on aarch64 core's
# `utf8::validate` is `core::str::from_utf8` on both backends, so it is a control),
# scan. Default: all of them. KIND: mixed (default: fresh mixed prose, about one
# code point in a hundred multi-byte), clean-ascii, dirty, hostile-invisible, ...
#
# Two cross builds of `instr` (benches/src/bin/instr.rs): the default one, whose
# `Backend::best()` is NEON on aarch64, and one with `airlock-core/portable-only`
# (the SWAR path, what arm64 ran before NEON). Each figure is
# (count of a run doing the operation twice) - (count of a run doing it once), over
# 1 MiB of text the run generates: generation, setup and the first run's buffer
# growth cancel, leaving one steady-state operation. Runs alternate portable, NEON
# in each round (interleaved); counts are deterministic, so more rounds only show
# that (the spread column). Both builds must print the same result line, or the
# comparison is void and the script fails.
#
# Debian's qemu-user ships no plugins (`dpkg -L qemu-user | grep -i plugin` is
# empty), but its qemu-aarch64 is built with plugin support: the plugin is built
# here from the Debian source package of the installed qemu-user version (only
# `tests/plugin/insn.c` and `include/qemu/qemu-plugin.h`, against glib), once, into
# target/qemu-plugin/VERSION/. The source is fetched with a private apt
# configuration (its own source list and package lists under that folder), so the
# machine's apt lists are not touched.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=mixed
rounds=1
ops=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --kind) kind="${2:?--kind needs a value}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) printf 'usage: %s [--kind KIND] [--rounds N] [op ...]\n' "$0" >&2; exit 2 ;;
    *) ops+=("$1"); shift ;;
  esac
done
[ "${#ops[@]}" -gt 0 ] ||
  ops=(sanitize_prose strict-sanitize strip strict-strip truncate from_utf8 scan)
case "$rounds" in ''|*[!0-9]*|0) echo "bench-aarch64-insns: --rounds takes a count >= 1" >&2; exit 2 ;; esac

say() { printf '%s\n' "bench-aarch64-insns: $*" >&2; }

need=()
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || need+=(libc6-dev-arm64-cross)
pkg-config --exists glib-2.0 2>/dev/null || need+=(libglib2.0-dev pkg-config)
command -v xz >/dev/null || need+=(xz-utils)
if [ "${#need[@]}" -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}"
fi
rustup target list --installed | grep -qx aarch64-unknown-linux-gnu ||
  rustup target add aarch64-unknown-linux-gnu

target_dir="${CARGO_TARGET_DIR:-target}"
version="$(dpkg-query -W -f='${Version}' qemu-user)"
# The source package's version (a binary rebuild, `+bN`, has none of its own).
source_version="$(dpkg-query -W -f='${source:Version}' qemu-user)"
plugdir="$target_dir/qemu-plugin/${version//[:+~]/_}"
plugin="$plugdir/libinsn.so"
if [ ! -e "$plugin" ]; then
  say "building qemu's libinsn plugin for qemu-user $version"
  mkdir -p "$plugdir/apt/parts" "$plugdir/apt/lists/partial" "$plugdir/apt/cache/archives/partial"
  # The machine's Debian suites, as a deb-src list of our own (lines kept as they are
  # in the machine's deb822 file: URIs, Suites, Components, Signed-By).
  awk '/^Types:/ { print "Types: deb-src"; next } { print }' /etc/apt/sources.list.d/debian.sources \
    >"$plugdir/apt/parts/src.sources"
  apt_private=(
    -o Dir::Etc::sourcelist=/dev/null
    -o Dir::Etc::sourceparts="$PWD/$plugdir/apt/parts"
    -o Dir::State::Lists="$PWD/$plugdir/apt/lists"
    -o Dir::Cache="$PWD/$plugdir/apt/cache"
  )
  if ! ls "$plugdir"/qemu_*.orig.tar.* >/dev/null 2>&1; then
    apt-get update -qq "${apt_private[@]}"
    (cd "$plugdir" && apt-get source -qq --download-only "${apt_private[@]}" "qemu=$source_version")
  fi
  orig="$(ls "$plugdir"/qemu_*.orig.tar.*)"
  tar -xf "$orig" -C "$plugdir" --wildcards '*/include/qemu/qemu-plugin.h' '*/tests/plugin/insn.c'
  top="$(ls "$plugdir"/*/tests/plugin/insn.c)"
  top="${top#"$plugdir"/}"
  top="${top%%/*}"
  # shellcheck disable=SC2046 # pkg-config prints several flags
  gcc -O2 -shared -fPIC -I "$plugdir/$top/include/qemu" $(pkg-config --cflags glib-2.0) \
    "$plugdir/$top/tests/plugin/insn.c" -o "$plugin" $(pkg-config --libs glib-2.0)
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
bins="$target_dir/bench-aarch64-insns"
mkdir -p "$bins"
build() { # build NAME [cargo args]: the release `instr` for aarch64, kept as NAME
  local name="$1"
  shift
  nice -n 10 cargo build -q -j1 --release --locked --target aarch64-unknown-linux-gnu \
    -p airlock-benches --bin instr "$@"
  cp "$target_dir/aarch64-unknown-linux-gnu/release/instr" "$bins/instr-$name"
}
say "building instr for aarch64: NEON (default features), portable (portable-only)"
build neon
build portable --features airlock-core/portable-only

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
count() { # count BUILD OP REPS: guest instructions of one run in $n, its result line in $line
  line="$(qemu-aarch64 -L /usr/aarch64-linux-gnu -plugin "$plugin,inline=on" -d plugin -D "$log" \
    "$bins/instr-$1" "$2" "$kind" "$3")"
  n="$(sed -n 's/^insns: //p' "$log")"
  [ -n "$n" ] || { say "FAIL: $1 $2: the plugin printed no count"; exit 1; }
}

bytes=$((1 << 20))
printf 'instructions per byte, %s, 1 MiB, aarch64 under qemu-user %s (libinsn), %s round(s)\n' \
  "$kind" "$version" "$rounds"
printf '%-16s %10s %10s %9s %8s\n' op portable neon neon/port spread
for op in "${ops[@]}"; do
  p_all=() n_all=()
  for ((r = 0; r < rounds; r++)); do
    count portable "$op" 1; p1=$n; p_line="$line"
    count neon "$op" 1; n1=$n; n_line="$line"
    count portable "$op" 2; p2=$n
    count neon "$op" 2; n2=$n
    [ "$p_line" = "$n_line" ] || { say "FAIL: $op: portable printed '$p_line', NEON '$n_line'"; exit 1; }
    p_all+=($((p2 - p1)))
    n_all+=($((n2 - n1)))
  done
  printf '%s\n' "${p_all[*]}" "${n_all[*]}" | awk -v op="$op" -v bytes="$bytes" '
    NR == 1 { np = split($0, p, " ") }
    NR == 2 { nn = split($0, n, " ") }
    END {
      pmin = pmax = p[1]; nmin = nmax = n[1]
      for (i = 2; i <= np; i++) { if (p[i] < pmin) pmin = p[i]; if (p[i] > pmax) pmax = p[i] }
      for (i = 2; i <= nn; i++) { if (n[i] < nmin) nmin = n[i]; if (n[i] > nmax) nmax = n[i] }
      spread = (pmax - pmin) + (nmax - nmin)
      printf "%-16s %10.3f %10.3f %9.3f %8d\n", op, pmin / bytes, nmin / bytes,
        (pmin > 0 ? nmin / pmin : 0), spread
    }'
done
