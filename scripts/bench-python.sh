#!/usr/bin/env bash
# The Python bench (reported, not gated): builds the x86-64 wheel, installs it into the
# tooling venv, builds core's loop (python/examples/core_throughput.rs) and runs
# python/bench/bench.py: the cost per call against llm-guard's algorithm in pure
# Python, batch throughput against core's, Spark rows/s against a plain Python UDF at
# local[1] and local[2].
#
# Usage: scripts/bench-python.sh [bench.py options: --rows N --spark-rows N --rounds N
#                                  --no-spark --spark-only --arrow-batch N]
#   --spark-only: the Spark part alone (core's loop is not built).
#   PYTHON_VENV=DIR: the tooling venv (default python/target/venv); made absolute here,
#                    since the script changes directory before running it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PYTHON_VENV:-$root/python/target/venv}"
mkdir -p "$(dirname "$venv")"
venv="$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")"
stamp="$(cat "$root/python/requirements-dev.txt" "$root/python/requirements-spark.txt" | sha256sum | cut -c1-16)"
if [ "$(cat "$venv/.pins" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    -r "$root/python/requirements-dev.txt" -r "$root/python/requirements-spark.txt"
  echo "$stamp" > "$venv/.pins"
fi
dist="$(mktemp -d)"
trap 'rm -rf "$dist"' EXIT
PYTHON_VENV="$venv" TARGETS=x86_64-unknown-linux-gnu "$root/scripts/package-python.sh" "$dist" > "$dist/build.log" 2>&1 \
  || { cat "$dist/build.log"; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$dist"/*.whl
core=()
case " $* " in
  *" --spark-only "*) ;;
  *)
    cargo build --release --locked --quiet --manifest-path "$root/python/Cargo.toml" --example core_throughput
    core=(--core-bin "$root/python/target/release/examples/core_throughput")
    ;;
esac
cd "$dist"
"$venv/bin/python" "$root/python/bench/bench.py" "${core[@]}" "$@"
