"""Retries against a stand-in HTTP server that fails the first attempt: the same idempotency key on every
attempt, waits as ``retry-after`` says, charged at most once; sync and async alike."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

import pytest

import svc_decide
from stand_in import Fail, Running, Work

QUESTIONS: Any = {"ok": {"type": "check", "instructions": "ok?"}}
StartStandIn = Callable[..., Running]


def test_a_500_first_attempt_is_retried_with_the_same_key_and_charged_once(stand_in: StartStandIn) -> None:
    server = stand_in([Fail(500, "internal", "internal_error"), Work()])
    client = svc_decide.Client(base_url=server.url, api_key="svc_test_key")
    response = client.decide_with_response(state="s", questions=QUESTIONS)
    keys = server.keys()
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0] is not None and keys[0].startswith("sdk_")
    assert response.meta.attempts == 2 and response.meta.idempotency_key == keys[0]
    assert response.data["answers"]["ok"]["type"] == "check"
    assert server.stand_in.charges == 1


def test_async_client_the_same(stand_in: StartStandIn) -> None:
    server = stand_in([Fail(500, "internal", "internal_error"), Work()])

    async def run() -> svc_decide.ApiResponse[Any]:
        async with svc_decide.AsyncClient(base_url=server.url, api_key="svc_test_key") as client:
            return await client.decide_with_response(state="s", questions=QUESTIONS, idempotency_key="order-42")

    response = asyncio.run(run())
    assert server.keys() == ["order-42", "order-42"]
    assert response.meta.attempts == 2 and server.stand_in.charges == 1


@pytest.mark.parametrize(
    "first",
    [
        Fail(429, "rate_limited", "requests_per_minute", 1),
        Fail(503, "unavailable", "no_capacity", 1),
        Fail(429, "rate_limited", "a_limit_newer_than_the_client", 1),
    ],
    ids=lambda f: f"{f.status}-{f.code}",
)
def test_waits_retry_after_then_succeeds(stand_in: StartStandIn, first: Fail) -> None:
    server = stand_in([first, Work()])
    client = svc_decide.Client(base_url=server.url, api_key="svc_test_key")
    client.decide(state="s", questions=QUESTIONS)
    first_at, second_at = (r.at for r in server.stand_in.requests)
    assert second_at - first_at >= 1.0  # retry-after: 1
    assert len(set(server.keys())) == 1


@pytest.mark.parametrize(
    "fail, error_class",
    [
        (Fail(429, "rate_limited", "test_daily_quota", 30), svc_decide.RateLimitError),
        (Fail(409, "conflict", "idempotency_key_reused"), svc_decide.ConflictError),
        (Fail(422, "validation", "invalid_value"), svc_decide.ValidationError),
        (Fail(402, "insufficient_balance", "insufficient_balance"), svc_decide.InsufficientBalanceError),
    ],
    ids=lambda v: getattr(v, "code", ""),
)
def test_never_retried(stand_in: StartStandIn, fail: Fail, error_class: type) -> None:
    server = stand_in([fail, Work()])
    client = svc_decide.Client(base_url=server.url, api_key="svc_test_key", max_retries=5)
    with pytest.raises(error_class) as caught:
        client.decide(state="s", questions=QUESTIONS)
    assert caught.value.attempts == 1 and caught.value.code == fail.code
    assert len(server.stand_in.requests) == 1


def test_a_decide_that_outlives_its_timeout_is_asked_again_and_replayed_not_charged_twice(
    stand_in: StartStandIn,
) -> None:
    # The first attempt takes 3 s; the client gives up after 2 s and asks again with the same key: the
    # stand-in says 409 idempotency_in_progress (retry-after 1) until the work is done, then replays it.
    server = stand_in([Work(3.0)])
    client = svc_decide.Client(base_url=server.url, api_key="svc_test_key", max_retries=1)
    t0 = time.monotonic()
    response = client.decide_with_response(state="s", questions=QUESTIONS, timeout=2.0)
    assert response.meta.replayed is True
    assert len(set(server.keys())) == 1 and response.meta.attempts >= 3
    assert server.stand_in.charges == 1
    assert 3.0 <= time.monotonic() - t0 < 10
