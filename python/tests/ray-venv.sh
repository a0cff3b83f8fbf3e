#!/usr/bin/env bash
# Makes a venv with Ray Data (python/requirements-ray.txt, pinned) and pytest at DIR;
# exits non-zero, saying why, when ray does not install here.
set -uo pipefail
[ "$#" -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python3 -m venv "$1" || exit 1
"$1/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements-ray.txt" \
  "$(grep '^pytest==' "$here/requirements-dev.txt")" "$(grep '^pyarrow==' "$here/requirements-dev.txt")" \
  || { echo "ray-venv: pip could not install ray[data] (above)" >&2; exit 1; }
