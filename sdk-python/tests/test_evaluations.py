"""The evaluation methods (issue 31's routes): paths, queries, bodies, the create's cautious retries, and
waiting for a run to end; on httpx's MockTransport."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import httpx
import pytest

import svc_decide
import svc_decide.client


def evaluation(status: str) -> Dict[str, Any]:
    return {"id": "eval_1", "object": "evaluation", "status": status, "progress": {"done": 1, "total": 2}}


class Api:
    def __init__(self, answers: List[httpx.Response], monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers = answers
        self.requests: List[httpx.Request] = []
        self.sleeps: List[float] = []
        monkeypatch.setattr(svc_decide.client, "_sleep", self.sleeps.append)
        http = httpx.Client(transport=httpx.MockTransport(self.answer))
        self.client = svc_decide.Client(base_url="http://api.test", api_key="svc_test_k", http_client=http)

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        r = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        return httpx.Response(r.status_code, headers=r.headers, content=r.content)


def ok(body: Any) -> httpx.Response:
    return httpx.Response(200, json=body)


def error(status: int, type: str, code: str, retry_after: int = 1) -> httpx.Response:
    body = {"error": {"type": type, "code": code, "message": code, "request_id": "req_1"}}
    return httpx.Response(status, json=body, headers={"retry-after": str(retry_after)})


def test_paths_queries_and_body(monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api([ok(evaluation("queued"))], monkeypatch)
    item: Any = {"state": "s", "questions": {"q": {"type": "check", "instructions": "i"}}, "expected": {"q": True}}
    api.client.create_evaluation(name="nightly", items=[item], model="svc-1.4.0")
    api.client.list_evaluations(limit=5, starting_after="eval_0")
    api.client.get_evaluation("eval_1")
    api.client.cancel_evaluation("eval_1")
    api.client.delete_evaluation("eval_1")
    api.client.list_evaluation_items("eval/1", limit=100, starting_after=99)
    seen = [(r.method, str(r.url)) for r in api.requests]
    assert seen == [
        ("POST", "http://api.test/v1/evaluations"),
        ("GET", "http://api.test/v1/evaluations?limit=5&starting_after=eval_0"),
        ("GET", "http://api.test/v1/evaluations/eval_1"),
        ("POST", "http://api.test/v1/evaluations/eval_1/cancel"),
        ("DELETE", "http://api.test/v1/evaluations/eval_1"),
        ("GET", "http://api.test/v1/evaluations/eval%2F1/items?limit=100&starting_after=99"),
    ]
    assert json.loads(api.requests[0].content) == {"name": "nightly", "items": [item], "model": "svc-1.4.0"}


def test_a_create_is_retried_after_429_but_never_after_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    limited = Api([error(429, "rate_limited", "requests_per_minute"), ok(evaluation("queued"))], monkeypatch)
    assert limited.client.create_evaluation(name="n", items=[])["status"] == "queued"
    assert len(limited.requests) == 2
    failed = Api([error(500, "internal", "internal_error"), ok(evaluation("queued"))], monkeypatch)
    with pytest.raises(svc_decide.InternalServerError):
        failed.client.create_evaluation(name="n", items=[])
    assert len(failed.requests) == 1  # a second create could make a second evaluation


def test_wait_for_evaluation_polls_until_it_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api([ok(evaluation("running")), ok(evaluation("paused")), ok(evaluation("done"))], monkeypatch)
    assert api.client.wait_for_evaluation("eval_1", poll_interval=0.5)["status"] == "done"
    assert api.sleeps == [0.5, 0.5]
    slow = Api([ok(evaluation("running"))], monkeypatch)
    with pytest.raises(svc_decide.APITimeoutError) as caught:
        slow.client.wait_for_evaluation("eval_1", poll_interval=0.5, timeout=0.1)
    assert caught.value.code == "evaluation_wait_timeout"
