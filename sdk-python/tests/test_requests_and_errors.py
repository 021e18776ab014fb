"""What the client sends and how it reads answers, on httpx's MockTransport (no server, no waiting)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List, Optional

import httpx
import pytest

import svc_decide
import svc_decide.async_client
import svc_decide.client

Handler = Callable[[httpx.Request], httpx.Response]
QUESTIONS: Any = {"ok": {"type": "check", "instructions": "ok?"}}


def envelope(status: int, type: str, code: str, retry_after: Optional[int] = None, **extra: Any) -> httpx.Response:
    headers = {"x-request-id": "req_01JD0000000000000000000009"}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    error = {"type": type, "code": code, "message": f"m {code}", "request_id": headers["x-request-id"], **extra}
    return httpx.Response(status, json={"error": error}, headers=headers)


def fresh(response: httpx.Response) -> httpx.Response:
    """A new response with the same status, headers and body (httpx responses are read once)."""
    return httpx.Response(response.status_code, headers=response.headers, content=response.content)


class Recorder:
    """A MockTransport answering from a list (the last repeats), keeping every request and every wait."""

    def __init__(self, answers: List[httpx.Response], monkeypatch: pytest.MonkeyPatch) -> None:
        self.answers = answers
        self.requests: List[httpx.Request] = []
        self.sleeps: List[float] = []
        monkeypatch.setattr(svc_decide.client, "_sleep", self.sleeps.append)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return fresh(self.answers[min(len(self.requests) - 1, len(self.answers) - 1)])

    def client(self, **options: Any) -> svc_decide.Client:
        http = httpx.Client(transport=httpx.MockTransport(self))
        return svc_decide.Client(base_url="http://api.test/", api_key="svc_test_key", http_client=http, **options)


OK = httpx.Response(200, json={"object": "key"}, headers={"x-request-id": "req_1"})


@pytest.mark.parametrize(
    "status, type, code, error_class",
    [
        (400, "invalid_request", "invalid_json", svc_decide.InvalidRequestError),
        (401, "authentication", "invalid_api_key", svc_decide.AuthenticationError),
        (403, "permission", "insufficient_scope", svc_decide.PermissionDeniedError),
        (404, "not_found", "model_retired", svc_decide.NotFoundError),
        (405, "method_not_allowed", "method_not_allowed", svc_decide.MethodNotAllowedError),
        (409, "conflict", "idempotency_key_reused", svc_decide.ConflictError),
        (413, "too_large", "request_too_long", svc_decide.TooLargeError),
        (422, "validation", "invalid_value", svc_decide.ValidationError),
        (429, "rate_limited", "test_daily_quota", svc_decide.RateLimitError),
    ],
)
def test_errors_are_exceptions_by_type(
    monkeypatch: pytest.MonkeyPatch, status: int, type: str, code: str, error_class: type
) -> None:
    rec = Recorder([envelope(status, type, code, 30 if status == 429 else None, param="questions.q")], monkeypatch)
    with pytest.raises(error_class) as caught:
        rec.client().get_key()
    e = caught.value
    assert isinstance(e, svc_decide.SvcError)
    assert (e.status, e.type, e.code, e.param, e.request_id) == (
        status,
        type,
        code,
        "questions.q",
        "req_01JD0000000000000000000009",
    )
    assert e.known and e.attempts == 1 and len(rec.requests) == 1


def test_402_carries_the_balance_and_the_charge(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = envelope(402, "insufficient_balance", "insufficient_balance", balance_micro_cents=10, required_micro_cents=95)
    rec = Recorder([answer], monkeypatch)
    with pytest.raises(svc_decide.InsufficientBalanceError) as caught:
        rec.client().decide(state="s", questions=QUESTIONS)
    assert (caught.value.balance_micro_cents, caught.value.required_micro_cents) == (10, 95)
    assert caught.value.fields()["required_micro_cents"] == 95


def test_a_code_newer_than_the_client_keeps_its_type_and_an_answer_not_from_the_api_gets_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec = Recorder([envelope(403, "permission", "a_new_reason")], monkeypatch)
    with pytest.raises(svc_decide.PermissionDeniedError) as caught:
        rec.client().get_key()
    assert (caught.value.code, caught.value.known) == ("a_new_reason", False)
    proxy = Recorder([httpx.Response(502, text="<html>bad gateway</html>")], monkeypatch)
    with pytest.raises(svc_decide.ServiceUnavailableError) as bad_gateway:
        proxy.client(max_retries=0).get_key()
    assert (bad_gateway.value.code, bad_gateway.value.status) == ("http_502", 502)
    not_json = Recorder([httpx.Response(200, text="not json")], monkeypatch)
    with pytest.raises(svc_decide.InvalidResponseError):
        not_json.client().get_key()


def test_retries_are_bounded_and_the_last_error_says_how_many_attempts(monkeypatch: pytest.MonkeyPatch) -> None:
    busy = envelope(503, "unavailable", "no_capacity", 2)
    rec = Recorder([busy], monkeypatch)
    with pytest.raises(svc_decide.ServiceUnavailableError) as caught:
        rec.client().decide(state="s", questions=QUESTIONS)
    assert (caught.value.attempts, len(rec.requests), rec.sleeps) == (3, 3, [2.0, 2.0])
    five = Recorder([busy], monkeypatch)
    with pytest.raises(svc_decide.ServiceUnavailableError) as caught5:
        five.client(max_retries=5).decide(state="s", questions=QUESTIONS)
    assert caught5.value.attempts == 6
    none = Recorder([busy], monkeypatch)
    with pytest.raises(svc_decide.ServiceUnavailableError):
        none.client().decide(state="s", questions=QUESTIONS, max_retries=0)
    assert len(none.requests) == 1


def test_500_and_network_failures_back_off_with_jitter(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder([envelope(500, "internal", "internal_error"), envelope(500, "internal", "internal_error"), OK], monkeypatch)
    rec.client().decide(state="s", questions=QUESTIONS)
    assert 0.25 <= rec.sleeps[0] <= 0.5 and 0.5 <= rec.sleeps[1] <= 1.0

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    sleeps: List[float] = []
    monkeypatch.setattr(svc_decide.client, "_sleep", sleeps.append)
    client = svc_decide.Client(
        base_url="http://api.test", http_client=httpx.Client(transport=httpx.MockTransport(down)), max_retries=1
    )
    with pytest.raises(svc_decide.APIConnectionError) as caught:
        client.get_key()
    assert (caught.value.type, caught.value.code, caught.value.status, caught.value.attempts) == (
        "connection",
        "connection_failed",
        0,
        2,
    )


def test_a_retry_after_longer_than_the_client_waits_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder([envelope(429, "rate_limited", "sign_ins_per_hour", 3600)], monkeypatch)
    with pytest.raises(svc_decide.RateLimitError) as caught:
        rec.client().get_key()
    assert (caught.value.retry_after, len(rec.requests)) == (3600, 1)


def test_in_progress_is_waited_out_for_up_to_the_calls_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    in_progress = envelope(409, "conflict", "idempotency_in_progress", 1)
    rec = Recorder([in_progress], monkeypatch)
    with pytest.raises(svc_decide.ConflictError) as caught:
        rec.client().decide(state="s", questions=QUESTIONS, timeout=3.5)
    assert (caught.value.attempts, rec.sleeps) == (4, [1.0, 1.0, 1.0])  # waits do not use up max_retries


def test_headers_body_and_query(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder([OK], monkeypatch)
    client = rec.client()
    options = {"b": "second", "a": None, "10": "ten"}
    client.decide(
        state={"text": "Grüße"},
        questions={"q": {"type": "pick", "instructions": "i", "options": options}},
        client_request_id="mine-1",
    )
    client.decide(state="s", questions=QUESTIONS, model="svc-1.4.0", fallback="never", idempotency_key="k1")
    client.get_openapi_document()
    client.get_usage(start="2026-11-01", granularity="day")
    first, second, document, usage = rec.requests
    assert first.method == "POST" and str(first.url) == "http://api.test/v1/decide"
    assert first.headers["authorization"] == "Bearer svc_test_key"
    assert first.headers["content-type"] == "application/json"
    assert first.headers["x-client-request-id"] == "mine-1"
    assert first.headers["user-agent"].startswith(f"svc-decide/{svc_decide.__version__} python/")
    sent = json.loads(first.content)
    assert sent == {"state": {"text": "Grüße"}, "questions": {"q": {"type": "pick", "instructions": "i", "options": options}}}
    assert list(sent["questions"]["q"]["options"]) == ["b", "a", "10"]  # the caller's option order
    assert json.loads(second.content) == {"state": "s", "questions": QUESTIONS, "model": "svc-1.4.0", "fallback": "never"}
    assert second.headers["idempotency-key"] == "k1"
    assert "authorization" not in document.headers
    assert str(usage.url) == "http://api.test/v1/usage?start=2026-11-01&granularity=day"


def test_a_decides_timeout_grows_with_its_body(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder([OK], monkeypatch)
    client = rec.client()
    client.get_key()
    client.decide(state="x" * 10 * 1024, questions=QUESTIONS)
    client.decide(state="x" * 200 * 1024, questions=QUESTIONS)
    client.decide(state="x" * 10 * 1024, questions=QUESTIONS, timeout=5)
    read = [r.extensions["timeout"]["read"] for r in rec.requests]
    assert read[0] == 60
    assert 260 < read[1] < 262  # 60 s + 20 s per KiB of the ~10 KiB body
    assert read[2] == 900  # at most 15 minutes
    assert read[3] == 5  # a per-call timeout is used exactly
    assert all(r.extensions["timeout"]["connect"] <= 10 for r in rec.requests)
    assert svc_decide.TimeoutPolicy().for_body(5 * 1024) == 160


def test_async_client_reads_errors_and_retries_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = [envelope(503, "unavailable", "no_capacity", 2), OK]
    seen: List[httpx.Request] = []
    sleeps: List[float] = []

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    monkeypatch.setattr(svc_decide.async_client, "_sleep", fake_sleep)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return fresh(answers[min(len(seen) - 1, 1)])

    async def run() -> Dict[str, Any]:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with svc_decide.AsyncClient(base_url="http://api.test", api_key="k", http_client=http) as client:
            result: Dict[str, Any] = await client.decide(state="s", questions=QUESTIONS)
            with pytest.raises(svc_decide.ValidationError):
                answers[1] = envelope(422, "validation", "invalid_value")
                await client.get_key()
            return result

    assert asyncio.run(run()) == {"object": "key"}
    assert sleeps == [2.0]
    assert seen[0].headers["idempotency-key"] == seen[1].headers["idempotency-key"]


def test_base_url_and_api_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_BASE_URL", raising=False)
    with pytest.raises(ValueError):
        svc_decide.Client()
    monkeypatch.setenv("SVC_BASE_URL", "http://from-env.test")
    monkeypatch.setenv("SVC_API_KEY", "svc_test_env")
    rec = Recorder([OK], monkeypatch)
    client = svc_decide.Client(http_client=httpx.Client(transport=httpx.MockTransport(rec)))
    client.get_key()
    assert str(rec.requests[0].url) == "http://from-env.test/v1/key"
    assert rec.requests[0].headers["authorization"] == "Bearer svc_test_env"
