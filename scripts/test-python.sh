#!/usr/bin/env bash
# The Python wheel, tested as a user installs it:
#
#  1. builds the manylinux2014 wheels (scripts/package-python.sh: x86-64 and aarch64);
#  2. installs the x86-64 wheel into a FRESH venv with nothing else (`--no-index`: no
#     Rust, no build) and runs every conformance vector through it, without pyarrow;
#     the same on CPython 3.9 (abi3's floor) and 3.13 where pyenv has them;
#  3. installs it into the tooling venv (python/requirements-*.txt, pinned) and runs
#     python/tests: the API, batches over pyarrow and Polars, the llm-guard scanner,
#     and Spark (real PySpark in local mode on Debian's openjdk-17-jre-headless);
#  4. checks the aarch64 wheel (its tag, ELF machine, linked libraries, exported
#     symbol) and runs every conformance vector through it under qemu-aarch64 with
#     Debian's arm64 CPython, unpacked into a private root (python/tests/run-aarch64.sh:
#     apt's arm64 lists go to a private directory, the system's dpkg is untouched).
#
# What has no dependency on the wheels runs while they build: the rest of the tooling
# venv's packages, the fresh venv, and the aarch64 sysroot's download. Each phase's
# start is printed with the seconds since the script began.
#
# Usage: scripts/test-python.sh [--full]
#   --full: 1,000,000 Spark rows (default 100,000: docs/PYTHON.md, "Where the test
#           command's time goes", says why), and Ray Data's map_batches example when
#           ray[data] installs (python/requirements-ray.txt).
#   AIRLOCK_SPARK_ROWS=N: the Spark tests' row count, either way.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
full=0
[ "${1:-}" = "--full" ] && full=1
rows=100000
[ "$full" = 1 ] && rows=1000000
rows="${AIRLOCK_SPARK_ROWS:-$rows}"

say() { printf "test-python [%4ss]: %s\n" "$SECONDS" "$*"; }

# The JVM for Spark, and venv support (Debian packages; idempotent).
need=()
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
python3 -c 'import ensurepip, venv' 2>/dev/null || need+=(python3-venv)
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${need[@]}"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cache="$root/python/target"
mkdir -p "$cache"

# Tooling venv (PYTHON_VENV, default python/target/venv, ignored by git): kept between runs; rebuilt when
# the pins change.
venv="${PYTHON_VENV:-$cache/venv}"
# Absolute: the tests run from the work dir, where a relative path would not resolve.
mkdir -p "$(dirname "$venv")"
venv="$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")"
stamp="$(cat "$root/python/requirements-dev.txt" "$root/python/requirements-spark.txt" | sha256sum | cut -c1-16)"
pin() { grep "^$1==" "$root/python/requirements-dev.txt"; }
pip_q=(--quiet --disable-pip-version-check)
bg=()
if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$stamp" ]; then
  say "the tooling venv: maturin and zig first, the rest while the wheels build"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install "${pip_q[@]}" "$(pin maturin)" "$(pin ziglang)"
  ( "$venv/bin/pip" install "${pip_q[@]}" \
      -r "$root/python/requirements-dev.txt" -r "$root/python/requirements-spark.txt" \
    && echo "$stamp" > "$venv/.pins" ) > "$work/venv.log" 2>&1 &
  bg+=("$!:venv")
fi
# The fresh venv: nothing but pytest (the test runner) until the wheel comes.
( python3 -m venv "$work/fresh" && "$work/fresh/bin/pip" install "${pip_q[@]}" "$(pin pytest)" ) \
  > "$work/fresh.log" 2>&1 &
bg+=("$!:fresh")
"$root/python/tests/run-aarch64.sh" --prepare "$work/arm-root" > "$work/arm-root.log" 2>&1 &
bg+=("$!:arm-root")
# abi3: the same wheel on the oldest CPython it claims (3.9) and the newest on this
# machine, where pyenv has them (pytest 9 needs 3.10: 3.9 gets 8.4.2, pinned here).
abi3=()
pyenv_root="$(pyenv root 2>/dev/null || true)"
for v in 3.9 3.13; do
  exe="$(ls -d "$pyenv_root"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$exe" ] || { say "SKIPPED: CPython $v (not under pyenv on this machine)"; continue; }
  runner="$(pin pytest)"
  [ "$v" = 3.9 ] && runner="pytest==8.4.2"
  ( "$exe" -m venv "$work/py$v" && "$work/py$v/bin/pip" install "${pip_q[@]}" "$runner" ) > "$work/py$v.log" 2>&1 &
  bg+=("$!:py$v")
  abi3+=("$v")
