#!/usr/bin/env bash
# Runs every conformance vector through the aarch64 wheel under qemu-aarch64, with
# Debian's own arm64 CPython.
#
# Debian's arm64 packages are fetched with apt-get into a PRIVATE state directory
# (APT::Architectures=arm64, Dir::State and Dir::Cache under ROOT, the system's own
# sources list): the machine's dpkg gets no foreign architecture and nothing is
# installed system-wide. The packages are unpacked with dpkg-deb -x into ROOT/sysroot,
# which qemu-aarch64 -L uses as the target's root.
#
# Usage: python/tests/run-aarch64.sh WHEEL ROOT
#        python/tests/run-aarch64.sh --prepare ROOT   (only the sysroot: scripts/test-python.sh
#                                                     runs this while the wheels build)
set -euo pipefail
[ "$#" -eq 2 ] || { echo "usage: $0 WHEEL|--prepare ROOT" >&2; exit 2; }
wheel="$1"
mkdir -p "$2"
root="$(cd "$2" && pwd)"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="$root/sysroot/usr/bin/python3.11"

prepare() {
  command -v qemu-aarch64 >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 qemu-user
  }

  state="$root/apt"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$root/debs" "$root/sysroot"
  apt_private=(
    -o "APT::Architecture=arm64" -o "APT::Architectures=arm64"
    -o "Dir::State=$state" -o "Dir::State::status=/dev/null" -o "Dir::Cache=$state/cache"
    -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
  )
  apt-get "${apt_private[@]}" update -qq
  # CPython 3.11 (bookworm's), its stdlib, and the libraries they link.
  pkgs=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 zlib1g libexpat1 libffi8)
  (cd "$root/debs" && apt-get "${apt_private[@]}" download "${pkgs[@]/%/:arm64}" >/dev/null)
  for d in "$root"/debs/*.deb; do dpkg-deb -x "$d" "$root/sysroot"; done
  touch "$root/sysroot/.prepared"
}

[ -e "$root/sysroot/.prepared" ] || prepare
[ "$wheel" = "--prepare" ] && exit 0

mkdir -p "$root/site"
python3 -m zipfile -e "$wheel" "$root/site"
# pytest and its dependencies are pure Python: the tooling venv's copies serve.
site="$("${PYTHON_VENV:-$repo/python/target/venv}/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
for m in pytest _pytest pluggy iniconfig packaging pygments py.py; do
  [ -e "$site/$m" ] && ln -sfn "$site/$m" "$root/site/$m"
done
qemu-aarch64 -L "$root/sysroot" "$py" -c 'import platform; print("test-python: aarch64 CPython", platform.python_version(), platform.machine())'
(cd "$root" && QEMU_LD_PREFIX="$root/sysroot" PYTHONPATH="$root/site" AIRLOCK_EXPECT_NO_PYARROW=1 \
  qemu-aarch64 -L "$root/sysroot" "$py" -m pytest -q -p no:cacheprovider --import-mode=importlib \
  "$repo/python/tests/test_conformance.py" "$repo/python/tests/test_no_pyarrow.py")
