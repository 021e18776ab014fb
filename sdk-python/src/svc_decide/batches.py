"""The batch routes (issue 42) as ``client.batches``: up to 100,000 decide requests in one JSONL upload, run
in the background, their answers read back line by line as they arrive."""

from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Optional, cast

from . import _calls
from ._http import ApiResponse, Call, CallOptions
from ._jsonl import BatchSource, upload_of
from .batch_types import Batch, BatchList, BatchResultLine, DeletedBatch

Send = Callable[[Call, CallOptions], ApiResponse[Any]]
Stream = Callable[[Call, CallOptions], Iterator[Any]]
AsyncSend = Callable[[Call, CallOptions], Awaitable[ApiResponse[Any]]]
AsyncStream = Callable[[Call, CallOptions], AsyncIterator[Any]]


class Batches:
    """``Client.batches``. Every method also takes ``client_request_id``, ``timeout`` and ``max_retries``."""

    def __init__(self, send: Send, stream: Stream) -> None:
        self._send = send
        self._stream = stream

    def create(
        self,
        lines: BatchSource,
        *,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Batch:
        """POST /v1/batches: uploads the lines and returns the batch, ``queued``.

        ``lines``: an iterable of ``{"custom_id": ..., "body": <decide request>}`` (written out as JSONL while
        it is sent), the path of a JSONL file, a binary file object, or JSONL bytes. A list, a path, bytes and
        a seekable file are sent again on a retry; a generator or a pipe can be read once and is sent once.
        The API checks every line before it stores any: the first invalid one is a ``ValidationError`` whose
        ``param`` names it (``lines.3.body.questions.q.instructions``). With ``idempotency_key`` the same key
        and lines return the batch they created (``create_with_response(...).meta.replayed``), and the create
        is sent again after a 500 or a timeout; without one only after 429 and 503.
        """
        return self.create_with_response(
            lines,
            idempotency_key=idempotency_key,
            client_request_id=client_request_id,
            timeout=timeout,
            max_retries=max_retries,
        ).data

    def create_with_response(
        self,
        lines: BatchSource,
        *,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ApiResponse[Batch]:
        """``create()`` with the answer's meta (``replayed`` when the key answered an earlier batch)."""
        call = _calls.create_batch(upload_of(lines, asynchronous=False), idempotency_key)
        options = CallOptions(idempotency_key, client_request_id, timeout, max_retries)
        return cast(ApiResponse[Batch], self._send(call, options))

    def retrieve(self, batch_id: str, **options: Any) -> Batch:
        """GET /v1/batches/{id}: status, counts and usage so far."""
        return cast(Batch, self._send(_calls.of_batch("get_batch", batch_id), CallOptions(**options)).data)

    def list(self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any) -> BatchList:
        """GET /v1/batches: a page of the account's batches, newest first (``limit`` 1 to 100)."""
        call = _calls.list_batches(limit, starting_after)
        return cast(BatchList, self._send(call, CallOptions(**options)).data)

    def cancel(self, batch_id: str, **options: Any) -> Batch:
        """POST /v1/batches/{id}/cancel: lines not yet run are never run; a finished batch is returned as it is."""
        return cast(Batch, self._send(_calls.of_batch("cancel_batch", batch_id), CallOptions(**options)).data)

    def delete(self, batch_id: str, **options: Any) -> DeletedBatch:
        """DELETE /v1/batches/{id}: a finished batch with its lines and results (``ConflictError``
        ``batch_not_finished`` while it is queued, running or paused)."""
        call = _calls.of_batch("delete_batch", batch_id)
        return cast(DeletedBatch, self._send(call, CallOptions(**options)).data)

    def results(self, batch_id: str, **options: Any) -> Iterator[BatchResultLine]:
        """GET /v1/batches/{id}/results: one line per finished request, in input order, parsed as the body
        arrives (never read whole: a batch may have 100,000 lines). The request is made when iteration
        starts; leaving the loop early closes the connection. ``timeout`` bounds each read."""
        return cast(Iterator[BatchResultLine], self._stream(_calls.batch_results(batch_id), CallOptions(**options)))


class AsyncBatches:
    """``AsyncClient.batches``: the same methods as ``Client.batches``, awaited; ``results`` is an async
    iterator, and ``create`` also takes an async iterable of lines."""

    def __init__(self, send: AsyncSend, stream: AsyncStream) -> None:
        self._send = send
        self._stream = stream

    async def create(
        self,
        lines: BatchSource,
        *,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Batch:
        """POST /v1/batches (see ``Batches.create``)."""
        response = await self.create_with_response(
            lines,
            idempotency_key=idempotency_key,
            client_request_id=client_request_id,
            timeout=timeout,
            max_retries=max_retries,
        )
        return response.data

    async def create_with_response(
        self,
        lines: BatchSource,
        *,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ApiResponse[Batch]:
        """``create()`` with the answer's meta (``replayed`` when the key answered an earlier batch)."""
        call = _calls.create_batch(upload_of(lines, asynchronous=True), idempotency_key)
        options = CallOptions(idempotency_key, client_request_id, timeout, max_retries)
        return cast(ApiResponse[Batch], await self._send(call, options))

    async def retrieve(self, batch_id: str, **options: Any) -> Batch:
        """GET /v1/batches/{id}."""
        response = await self._send(_calls.of_batch("get_batch", batch_id), CallOptions(**options))
        return cast(Batch, response.data)

    async def list(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any
    ) -> BatchList:
        """GET /v1/batches: a page of the account's batches, newest first."""
        response = await self._send(_calls.list_batches(limit, starting_after), CallOptions(**options))
        return cast(BatchList, response.data)

    async def cancel(self, batch_id: str, **options: Any) -> Batch:
        """POST /v1/batches/{id}/cancel."""
        response = await self._send(_calls.of_batch("cancel_batch", batch_id), CallOptions(**options))
        return cast(Batch, response.data)

    async def delete(self, batch_id: str, **options: Any) -> DeletedBatch:
        """DELETE /v1/batches/{id}."""
        response = await self._send(_calls.of_batch("delete_batch", batch_id), CallOptions(**options))
        return cast(DeletedBatch, response.data)

    async def results(self, batch_id: str, **options: Any) -> AsyncIterator[BatchResultLine]:
        """GET /v1/batches/{id}/results as an async iterator: ``async for line in client.batches.results(id)``."""
        async for line in self._stream(_calls.batch_results(batch_id), CallOptions(**options)):
            yield line
