"""The client against the running API: typed answers, the read routes, errors by type, a test key."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

import svc_decide
from conftest import Stack

QUESTIONS: Any = {
    "mood": {"type": "pick", "instructions": "Customer mood?", "options": {"calm": None, "angry": "Shouting"}},
    "urgency": {"type": "rate", "instructions": "Urgency?", "levels": ["low", "medium", "high"]},
    "refund": {"type": "check", "instructions": "Does the customer ask for a refund?"},
}
STATE = {"ticket": "The parcel arrived broken and I want my money back."}


def test_decide_answers_every_question_in_its_shape(stack: Stack) -> None:
    with svc_decide.Client(base_url=stack.base_url, api_key=stack.live_key) as client:
        r = client.decide_with_response(state=STATE, questions=QUESTIONS, fallback="never")
    d = r.data
    assert d["object"] == "decision" and d["id"] == r.meta.request_id and d["served_by"] == "gpu"
    assert list(d["answers"]) == ["mood", "urgency", "refund"]
    mood, urgency, refund = d["answers"]["mood"], d["answers"]["urgency"], d["answers"]["refund"]
    assert mood["type"] == "pick" and list(mood["probabilities"]) == ["calm", "angry"]
    assert urgency["type"] == "rate" and urgency["levels"] == ["low", "medium", "high"]
    assert refund["type"] == "check" and 0 <= refund["probability"] <= 1
    assert d["usage"]["charge_micro_cents"] == d["usage"]["input_tokens"] * 5
    assert r.meta.idempotency_key is not None and r.meta.idempotency_key.startswith("sdk_")


def test_read_routes(stack: Stack) -> None:
    with svc_decide.Client(base_url=stack.base_url, api_key=stack.live_key) as client:
        assert client.get_key()["mode"] == "live"
        assert client.get_balance()["object"] == "balance"
        assert client.list_models()["data"][0]["max_questions"] == 32
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        assert client.get_usage(start=today, granularity="hour")["object"] == "usage"
        assert client.list_public_plans()["object"] == "list"
        with pytest.raises(svc_decide.ValidationError) as bad_date:
            client.get_usage(start="2026-13-01")
        assert bad_date.value.param == "start"


def test_errors_by_type(stack: Stack) -> None:
    stranger = svc_decide.Client(base_url=stack.base_url, api_key="svc_live_" + "0" * 40)
    with pytest.raises(svc_decide.AuthenticationError) as e401:
        stranger.get_key()
    assert e401.value.code == "invalid_api_key" and (e401.value.request_id or "").startswith("req_")
    client = svc_decide.Client(base_url=stack.base_url, api_key=stack.live_key)
    with pytest.raises(svc_decide.NotFoundError) as e404:
        client.decide(state=STATE, questions=QUESTIONS, model="svc-0.9.0")
    assert (e404.value.code, e404.value.param) == ("model_retired", "model")
    with pytest.raises(svc_decide.ConflictError) as e409:
        key = f"py-reused-{datetime.datetime.now().timestamp()}"
        client.decide(state="one text", questions=QUESTIONS, idempotency_key=key)
        client.decide(state="another text", questions=QUESTIONS, idempotency_key=key, max_retries=3)
    assert (e409.value.code, e409.value.attempts) == ("idempotency_key_reused", 1)


def test_async_client_with_a_test_key(stack: Stack) -> None:
    if not stack.test_key:
        pytest.skip("no test key given (SVC_TEST_KEY)")

    async def run() -> Any:
        async with svc_decide.AsyncClient(base_url=stack.base_url, api_key=stack.test_key) as client:
            return await client.decide(state=STATE, questions={"refund": QUESTIONS["refund"]})

    d = asyncio.run(run())
    assert d["usage"]["tier"] == "test" and d["usage"]["charge_micro_cents"] == 0


def test_an_evaluation_from_creation_to_deletion(stack: Stack) -> None:
    if not stack.test_key:
        pytest.skip("no test key given (SVC_TEST_KEY)")
    labelled = [
        ("The parcel arrived broken, I want a refund.", True),
        ("Where is my parcel? It is a week late.", False),
        ("Please give me my money back for the torn jacket.", True),
    ]
    items: Any = [
        {"state": {"ticket": text}, "questions": {"refund": QUESTIONS["refund"]}, "expected": {"refund": refund}}
        for text, refund in labelled
    ]
    with svc_decide.Client(base_url=stack.base_url, api_key=stack.live_key) as live:
        with pytest.raises(svc_decide.PermissionDeniedError) as e403:
            live.create_evaluation(name="live keys may not", items=items)
        assert e403.value.code == "live_key_not_allowed"
    with svc_decide.Client(base_url=stack.base_url, api_key=stack.test_key) as client:
        created = client.create_evaluation(name="python refund check", items=items)
        done = client.wait_for_evaluation(created["id"], poll_interval=0.5, timeout=120)
        assert (done["status"], done["progress"]) == ("done", {"done": 3, "total": 3})
        assert done["metrics"] is not None and "refund" in done["metrics"]
        scored = client.list_evaluation_items(created["id"])["data"]
        assert [i["index"] for i in scored] == [0, 1, 2] and all(i["decision"] for i in scored)
        assert created["id"] in [e["id"] for e in client.list_evaluations(limit=100)["data"]]
        assert client.delete_evaluation(created["id"])["deleted"] is True
        with pytest.raises(svc_decide.NotFoundError) as e404:
            client.get_evaluation(created["id"])
        assert e404.value.code == "evaluation_not_found"
