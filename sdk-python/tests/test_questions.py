"""client.questions (issue 52): methods, paths, queries and bodies, sync and async, against a mock transport."""

from __future__ import annotations

import asyncio
import json
from typing import Any, List

import httpx
import pytest

import svc_decide
import svc_decide.client
from svc_decide.question_types import QuestionDrift

QID = "qst_8KV0JNE3R90ZRX043H727AD6WS"
DRIFT = {
    "object": "question_drift",
    "question": QID,
    "model": "svc-1.5.1",
    "statistic": "jensen_shannon_distance",
    "value": 0.27,
    "threshold": 0.1,
    "reference": {"start": "a", "end": "b", "count": 28, "source": "first_week", "complete": True},
    "current": {"start": "c", "end": "d", "count": 28},
    "drifted": True,
}


def test_paths_queries_and_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    requests: List[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json=DRIFT)

    monkeypatch.setattr(svc_decide.client, "_sleep", lambda _: None)
    http = httpx.Client(transport=httpx.MockTransport(answer))
    client = svc_decide.Client(base_url="http://api.test", api_key="svc_test_k", http_client=http)
    client.questions.list(limit=5, starting_after=QID)
    client.questions.retrieve("qst/x")
    client.questions.series(QID, start="2026-10-01", end="2026-10-08", granularity="hour")
    client.questions.series(QID, start="2026-10-01", end="2026-10-08")
    drift: QuestionDrift = client.questions.drift(QID)
    client.questions.update_drift(QID, threshold=0.2)
    client.questions.update_drift(QID, reset_reference=True)
    assert drift["value"] == 0.27
    assert [(r.method, str(r.url)) for r in requests] == [
        ("GET", f"http://api.test/v1/questions?limit=5&starting_after={QID}"),
        ("GET", "http://api.test/v1/questions/qst%2Fx"),
        ("GET", f"http://api.test/v1/questions/{QID}/series?start=2026-10-01&end=2026-10-08&granularity=hour"),
        ("GET", f"http://api.test/v1/questions/{QID}/series?start=2026-10-01&end=2026-10-08"),
        ("GET", f"http://api.test/v1/questions/{QID}/drift"),
        ("POST", f"http://api.test/v1/questions/{QID}/drift"),
        ("POST", f"http://api.test/v1/questions/{QID}/drift"),
    ]
    assert [json.loads(r.content) for r in requests[5:]] == [{"threshold": 0.2}, {"reset_reference": True}]
    assert all(r.headers["authorization"] == "Bearer svc_test_k" for r in requests)


def test_async_client_has_the_same_methods() -> None:
    seen: List[str] = []

    async def run() -> Any:
        async def answer(request: httpx.Request) -> httpx.Response:
            seen.append(f"{request.method} {request.url.path}")
            return httpx.Response(200, json=DRIFT)

        http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
        client = svc_decide.AsyncClient(base_url="http://api.test", api_key="svc_test_k", http_client=http)
        await client.questions.list()
        await client.questions.drift(QID)
        return await client.questions.update_drift(QID, threshold=0.3)

    assert asyncio.run(run())["threshold"] == 0.1
    assert seen == ["GET /v1/questions", f"GET /v1/questions/{QID}/drift", f"POST /v1/questions/{QID}/drift"]
