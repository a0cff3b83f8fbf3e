"""The tests run against the INSTALLED wheel (scripts/test-python.sh installs it into a
fresh venv): importing the source tree's `airlock/` would test a package without its
extension module, or a stale one."""

import os
import pathlib
import sys

# The tests' helpers (pure_python, mixed_text) import by name under --import-mode=importlib.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import airlock  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCE = REPO / "python" / "airlock"

if pathlib.Path(airlock.__file__).resolve().parent == SOURCE and not os.environ.get("AIRLOCK_PY_SOURCE"):
    raise RuntimeError(
        f"airlock was imported from the source tree ({SOURCE}), not an installed wheel: "
        "run the tests from another directory with --import-mode=importlib (scripts/test-python.sh does)"
    )
