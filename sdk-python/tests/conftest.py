"""Fixtures: a stand-in server per test, and the running stack (``npm start``) for the tests that need it."""

from __future__ import annotations  # "Stack | None" on Python 3.9

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List

import httpx
import pytest

from batch_stand_in import BatchStandIn
from batch_stand_in import Step as BatchStep
from stand_in import Running, Step

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Stack:
    base_url: str
    live_key: str
    test_key: str


def _stack_from_env_or_demo() -> Stack | None:
    if os.environ.get("SVC_BASE_URL") and os.environ.get("SVC_API_KEY"):
        return Stack(os.environ["SVC_BASE_URL"], os.environ["SVC_API_KEY"], os.environ.get("SVC_TEST_KEY", ""))
    demo = REPO / ".local" / "demo.json"
    if demo.exists():
        d = json.loads(demo.read_text())
        return Stack(d["base_url"], d["live_key"], d["test_key"])
    return None


@pytest.fixture(scope="session")
def stack() -> Stack:
    """The API under ``npm start``; skipped without one, failed when ``SVC_STACK_REQUIRED=1`` (CI)."""
    found = _stack_from_env_or_demo()
    if found is not None:
        try:
            httpx.get(f"{found.base_url}/v1/openapi.json", timeout=5).raise_for_status()
            return found
        except httpx.HTTPError as exc:
            reason = f"the stack at {found.base_url} does not answer: {exc}"
    else:
        reason = "no stack: set SVC_BASE_URL and SVC_API_KEY, or run npm start"
    if os.environ.get("SVC_STACK_REQUIRED") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def stand_in() -> Iterator[object]:
    """``stand_in(script)`` starts a stand-in server; all are stopped after the test."""
    started: List[Running] = []

    def start(script: List[Step]) -> Running:
        running = Running(script)
        started.append(running)
        return running

    yield start
    for running in started:
        running.close()


@pytest.fixture
def batch_api() -> Iterator[object]:
    """``batch_api(script)`` starts a stand-in for the batch routes; all are stopped after the test."""
    started: List[BatchStandIn] = []

    def start(script: List[BatchStep]) -> BatchStandIn:
        running = BatchStandIn(script)
        started.append(running)
        return running

    yield start
    for running in started:
        running.close()
