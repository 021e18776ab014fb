"""The README examples (sdk-python/README.md, and the Python block of the project README's SDKs section)
run as written against the running API, each in its own interpreter."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from conftest import REPO, Stack


def python_blocks(text: str) -> List[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


PACKAGE_README = python_blocks((REPO / "sdk-python" / "README.md").read_text(encoding="utf-8"))
PROJECT_README = python_blocks((REPO / "README.md").read_text(encoding="utf-8").split("## SDKs", 1)[-1].split("\n## ", 1)[0])


def run(code: str, stack: Stack) -> str:
    env = {**os.environ, "SVC_BASE_URL": stack.base_url, "SVC_API_KEY": stack.live_key}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_package_readme_has_its_seven_examples() -> None:
    assert len(PACKAGE_README) == 7


@pytest.mark.parametrize("n", range(len(PACKAGE_README)), ids=lambda n: f"example-{n + 1}")
def test_package_readme_example_runs(stack: Stack, n: int) -> None:
    out = run(PACKAGE_README[n], stack)
    lines = out.splitlines()
    if n == 0:
        assert re.match(r"^(refund|replacement|info) \{", lines[0])
    if n == 1:
        assert re.match(r"^fix questions\.q\.instructions: invalid_value \(request req_", lines[0])
    if n == 2:
        assert lines[0] == "True True" and lines[1].startswith("live ")
    if n == 3:
        assert len(lines) == 3 and all(" -> {'type': 'pick'" in line for line in lines)
    if n == 4:
        assert re.match(r"^svc-1\.\d+\.\d+ (calib_[0-9A-Z]{26}|cal-\d{8}-\d+)$", lines[-1])
    if n == 5:  # batches: needs the batch routes (issue 42)
        assert re.match(r"^completed \{'total': 3, ", lines[0]) and len(lines) == 4
        assert all(line.startswith(f"ticket-{i} ") for i, line in enumerate(lines[1:]))
    if n == 6:  # webhooks: runs without the API
        assert lines[-1] == "(204, '') (400, 'signature_mismatch')"


def test_the_webhook_example_runs_without_the_api() -> None:
    done = subprocess.run([sys.executable, "-c", PACKAGE_README[6]], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "batch.completed batch_1 {'total': 2, 'done': 2, 'failed': 0}",
        "(204, '') (400, 'signature_mismatch')",
    ]


def test_project_readme_example_runs(stack: Stack) -> None:
    assert len(PROJECT_README) == 1
    code = PROJECT_README[0]
    assert len(code.strip().splitlines()) == 5
    assert re.match(r"^\{'type': 'check', 'probability': [0-9.]+, .*\} \d+$", run(code, stack).strip())


def test_the_examples_pass_mypy_strict(tmp_path: Path) -> None:
    # The TypedDicts are usable as written: literals check against them, answers narrow by their "type".
    for n, code in enumerate(PACKAGE_README + PROJECT_README):
        (tmp_path / f"example_{n + 1}.py").write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / ".mypy_cache"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
