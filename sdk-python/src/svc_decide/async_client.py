"""The asynchronous client (asyncio or trio, through httpx)."""

from __future__ import annotations

import time

import anyio
from typing import Any, AsyncIterator, Mapping, Optional, Sequence, cast

import httpx

from . import _calls
from ._http import (
    ApiResponse,
    Call,
    CallOptions,
    ClientConfig,
    error_from_failure,
    error_from_response,
    httpx_timeout,
    new_idempotency_key,
    read_answer,
)
from ._jsonl import JsonLines
from .batches import AsyncBatches
from .reviews import AsyncReviews
from .errors import SvcError, evaluation_wait_timeout, with_attempts
from .operations import FINAL_EVALUATION_STATUSES
from .retry import RetryPolicy, RetryState
from .timeouts import TimeoutPolicy
from .calibration_types import Calibration, CalibrationList, CalibrationPreview
from .evaluation_types import DeletedEvaluation, Evaluation, EvaluationItemInput, EvaluationItemList, EvaluationList
from .types import (
    Balance,
    Decision,
    Fallback,
    Key,
    ModelList,
    PlanList,
    Questions,
    State,
    UsageReport,
)

_sleep = anyio.sleep  # the tests replace it


class AsyncClient:
    """The svc API client for ``async`` code: the same methods as ``Client``, awaited; one method per public operation, typed answers, retries by the spec's rules,
    errors raised as ``SvcError`` subclasses by ``type``.

    ``base_url`` and ``api_key`` default to the environment's ``SVC_BASE_URL`` and ``SVC_API_KEY``.
    ``timeout`` (seconds) bounds one attempt of a call without a body and is the base of a decide's bound,
    which adds ``timeout_per_kib`` per KiB of its body, at most ``max_timeout``. ``http_client`` lets you
    bring your own ``httpx.AsyncClient`` (proxies, transports); the client then leaves closing it to you.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_retries: int = 2,
        timeout: float = 60.0,
        timeout_per_kib: float = 20.0,
        max_timeout: float = 900.0,
        max_retry_after: int = 60,
        headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._config = ClientConfig(
            base_url,
            api_key,
            retry=RetryPolicy(max_retries=max_retries, max_retry_after=max_retry_after),
            timeouts=TimeoutPolicy(timeout=timeout, timeout_per_kib=timeout_per_kib, max_timeout=max_timeout),
            headers=headers,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()
        #: The batch routes: ``create``, ``retrieve``, ``list``, ``cancel``, ``delete``, ``results``.
        self.batches = AsyncBatches(self._send, self._stream_lines)
        #: Review rules, the queue and the loop (issue 51).
        self.reviews = AsyncReviews(self._send)

    async def decide(
        self,
        *,
        state: State,
        questions: Questions,
        model: Optional[str] = None,
        fallback: Optional[Fallback] = None,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Decision:
        """POST /v1/decide: one state, 1 to 32 questions, answered with probabilities.

        An idempotency key is made when none is given and sent on every attempt, so a retried decide is
        charged at most once.
        """
        response = await self.decide_with_response(
            state=state,
            questions=questions,
            model=model,
            fallback=fallback,
            idempotency_key=idempotency_key,
            client_request_id=client_request_id,
            timeout=timeout,
            max_retries=max_retries,
        )
        return response.data

    async def decide_with_response(
        self,
        *,
        state: State,
        questions: Questions,
        model: Optional[str] = None,
        fallback: Optional[Fallback] = None,
        idempotency_key: Optional[str] = None,
        client_request_id: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> ApiResponse[Decision]:
        """``decide()`` with the answer's meta (request id, replay flag, rate-limit headers, attempts)."""
        options = CallOptions(idempotency_key or new_idempotency_key(), client_request_id, timeout, max_retries)
        return cast(ApiResponse[Decision], await self._send(_calls.decide(state, questions, model, fallback), options))

    async def list_models(self, **options: Any) -> ModelList:
        """GET /v1/models: every model version and its limits."""
        return cast(ModelList, (await self._send(_calls.plain("list_models"), CallOptions(**options))).data)

    async def get_key(self, **options: Any) -> Key:
        """GET /v1/key: the calling key."""
        return cast(Key, (await self._send(_calls.plain("get_key"), CallOptions(**options))).data)

    async def get_balance(self, **options: Any) -> Balance:
        """GET /v1/balance (scope ``balance:read``)."""
        return cast(Balance, (await self._send(_calls.plain("get_balance"), CallOptions(**options))).data)

    async def get_usage(
        self,
        *,
        start: str,
        end: Optional[str] = None,
        granularity: Optional[str] = None,
        key_id: Optional[str] = None,
        **options: Any,
    ) -> UsageReport:
        """GET /v1/usage (scope ``usage:read``): usage per key by day or hour, dates ``YYYY-MM-DD``."""
        call = _calls.usage(start, end, granularity, key_id)
        return cast(UsageReport, (await self._send(call, CallOptions(**options))).data)

    async def list_public_plans(self, **options: Any) -> PlanList:
        """GET /v1/plans: plans, seats and top-up packs (public, no key)."""
        return cast(PlanList, (await self._send(_calls.plain("list_public_plans"), CallOptions(**options))).data)

    async def get_openapi_document(self, **options: Any) -> Any:
        """GET /v1/openapi.json: the API's OpenAPI 3.1 document (public)."""
        return (await self._send(_calls.plain("get_openapi_document"), CallOptions(**options))).data

    async def create_evaluation(
        self,
        *,
        name: str,
        items: Sequence[EvaluationItemInput],
        model: Optional[str] = None,
        **options: Any,
    ) -> Evaluation:
        """POST /v1/evaluations (test keys only): 1 to 1,000 labelled items, scored in the background on
        the model version ``model`` resolves to now. Retried only after 429 and 503 (a create carries no
        idempotency key)."""
        call = _calls.create_evaluation(name, items, model)
        return cast(Evaluation, (await self._send(call, CallOptions(**options))).data)

    async def list_evaluations(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any
    ) -> EvaluationList:
        """GET /v1/evaluations: a page of the account's evaluations, newest first."""
        call = _calls.list_evaluations(limit, starting_after)
        return cast(EvaluationList, (await self._send(call, CallOptions(**options))).data)

    async def get_evaluation(self, evaluation_id: str, **options: Any) -> Evaluation:
        """GET /v1/evaluations/{id}: status, progress, and the metrics once done."""
        call = _calls.of_evaluation("get_evaluation", evaluation_id)
        return cast(Evaluation, (await self._send(call, CallOptions(**options))).data)

    async def cancel_evaluation(self, evaluation_id: str, **options: Any) -> Evaluation:
        """POST /v1/evaluations/{id}/cancel."""
        call = _calls.of_evaluation("cancel_evaluation", evaluation_id)
        return cast(Evaluation, (await self._send(call, CallOptions(**options))).data)

    async def delete_evaluation(self, evaluation_id: str, **options: Any) -> DeletedEvaluation:
        """DELETE /v1/evaluations/{id}: the evaluation, its items and answers."""
        call = _calls.of_evaluation("delete_evaluation", evaluation_id)
        return cast(DeletedEvaluation, (await self._send(call, CallOptions(**options))).data)

    async def list_evaluation_items(
        self, evaluation_id: str, *, limit: Optional[int] = None, starting_after: Optional[int] = None, **options: Any
    ) -> EvaluationItemList:
        """GET /v1/evaluations/{id}/items: a page of items with what each decide answered."""
        call = _calls.of_evaluation("list_evaluation_items", evaluation_id, _calls.page(limit, starting_after))
        return cast(EvaluationItemList, (await self._send(call, CallOptions(**options))).data)

    async def wait_for_evaluation(
        self, evaluation_id: str, *, poll_interval: float = 2.0, timeout: Optional[float] = None
    ) -> Evaluation:
        """Polls ``get_evaluation`` every ``poll_interval`` seconds until the evaluation is done, cancelled
        or failed (a paused one is waited for too), and returns it; ``APITimeoutError`` after ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            evaluation = await self.get_evaluation(evaluation_id)
            if evaluation["status"] in FINAL_EVALUATION_STATUSES:
                return evaluation
            if deadline is not None and time.monotonic() + poll_interval > deadline:
                raise evaluation_wait_timeout(evaluation)
            await _sleep(poll_interval)

    async def create_calibration(self, *, evaluation: str, question: str, **options: Any) -> Calibration:
        """POST /v1/calibrations: fits a map for one question on a ``done`` evaluation's labels and applies it
        at once to the account's decides asking that question, as written, of the evaluation's exact version
        (replacing the question's previous calibration). Retried only after 429 and 503."""
        call = _calls.calibration("create_calibration", evaluation, question)
        return cast(Calibration, (await self._send(call, CallOptions(**options))).data)

    async def preview_calibration(self, *, evaluation: str, question: str, **options: Any) -> CalibrationPreview:
        """POST /v1/calibration-previews: the same fit and metrics as ``create_calibration``, stored nowhere."""
        call = _calls.calibration("preview_calibration", evaluation, question)
        return cast(CalibrationPreview, (await self._send(call, CallOptions(**options))).data)

    async def list_calibrations(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any
    ) -> CalibrationList:
        """GET /v1/calibrations: a page of the account's calibrations, active or not, newest first."""
        call = _calls.list_calibrations(limit, starting_after)
        return cast(CalibrationList, (await self._send(call, CallOptions(**options))).data)

    async def get_calibration(self, calibration_id: str, **options: Any) -> Calibration:
        """GET /v1/calibrations/{id}: a calibration, active or not."""
        call = _calls.of_calibration("get_calibration", calibration_id)
        return cast(Calibration, (await self._send(call, CallOptions(**options))).data)

    async def activate_calibration(self, calibration_id: str, **options: Any) -> Calibration:
        """POST /v1/calibrations/{id}/activate: applies a stored, inactive calibration (a review loop's fit),
        replacing the question's active one."""
        call = _calls.of_calibration("activate_calibration", calibration_id)
        response = await self._send(call, CallOptions(**options))
        return cast(Calibration, response.data)

    async def delete_calibration(self, calibration_id: str, **options: Any) -> Calibration:
        """DELETE /v1/calibrations/{id}: stops applying it (``active`` False); replays keep the answers it gave."""
        call = _calls.of_calibration("delete_calibration", calibration_id)
        return cast(Calibration, (await self._send(call, CallOptions(**options))).data)

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: Optional[Mapping[str, Optional[str]]] = None,
        auth: bool = True,
        **options: Any,
    ) -> ApiResponse[Any]:
        """Any route, for operations newer than this package: same headers, retries and errors."""
        return await self._send(_calls.any_route(method, path, body, query, auth), CallOptions(**options))

    async def close(self) -> None:
        """Closes the connection pool (unless you passed your own ``http_client``)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def _send(self, call: Call, options: CallOptions) -> ApiResponse[Any]:
        prepared = self._config.prepare(call, options)
        state = RetryState(self._config.retry_for(options, call), prepared.timeout, call.operation.idempotent)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.request(
                    prepared.method,
                    prepared.url,
                    params=prepared.params,
                    headers=prepared.headers,
                    content=self._config.content_for_attempt(prepared),
                    timeout=httpx_timeout(prepared.timeout),
                )
                result = read_answer(response, prepared, attempt)
            except httpx.TransportError as exc:
                result = error_from_failure(exc)
            if not isinstance(result, SvcError):
                return result
            delay = state.next_delay(result)
            if delay is None:
                raise with_attempts(result, attempt)
            await _sleep(delay)

    async def _stream_lines(self, call: Call, options: CallOptions) -> AsyncIterator[Any]:
        """The JSON lines of a 2xx answer's body as its bytes arrive. Retried by the rules only before the
        body is read: a connection cut while reading is raised (lines already handed out are not repeated)."""
        prepared = self._config.prepare(call, options)
        state = RetryState(self._config.retry_for(options, call), prepared.timeout, call.operation.idempotent)
        attempt = 0
        while True:
            attempt += 1
            reading = False
            try:
                async with self._http.stream(
                    prepared.method,
                    prepared.url,
                    params=prepared.params,
                    headers=prepared.headers,
                    content=self._config.content_for_attempt(prepared),
                    timeout=httpx_timeout(prepared.timeout),
                ) as response:
                    if response.is_success:
                        reading = True
                        lines = JsonLines()
                        async for chunk in response.aiter_bytes():
                            for line in lines.feed(chunk):
                                yield line
                        for line in lines.end():
                            yield line
                        return
                    await response.aread()
                    result = error_from_response(response)
            except httpx.TransportError as exc:
                if reading:
                    raise with_attempts(error_from_failure(exc), attempt) from exc
                result = error_from_failure(exc)
            delay = state.next_delay(result)
            if delay is None:
                raise with_attempts(result, attempt)
            await _sleep(delay)
