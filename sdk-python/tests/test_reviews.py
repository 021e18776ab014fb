"""The review methods (issue 51's routes) as ``client.reviews`` and ``activate_calibration``: paths, queries,
bodies, a lost label race as ``ConflictError``, and the async twins; on httpx's MockTransport."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import httpx
import pytest

import svc_decide
import svc_decide.client

RULE = "rrule_01JD0000000000000000000000"
REVIEW = "rev_01JD0000000000000000000000"
QUESTION: Dict[str, Any] = {"type": "check", "instructions": "Does the customer ask for a refund?"}


def rule() -> Dict[str, Any]:
    return {"id": RULE, "object": "review_rule", "question": QUESTION, "model": "svc-1.4.0",
            "when": {"abstained": False, "below_confidence": 0.8, "sample_rate": 0}, "auto_apply": False,
            "mode": "test", "counts": {"pending": 0, "labelled": 0, "skipped": 0, "kept": 0}, "full": False,
            "loop": {"status": "none", "evaluation": None, "calibration": None, "error": None}, "created": 1}


def recorder(answers: List[httpx.Response], requests: List[httpx.Request]):
    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        r = answers[min(len(requests) - 1, len(answers) - 1)]
        return httpx.Response(r.status_code, headers=r.headers, content=r.content)

    return answer


def test_paths_queries_and_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    requests: List[httpx.Request] = []
    monkeypatch.setattr(svc_decide.client, "_sleep", lambda _: None)
    http = httpx.Client(transport=httpx.MockTransport(recorder([httpx.Response(200, json=rule())], requests)))
    client = svc_decide.Client(base_url="http://api.test", api_key="svc_test_k", http_client=http)
    client.reviews.create_rule(question=QUESTION, when={"below_confidence": 0.8}, model="svc-1.4.0")
    client.reviews.list_rules(limit=5)
    client.reviews.retrieve_rule(RULE)
    client.reviews.delete_rule("rrule/x")
    client.reviews.next(RULE)
    client.reviews.evaluate(RULE)
    client.reviews.list(rule=RULE, status="pending")
    client.reviews.label(REVIEW, "refund")
    client.reviews.skip(REVIEW)
    client.activate_calibration("calib_01JD0000000000000000000000")
    assert [f"{r.method} {r.url}" for r in requests] == [
        "POST http://api.test/v1/review-rules",
        "GET http://api.test/v1/review-rules?limit=5",
        f"GET http://api.test/v1/review-rules/{RULE}",
        "DELETE http://api.test/v1/review-rules/rrule%2Fx",
        f"POST http://api.test/v1/review-rules/{RULE}/next",
        f"POST http://api.test/v1/review-rules/{RULE}/evaluations",
        f"GET http://api.test/v1/reviews?rule={RULE}&status=pending",
        f"POST http://api.test/v1/reviews/{REVIEW}/label",
        f"POST http://api.test/v1/reviews/{REVIEW}/skip",
        "POST http://api.test/v1/calibrations/calib_01JD0000000000000000000000/activate",
    ]
    assert json.loads(requests[0].content) == {"question": QUESTION, "when": {"below_confidence": 0.8}, "model": "svc-1.4.0"}
    assert json.loads(requests[7].content) == {"label": "refund"}


def test_a_lost_label_race_is_a_conflict_error_sent_once(monkeypatch: pytest.MonkeyPatch) -> None:
    requests: List[httpx.Request] = []
    body = {"error": {"type": "conflict", "code": "review_already_reviewed", "message": "x", "request_id": "req_1"}}
    http = httpx.Client(transport=httpx.MockTransport(recorder([httpx.Response(409, json=body)], requests)))
    client = svc_decide.Client(base_url="http://api.test", api_key="svc_test_k", http_client=http)
    with pytest.raises(svc_decide.ConflictError) as e:
        client.reviews.label(REVIEW, True)
    assert e.value.code == "review_already_reviewed"
    assert len(requests) == 1


def test_the_async_client_has_the_same_methods() -> None:
    requests: List[httpx.Request] = []

    async def run() -> None:
        transport = httpx.MockTransport(recorder([httpx.Response(200, json=rule())], requests))
        async with httpx.AsyncClient(transport=transport) as http:
            client = svc_decide.AsyncClient(base_url="http://api.test", api_key="svc_test_k", http_client=http)
            assert (await client.reviews.retrieve_rule(RULE))["id"] == RULE
            await client.reviews.list(question=RULE, limit=2)
            await client.reviews.label(REVIEW, False)
            await client.activate_calibration("calib_01JD0000000000000000000000")

    asyncio.run(run())
    assert [f"{r.method} {r.url}" for r in requests] == [
        f"GET http://api.test/v1/review-rules/{RULE}",
        f"GET http://api.test/v1/reviews?question={RULE}&limit=2",
        f"POST http://api.test/v1/reviews/{REVIEW}/label",
        "POST http://api.test/v1/calibrations/calib_01JD0000000000000000000000/activate",
    ]