done

say "building the wheels"
PYTHON_VENV="$venv" "$root/scripts/package-python.sh" "$work/dist" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
for job in "${bg[@]}"; do
  wait "${job%%:*}" || { cat "$work/${job#*:}.log"; say "FAIL: ${job#*:} (above)"; exit 1; }
done
x86="$(ls "$work"/dist/airlock-*-cp39-abi3-manylinux*_x86_64.whl)"
arm="$(ls "$work"/dist/airlock-*-cp39-abi3-manylinux*_aarch64.whl)"
say "built $(basename "$x86") and $(basename "$arm")"

for w in "$x86" "$arm"; do
  show="$("$venv/bin/auditwheel" show "$w")"
  grep -q 'manylinux_2_17' <<<"$show" || { printf '%s\n' "$show"; say "FAIL: $(basename "$w") is not manylinux_2_17"; exit 1; }
done

say "a fresh venv: the wheel alone (no index, no Rust), every conformance vector, no pyarrow"
"$work/fresh/bin/pip" install "${pip_q[@]}" --no-index "$x86"
(cd "$work" && AIRLOCK_EXPECT_NO_PYARROW=1 "$work/fresh/bin/python" -m pytest -q -p no:cacheprovider \
  --import-mode=importlib "$root/python/tests/test_conformance.py" "$root/python/tests/test_no_pyarrow.py")

for v in "${abi3[@]}"; do
  say "CPython $v ($("$work/py$v/bin/python" -c 'import platform; print(platform.python_version())')): the same wheel, every conformance vector"
  "$work/py$v/bin/pip" install "${pip_q[@]}" --no-index "$x86"
  (cd "$work" && AIRLOCK_EXPECT_NO_PYARROW=1 "$work/py$v/bin/python" -m pytest -q -p no:cacheprovider \
    --import-mode=importlib "$root/python/tests/test_conformance.py" "$root/python/tests/test_no_pyarrow.py")
done

say "the tooling venv: API, batches (pyarrow, Polars), llm-guard, Spark ($rows rows)"
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$x86"
(cd "$work" && AIRLOCK_SPARK_ROWS="$rows" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  --durations=8 --import-mode=importlib "$root/python/tests")

say "the aarch64 wheel: ELF machine, linked libraries, the module's init symbol"
mkdir -p "$work/arm"
"$venv/bin/python" -m zipfile -e "$arm" "$work/arm"
so="$(ls "$work"/arm/airlock/_airlock*.so)"
readelf -h "$so" | grep -q 'Machine:.*AArch64' || { say "FAIL: $so is not AArch64"; exit 1; }
libs="$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
for lib in $libs; do
  case "$lib" in
    libc.so.6|libm.so.6|libgcc_s.so.1|libpthread.so.0|libdl.so.2|ld-linux-aarch64.so.1|librt.so.1) ;;
    *) say "FAIL: the aarch64 module links $lib (outside manylinux2014)"; exit 1 ;;
  esac
done
readelf --dyn-syms -W "$so" | grep -q ' PyInit__airlock$' || { say "FAIL: no PyInit__airlock in $so"; exit 1; }
say "aarch64: AArch64 ELF, links only: $libs, exports PyInit__airlock"

PYTHON_VENV="$venv" "$root/python/tests/run-aarch64.sh" "$arm" "$work/arm-root"

if [ "$full" = 1 ]; then
  if "$root/python/tests/ray-venv.sh" "$work/ray"; then
    "$work/ray/bin/pip" install --quiet --no-deps "$x86"
    # Ray writes an auth token under HOME and its sessions under its temp dir: both
    # go to the work dir, nothing to /root or /tmp/ray.
    mkdir -p "$work/ray-home"
    (cd "$work" && HOME="$work/ray-home" RAY_TMPDIR="$work/ray-tmp" "$work/ray/bin/python" -m pytest -q \
      -p no:cacheprovider --import-mode=importlib "$root/python/tests/test_ray.py")
  else
    say "SKIPPED: Ray Data (ray[data] does not install here; see above)"
  fi
fi
say "ok"
times
