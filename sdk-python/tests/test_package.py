"""The package as published: typed (mypy --strict passes, py.typed ships), Python 3.9 syntax and library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def test_py_typed_marker_and_version() -> None:
    import svc_decide

    assert (PACKAGE / "src" / "svc_decide" / "py.typed").exists()
    assert f"## {svc_decide.__version__}" in (PACKAGE / "CHANGELOG.md").read_text(encoding="utf-8")


def test_mypy_strict() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=PACKAGE, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_runs_on_python_3_9() -> None:
    # The machine has one Python; vermin reads the source for syntax and library calls newer than 3.9.
    done = subprocess.run(
        [str(Path(sys.executable).parent / "vermin"), "-t=3.9-", "--no-tips", "--violations", "--eval-annotations", "src"],
        cwd=PACKAGE,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
