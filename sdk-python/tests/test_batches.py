"""client.batches (issue 42) against a real HTTP stand-in of the batch routes: methods and paths, what an
upload sends (lines, a path, a file object, bytes; streamed or not), the create's retries, and results read
line by line as they arrive."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List

import pytest

import svc_decide
import svc_decide.async_client
import svc_decide.client
from batch_stand_in import BATCH, BatchStandIn, Error, Json, Lines
from svc_decide.batch_types import BatchLine, BatchResultLine

Start = Callable[[List[Any]], BatchStandIn]
ID = "batch_01JD0000000000000000000000"


def line(n: int) -> BatchLine:
    return {"custom_id": f"ticket-{n}", "body": {"state": f"Ticket {n} ✓", "questions": {"q": {"type": "check", "instructions": "ok?"}}}}


LINES = [line(1), line(2)]
JSONL = b"".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for x in LINES)


def result(n: int, custom_id: str = "") -> str:
    decision = {"id": f"req_{n}", "object": "decision", "answers": {}}
    return json.dumps({"custom_id": custom_id or f"ticket-{n}", "status": 200, "body": decision}, ensure_ascii=False)


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> List[float]:
    sleeps: List[float] = []
    monkeypatch.setattr(svc_decide.client, "_sleep", sleeps.append)

    async def async_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    monkeypatch.setattr(svc_decide.async_client, "_sleep", async_sleep)
    return sleeps


def client(api: BatchStandIn) -> svc_decide.Client:
    return svc_decide.Client(base_url=api.url, api_key="svc_test_k")


def test_each_operation_sends_its_method_and_path(batch_api: Start) -> None:
    api = batch_api([
        Json(),
        Json(200),
        Json(200, {"object": "list", "data": [BATCH], "has_more": False}),
        Json(200, {**BATCH, "status": "cancelled"}),
        Json(200, {"id": ID, "object": "batch", "deleted": True}),
        Lines([result(1)]),
    ])
    c = client(api)
    assert c.batches.create(LINES)["status"] == "queued"
    c.batches.retrieve(ID)
    assert c.batches.list(limit=5, starting_after=ID)["has_more"] is False
    assert c.batches.cancel(ID)["status"] == "cancelled"
    assert c.batches.delete(ID)["deleted"] is True
    assert [x["custom_id"] for x in c.batches.results("batch/x")] == ["ticket-1"]
    assert [(r.method, r.path) for r in api.requests] == [
        ("POST", "/v1/batches"),
        ("GET", f"/v1/batches/{ID}"),
        ("GET", f"/v1/batches?limit=5&starting_after={ID}"),
        ("POST", f"/v1/batches/{ID}/cancel"),
        ("DELETE", f"/v1/batches/{ID}"),
        ("GET", "/v1/batches/batch%2Fx/results"),
    ]
    assert all(r.headers["authorization"] == "Bearer svc_test_k" for r in api.requests)
    assert api.requests[0].headers["content-type"] == "application/jsonl"
    assert api.requests[5].headers["accept"] == "application/jsonl, application/json"


def test_the_upload_is_jsonl_from_a_list_a_generator_a_path_a_file_object_or_bytes(batch_api: Start, tmp_path: Path) -> None:
    api = batch_api([Json()])
    c = client(api)
    path = tmp_path / "lines.jsonl"
    path.write_bytes(JSONL)
    c.batches.create(LINES)
    c.batches.create(x for x in LINES)
    c.batches.create(str(path))
    c.batches.create(path)
    with path.open("rb") as f:
        c.batches.create(f)
    c.batches.create(JSONL)
    c.batches.create(iter([JSONL[:7], JSONL[7:]]))  # chunks already written pass as they are
    assert [r.body for r in api.requests] == [JSONL] * 7
    # A path, a seekable file and bytes go with their length; lines are written out while sent (chunked).
    assert [r.headers.get("content-length") for r in api.requests] == [None, None, *[str(len(JSONL))] * 4, None]
    assert [r.headers.get("transfer-encoding") for r in api.requests][:2] == ["chunked", "chunked"]


def test_an_upload_that_is_not_lines_a_path_a_file_or_bytes_is_a_type_error(batch_api: Start) -> None:
    c = client(batch_api([Json()]))
    with pytest.raises(TypeError, match="batches.create takes lines"):
        c.batches.create(42)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        c.batches.create("/nonexistent/lines.jsonl")


def test_a_create_without_a_key_is_retried_after_429_with_the_same_body_never_after_a_500(batch_api: Start) -> None:
    limited = batch_api([Error(429, "rate_limited", "requests_per_minute", 1), Json()])
    client(limited).batches.create(LINES)
    assert [r.body for r in limited.requests] == [JSONL, JSONL]
    assert "idempotency-key" not in limited.requests[0].headers
    failed = batch_api([Error(500, "internal", "internal_error"), Json()])
    with pytest.raises(svc_decide.InternalServerError):
        client(failed).batches.create(LINES)
    assert len(failed.requests) == 1  # a second create could make a second batch


def test_with_a_key_a_create_is_retried_after_a_500_with_the_same_key_and_body_and_the_replay_is_flagged(
    batch_api: Start, tmp_path: Path
) -> None:
    api = batch_api([Error(500, "internal", "internal_error"), Json(201, BATCH, {"idempotent-replayed": "true"})])
    f = io.BytesIO(b"ignored before here|" + JSONL)
    f.seek(len(b"ignored before here|"))
    response = client(api).batches.create_with_response(f, idempotency_key="nightly-2026-11-27")
    assert (response.meta.status, response.meta.replayed, response.meta.attempts) == (201, True, 2)
    assert [(r.headers["idempotency-key"], r.body) for r in api.requests] == [("nightly-2026-11-27", JSONL)] * 2


def test_a_generator_can_be_read_once_so_it_is_sent_once_and_the_429_is_raised(batch_api: Start) -> None:
    api = batch_api([Error(429, "rate_limited", "batches_in_progress", 30), Json()])
    with pytest.raises(svc_decide.RateLimitError) as caught:
        client(api).batches.create((x for x in LINES), idempotency_key="k")
    assert (caught.value.code, caught.value.retry_after, caught.value.attempts) == ("batches_in_progress", 30, 1)
    assert len(api.requests) == 1


def test_a_422_names_the_first_invalid_line_in_param(batch_api: Start) -> None:
    api = batch_api([Error(422, "validation", "invalid_value")])
    with pytest.raises(svc_decide.ValidationError):
        client(api).batches.create(LINES)


def test_results_stream_20000_lines_in_order_and_only_newline_ends_a_line(batch_api: Start) -> None:
    odd = "a\u2028b\u0085c"  # JSON may hold these as they are; str.splitlines (and httpx's iter_lines) splits on them
    lines = [result(n) for n in range(20_000)] + [result(20_000, odd)]
    api = batch_api([Lines(lines, per_chunk=700)])
    got = list(client(api).batches.results(ID))
    assert len(got) == 20_001
    assert [x["custom_id"] for x in got[:3]] == ["ticket-0", "ticket-1", "ticket-2"]
    assert got[-1]["custom_id"] == odd


def test_results_are_handed_out_before_the_body_ends_and_leaving_early_closes_it(batch_api: Start) -> None:
    api = batch_api([Lines([result(n) for n in range(5_000)], per_chunk=100)])
    results = client(api).batches.results(ID)
    first = next(results)
    assert first["custom_id"] == "ticket-0"
    assert isinstance(results, Iterator)
    results.close()  # what a `break` does: the connection is closed, the rest never read


def test_a_503_before_the_body_is_retried_a_404_is_raised_typed(batch_api: Start) -> None:
    api = batch_api([Error(503, "unavailable", "no_capacity", 1), Lines([result(1)]), Error(404, "not_found", "batch_not_found")])
    assert len(list(client(api).batches.results(ID))) == 1
    assert len(api.requests) == 2
    with pytest.raises(svc_decide.NotFoundError) as caught:
        list(client(api).batches.results(ID))
    assert caught.value.code == "batch_not_found"


def test_a_body_cut_midway_raises_a_connection_error_and_is_not_read_again(batch_api: Start) -> None:
    api = batch_api([Lines([result(n) for n in range(3_000)], per_chunk=500, cut_after=1_000)])
    seen: List[BatchResultLine] = []
    with pytest.raises(svc_decide.APIConnectionError):
        for x in client(api).batches.results(ID):
            seen.append(x)
    assert len(seen) == 1_000
    assert len(api.requests) == 1  # lines already handed out are never repeated by a retry


def test_a_line_that_is_not_json_is_an_invalid_response(batch_api: Start) -> None:
    api = batch_api([Lines([result(1), '{"custom_id":'])])
    with pytest.raises(svc_decide.InvalidResponseError) as caught:
        list(client(api).batches.results(ID))
    assert (caught.value.code, caught.value.message) == ("invalid_jsonl_response", "Line 2 of the answer is not JSON.")


def test_the_async_client_streams_an_async_iterable_and_reads_results_with_async_for(batch_api: Start) -> None:
    api = batch_api([Json(), Json(), Lines([result(n) for n in range(2_000)])])

    async def lines() -> AsyncIterator[BatchLine]:
        for x in LINES:
            yield x

    async def run() -> List[Dict[str, Any]]:
        async with svc_decide.AsyncClient(base_url=api.url, api_key="svc_test_k") as c:
            await c.batches.create(lines())
            with io.BytesIO(JSONL) as f:
                await c.batches.create(f)
            return [dict(x) async for x in c.batches.results(ID)]

    got = asyncio.run(run())
    assert [r.body for r in api.requests[:2]] == [JSONL, JSONL]
    assert api.requests[0].headers.get("transfer-encoding") == "chunked"
    assert len(got) == 2_000 and got[-1]["custom_id"] == "ticket-1999"


def test_the_async_client_retries_like_the_sync_one(batch_api: Start, tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(JSONL)
    api = batch_api([Error(500, "internal", "internal_error"), Json(), Json(200, {"object": "list", "data": [], "has_more": False})])

    async def run() -> None:
        async with svc_decide.AsyncClient(base_url=api.url, api_key="svc_test_k") as c:
            await c.batches.create(path, idempotency_key="k")
            await c.batches.list()

    asyncio.run(run())
    assert [r.body for r in api.requests[:2]] == [JSONL, JSONL]
    assert api.requests[2].path == "/v1/batches"


def test_an_async_iterable_on_the_sync_client_is_a_type_error(batch_api: Start) -> None:
    async def lines() -> AsyncIterator[BatchLine]:
        yield line(1)

    with pytest.raises(TypeError, match="needs AsyncClient"):
        client(batch_api([Json()])).batches.create(lines())
