#!/bin/sh
# Builds libairlock.a and runs the Go binding's vet and tests (every conformance
# vector, unit tests, examples). Extra arguments go to `go test`, e.g.
#   ffi/go/test.sh -run XXX -bench . -benchmem
# Installs Debian's Go toolchain (golang-go) when no `go` is on PATH.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get install -y "$@" || {
		as_root apt-get update
		as_root apt-get install -y "$@"
	}
}

if ! command -v go >/dev/null 2>&1; then
	echo "test.sh: no go on PATH; installing golang-go from Debian" >&2
	# Pinned: Debian 12's Go 1.19 (the meta package and the toolchain it pulls in).
	apt_install golang-go=2:1.19~1 golang-1.19-go=1.19.8-2
fi
# cgo needs a C compiler and the C library headers.
if ! command -v "${CC:-cc}" >/dev/null 2>&1 || [ ! -e /usr/include/stdint.h ]; then
	apt_install gcc libc6-dev
fi

# The cgo directives link ${SRCDIR}/../../target/release/libairlock.a, so build
# exactly there, whatever CARGO_TARGET_DIR says.
(cd "$root" && CARGO_TARGET_DIR="$root/target" cargo build -p airlock-ffi --release)

# Keep Go's caches out of an unusable HOME.
if [ -z "${HOME:-}" ] || [ ! -d "$HOME" ] || [ ! -w "$HOME" ]; then
	: "${GOCACHE:=$root/target/go/cache}"
	: "${GOPATH:=$root/target/go/path}"
	export GOCACHE GOPATH
fi
# No dependencies: nothing is ever fetched.
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local CGO_ENABLED=1

cd "$here"
go version
go vet ./...
go test "$@" ./...
