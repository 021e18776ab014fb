"""The question routes (issue 52) as ``client.questions``: the account's questions as written, each one's answers
over time, and its drift against a reference week (compared within one exact version)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Literal, Optional, cast

from . import _calls
from ._http import ApiResponse, Call, CallOptions
from .question_types import Question, QuestionDrift, QuestionList, QuestionSeries

Send = Callable[[Call, CallOptions], ApiResponse[Any]]
AsyncSend = Callable[[Call, CallOptions], Awaitable[ApiResponse[Any]]]


def _series(question_id: str, start: str, end: str, granularity: Optional[str]) -> Call:
    return _calls.of_question("get_question_series", question_id, {"start": start, "end": end, "granularity": granularity})


def _drift_body(threshold: Optional[float], reset_reference: bool) -> Dict[str, Any]:
    body: Dict[str, Any] = {}
    if threshold is not None:
        body["threshold"] = threshold
    if reset_reference:
        body["reset_reference"] = True
    return body


class AccountQuestions:
    """``Client.questions``. Every method also takes ``client_request_id``, ``timeout`` and ``max_retries``."""

    def __init__(self, send: Send) -> None:
        self._send = send

    def list(self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any) -> QuestionList:
        """GET /v1/questions: a page of the key's mode's questions, by id (``limit`` 1 to 100)."""
        call = _calls.list_questions(limit, starting_after)
        return cast(QuestionList, self._send(call, CallOptions(**options)).data)

    def retrieve(self, question_id: str, **options: Any) -> Question:
        """GET /v1/questions/{id}."""
        return cast(Question, self._send(_calls.of_question("get_question", question_id), CallOptions(**options)).data)

    def series(
        self,
        question_id: str,
        *,
        start: str,
        end: str,
        granularity: Optional[Literal["day", "hour"]] = None,
        **options: Any,
    ) -> QuestionSeries:
        """GET /v1/questions/{id}/series: count, mix, mean confidence and abstain rate per UTC day (up to 93 days)
        or hour (up to 7 days); ``start`` and ``end`` are ``YYYY-MM-DD``, ``end`` not included."""
        call = _series(question_id, start, end, granularity)
        return cast(QuestionSeries, self._send(call, CallOptions(**options)).data)

    def drift(self, question_id: str, **options: Any) -> QuestionDrift:
        """GET /v1/questions/{id}/drift: the last 7 days against the reference week, within one version."""
        call = _calls.of_question("get_question_drift", question_id)
        return cast(QuestionDrift, self._send(call, CallOptions(**options)).data)

    def update_drift(
        self, question_id: str, *, threshold: Optional[float] = None, reset_reference: bool = False, **options: Any
    ) -> QuestionDrift:
        """POST /v1/questions/{id}/drift: a new threshold in (0, 1], and/or a new reference week from now."""
        call = _calls.of_question("update_question_drift", question_id, body=_drift_body(threshold, reset_reference))
        return cast(QuestionDrift, self._send(call, CallOptions(**options)).data)


class AsyncAccountQuestions:
    """``AsyncClient.questions``: the same methods as ``Client.questions``, awaited."""

    def __init__(self, send: AsyncSend) -> None:
        self._send = send

    async def list(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any
    ) -> QuestionList:
        call = _calls.list_questions(limit, starting_after)
        return cast(QuestionList, (await self._send(call, CallOptions(**options))).data)

    async def retrieve(self, question_id: str, **options: Any) -> Question:
        call = _calls.of_question("get_question", question_id)
        return cast(Question, (await self._send(call, CallOptions(**options))).data)

    async def series(
        self,
        question_id: str,
        *,
        start: str,
        end: str,
        granularity: Optional[Literal["day", "hour"]] = None,
        **options: Any,
    ) -> QuestionSeries:
        call = _series(question_id, start, end, granularity)
        return cast(QuestionSeries, (await self._send(call, CallOptions(**options))).data)

    async def drift(self, question_id: str, **options: Any) -> QuestionDrift:
        call = _calls.of_question("get_question_drift", question_id)
        return cast(QuestionDrift, (await self._send(call, CallOptions(**options))).data)

    async def update_drift(
        self, question_id: str, *, threshold: Optional[float] = None, reset_reference: bool = False, **options: Any
    ) -> QuestionDrift:
        call = _calls.of_question("update_question_drift", question_id, body=_drift_body(threshold, reset_reference))
        return cast(QuestionDrift, (await self._send(call, CallOptions(**options))).data)
