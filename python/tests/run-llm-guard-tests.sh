#!/usr/bin/env bash
# Runs llm-guard's OWN InvisibleText tests (tests/input_scanners/test_invisible_text.py
# of an llm-guard checkout) against airlock.compat.llm_guard.InvisibleText, unchanged:
# a throwaway package named llm_guard, made in a temp dir, whose
# llm_guard.input_scanners.invisible_text is airlock's scanner. Nothing of llm-guard is
# copied into this repository.
#
# llm-guard's tests are not in its PyPI packages, so this needs a checkout (git clone
# of protectai/llm-guard; CI has no network for it): a documented command, not a step
# of the test command. docs/PYTHON.md gives the result.
#
# Usage: python/tests/run-llm-guard-tests.sh LLM_GUARD_CHECKOUT [PYTHON]
#   PYTHON: an interpreter with the airlock wheel and pytest installed
#           (default: python/target/venv/bin/python, which scripts/test-python.sh fills)
#   AIRLOCK_LLM_GUARD_PROFILE=strict|reference: the scanner's profile (default strict)
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: $0 LLM_GUARD_CHECKOUT [PYTHON]" >&2; exit 2; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tests="$1/tests/input_scanners/test_invisible_text.py"
[ -f "$tests" ] || { echo "run-llm-guard-tests: no $tests" >&2; exit 2; }
py="${2:-$repo/python/target/venv/bin/python}"
profile="${AIRLOCK_LLM_GUARD_PROFILE:-strict}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/shim/llm_guard/input_scanners" "$work/run"
: > "$work/shim/llm_guard/__init__.py"
: > "$work/shim/llm_guard/input_scanners/__init__.py"
cat > "$work/shim/llm_guard/input_scanners/invisible_text.py" <<EOF
# airlock's scanner under llm-guard's module name, for llm-guard's own tests.
import functools

from airlock.compat.llm_guard import InvisibleText as _Airlock

InvisibleText = functools.partial(_Airlock, profile="$profile")
EOF
# The test file goes to the temp dir (never into this repository) so that pytest's
# rootdir is there: the checkout's conftest and pyproject settings, which configure
# llm-guard's models, do not apply.
cp "$tests" "$work/run/test_invisible_text.py"
cd "$work/run"
"$py" -c 'import airlock; print("run-llm-guard-tests: airlock", airlock.VERSION, "from", airlock.__file__)'
PYTHONPATH="$work/shim" "$py" -m pytest -q -p no:cacheprovider --rootdir="$work/run" test_invisible_text.py

# The baseline the compat tests and the bench compare with (python/tests/pure_python.py,
# llm-guard's algorithm written anew) against llm-guard's own scanner, loaded from the
# checkout with its logger stubbed: the same result on every row of the Spark tests'
# mixed text and on every documented difference.
PYTHONPATH="$repo/python/tests" "$py" - "$1/llm_guard/input_scanners/invisible_text.py" <<'PY'
import importlib.util, sys, types

pkg = types.ModuleType("llm_guard"); pkg.__path__ = []
util = types.ModuleType("llm_guard.util")
class _Quiet:
    def __getattr__(self, name):
        return lambda *a, **k: None
util.get_logger = lambda *a, **k: _Quiet()
scanners = types.ModuleType("llm_guard.input_scanners"); scanners.__path__ = []
base = types.ModuleType("llm_guard.input_scanners.base"); base.Scanner = object
sys.modules.update({"llm_guard": pkg, "llm_guard.util": util, "llm_guard.input_scanners": scanners,
                    "llm_guard.input_scanners.base": base})
spec = importlib.util.spec_from_file_location("llm_guard.input_scanners.invisible_text", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
theirs = mod.InvisibleText()

import mixed_text, pure_python, test_llm_guard
prompts = mixed_text.rows(20_000) + [p for p, *_ in test_llm_guard.SAME] + [p for p, *_ in test_llm_guard.DIFFER]
bad = [p for p in prompts if theirs.scan(p) != pure_python.scan(p)]
assert not bad, f"pure_python differs from llm-guard's scanner on {len(bad)} prompts, e.g. {bad[0]!r}"
for prompt, _ours, want, why in test_llm_guard.DIFFER:
    assert want is None or theirs.scan(prompt) == want, why
print(f"run-llm-guard-tests: llm-guard's own scanner and tests/pure_python.py agree on {len(prompts)} prompts, "
      "and on every llm-guard result in test_llm_guard.DIFFER")
PY
