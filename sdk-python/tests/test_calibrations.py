"""The calibration methods (issue 44's routes): paths, queries, bodies, the create's cautious retries, the
async twins, and a decide's answer carrying the calibration that answered it; on httpx's MockTransport."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import httpx
import pytest

import svc_decide
import svc_decide.async_client
import svc_decide.client
from svc_decide.calibration_types import Calibration
from svc_decide.types import CheckAnswer

CALIB = "calib_01JD0000000000000000000000"
EVAL = "eval_01JD0000000000000000000000"


def metrics(ece15: float, nll: float) -> Dict[str, Any]:
    return {"n": 60, "accuracy": 0.8, "ece15": ece15, "ece15_noise_floor": 0.04, "nll": nll, "brier": 0.15,
            "auc": 0.88, "reliability": [], "thresholds": [{"target": 0.9, "min_confidence": 0.7, "coverage": 0.5}]}


def calibration(active: bool = True) -> Dict[str, Any]:
    return {
        "id": CALIB,
        "object": "calibration",
        "model": "svc-1.5.1",
        "evaluation": EVAL,
        "question_id": "refund",
        "question": {"type": "check", "instructions": "Does the customer ask for a refund?"},
        "method": "temperature",
        "map": {"temperature": 0.5, "bias": [0, 0]},
        "n": 60,
        "metrics": {"folds": 5, "before": metrics(0.12, 0.52), "after": metrics(0.04, 0.41)},
        "active": active,
        "created": 1,
        "deactivated": None if active else 2,
    }


class Api:
    def __init__(self, answers: List[httpx.Response], monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers = answers
        self.requests: List[httpx.Request] = []
        monkeypatch.setattr(svc_decide.client, "_sleep", lambda _: None)
        http = httpx.Client(transport=httpx.MockTransport(self.answer))
        self.client = svc_decide.Client(base_url="http://api.test", api_key="svc_test_k", http_client=http)

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        r = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        return httpx.Response(r.status_code, headers=r.headers, content=r.content)


def ok(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def error(status: int, type: str, code: str) -> httpx.Response:
    body = {"error": {"type": type, "code": code, "message": code, "request_id": "req_1"}}
    return httpx.Response(status, json=body, headers={"retry-after": "1"})


def test_paths_queries_and_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api([ok(calibration(), 201)], monkeypatch)
    api.client.create_calibration(evaluation=EVAL, question="refund")
    api.client.preview_calibration(evaluation=EVAL, question="refund")
    api.client.list_calibrations(limit=5, starting_after=CALIB)
    api.client.list_calibrations()
    api.client.get_calibration(CALIB)
    api.client.delete_calibration("calib/x")
    assert [(r.method, str(r.url)) for r in api.requests] == [
        ("POST", "http://api.test/v1/calibrations"),
        ("POST", "http://api.test/v1/calibration-previews"),
        ("GET", f"http://api.test/v1/calibrations?limit=5&starting_after={CALIB}"),
        ("GET", "http://api.test/v1/calibrations"),
        ("GET", f"http://api.test/v1/calibrations/{CALIB}"),
        ("DELETE", "http://api.test/v1/calibrations/calib%2Fx"),
    ]
    body = {"evaluation": EVAL, "question": "refund"}
    assert [json.loads(r.content) for r in api.requests[:2]] == [body, body]
    assert all(r.headers["authorization"] == "Bearer svc_test_k" for r in api.requests)


def test_answers_come_back_as_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    preview = {**calibration(False), "id": None, "object": "calibration_preview", "deactivated": None}
    api = Api([ok(calibration(), 201), ok(preview), ok({"object": "list", "data": [calibration()], "has_more": False}),
               ok(calibration(False))], monkeypatch)
    created: Calibration = api.client.create_calibration(evaluation=EVAL, question="refund")
    assert (created["metrics"]["before"]["ece15"], created["metrics"]["after"]["ece15"]) == (0.12, 0.04)
    assert api.client.preview_calibration(evaluation=EVAL, question="refund")["id"] is None
    assert api.client.list_calibrations()["data"][0]["question_id"] == "refund"
    deleted = api.client.delete_calibration(CALIB)
    assert (deleted["active"], deleted["deactivated"]) == (False, 2)


def test_a_create_is_retried_after_429_but_never_after_a_500_and_a_preview_is(monkeypatch: pytest.MonkeyPatch) -> None:
    limited = Api([error(429, "rate_limited", "requests_per_minute"), ok(calibration(), 201)], monkeypatch)
    assert limited.client.create_calibration(evaluation=EVAL, question="refund")["id"] == CALIB
    assert len(limited.requests) == 2
    failed = Api([error(500, "internal", "internal_error"), ok(calibration(), 201)], monkeypatch)
    with pytest.raises(svc_decide.InternalServerError):
        failed.client.create_calibration(evaluation=EVAL, question="refund")
    assert len(failed.requests) == 1  # a second create would replace the first
    preview = Api([error(500, "internal", "internal_error"), ok(calibration())], monkeypatch)
    preview.client.preview_calibration(evaluation=EVAL, question="refund")
    assert len(preview.requests) == 2  # stores nothing: safe to send again


def test_the_apis_calibration_errors_are_raised_by_type(monkeypatch: pytest.MonkeyPatch) -> None:
    api = Api([error(422, "validation", "calibration_no_gain"), error(409, "conflict", "evaluation_not_done"),
               error(404, "not_found", "calibration_not_found")], monkeypatch)
    with pytest.raises(svc_decide.ValidationError) as no_gain:
        api.client.create_calibration(evaluation=EVAL, question="refund")
    with pytest.raises(svc_decide.ConflictError) as not_done:
        api.client.preview_calibration(evaluation=EVAL, question="refund")
    with pytest.raises(svc_decide.NotFoundError) as missing:
        api.client.get_calibration(CALIB)
    assert [e.value.code for e in (no_gain, not_done, missing)] == [
        "calibration_no_gain", "evaluation_not_done", "calibration_not_found"]


def test_the_async_client_has_the_same_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[str] = []

    async def no_sleep(_: float) -> None:
        pass

    monkeypatch.setattr(svc_decide.async_client, "_sleep", no_sleep)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        return ok(calibration())

    async def run() -> Calibration:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with svc_decide.AsyncClient(base_url="http://api.test", api_key="k", http_client=http) as client:
            await client.create_calibration(evaluation=EVAL, question="refund")
            await client.preview_calibration(evaluation=EVAL, question="refund")
            await client.list_calibrations(limit=1)
            await client.get_calibration(CALIB)
            return await client.delete_calibration(CALIB)

    assert asyncio.run(run())["id"] == CALIB
    assert seen == ["POST /v1/calibrations", "POST /v1/calibration-previews", "GET /v1/calibrations",
                    f"GET /v1/calibrations/{CALIB}", f"DELETE /v1/calibrations/{CALIB}"]


def test_a_decides_answer_carries_the_calibration_that_answered_it(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = {"refund": {"type": "check", "probability": 0.97, "confidence": 0.9, "abstained": False,
                          "calibration": CALIB},
               "mood": {"type": "pick", "choice": "calm", "probabilities": {"calm": 1.0}, "confidence": 1.0,
                        "abstained": False}}
    api = Api([ok({"object": "decision", "model": "svc-1.5.1", "answers": answers})], monkeypatch)
    d = api.client.decide(state="Refund me.", questions={
        "refund": {"type": "check", "instructions": "Does the customer ask for a refund?"},
        "mood": {"type": "pick", "instructions": "Mood?", "options": {"calm": None}}})
    refund = d["answers"]["refund"]
    assert refund["type"] == "check"
    typed: CheckAnswer = refund
    assert (typed.get("calibration"), d["answers"]["mood"].get("calibration")) == (CALIB, None)
