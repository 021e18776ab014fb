"""The review routes (issue 51) as ``client.reviews``: rules that keep the decides of one question svc was unsure
of, the queue of kept items, labels, and the loop into an evaluation and a calibration."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Optional, cast

from . import _calls
from ._http import ApiResponse, Call, CallOptions
from .evaluation_types import Evaluation
from .operations import OPERATIONS
from .review_types import (
    DeletedReviewRule,
    Review,
    ReviewClaim,
    ReviewLabel,
    ReviewList,
    ReviewRule,
    ReviewRuleList,
    ReviewRuleWhen,
)
from .types import Question

Send = Callable[[Call, CallOptions], ApiResponse[Any]]
AsyncSend = Callable[[Call, CallOptions], Awaitable[ApiResponse[Any]]]


def _rule_body(question: Question, when: ReviewRuleWhen, model: Optional[str], auto_apply: Optional[bool]) -> Dict[str, Any]:
    body: Dict[str, Any] = {"question": question, "when": when}
    if model is not None:
        body["model"] = model
    if auto_apply is not None:
        body["auto_apply"] = auto_apply
    return body


def _list_query(rule: Optional[str], question: Optional[str], status: Optional[str], limit: Optional[int],
                starting_after: Optional[str]) -> Dict[str, Optional[str]]:
    return {"rule": rule, "question": question, "status": status, **_calls.page(limit, starting_after)}


class Reviews:
    """``Client.reviews``. Every method also takes ``client_request_id``, ``timeout`` and ``max_retries``."""

    def __init__(self, send: Send) -> None:
        self._send = send

    def create_rule(self, *, question: Question, when: ReviewRuleWhen, model: Optional[str] = None,
                    auto_apply: Optional[bool] = None, **options: Any) -> ReviewRule:
        """POST /v1/review-rules: keep the decides of ``question`` that ``when`` selects (sent once: no
        idempotency key)."""
        call = Call(OPERATIONS["create_review_rule"], body=_rule_body(question, when, model, auto_apply))
        return cast(ReviewRule, self._send(call, CallOptions(**options)).data)

    def list_rules(self, *, limit: Optional[int] = None, starting_after: Optional[str] = None,
                   **options: Any) -> ReviewRuleList:
        """GET /v1/review-rules: the rules of the key's mode, newest first."""
        call = Call(OPERATIONS["list_review_rules"], query=_calls.page(limit, starting_after))
        return cast(ReviewRuleList, self._send(call, CallOptions(**options)).data)

    def retrieve_rule(self, rule_id: str, **options: Any) -> ReviewRule:
        """GET /v1/review-rules/{id}: a rule with its counts and its loop."""
        return cast(ReviewRule, self._send(_calls.of_one("get_review_rule", rule_id), CallOptions(**options)).data)

    def delete_rule(self, rule_id: str, **options: Any) -> DeletedReviewRule:
        """DELETE /v1/review-rules/{id}: the rule and every item it kept."""
        call = _calls.of_one("delete_review_rule", rule_id)
        return cast(DeletedReviewRule, self._send(call, CallOptions(**options)).data)

    def next(self, rule_id: str, **options: Any) -> ReviewClaim:
        """POST /v1/review-rules/{id}/next: the rule's next unclaimed item, claimed for this key for 120 s."""
        call = _calls.of_one("claim_next_review", rule_id)
        return cast(ReviewClaim, self._send(call, CallOptions(**options)).data)

    def evaluate(self, rule_id: str, **options: Any) -> Evaluation:
        """POST /v1/review-rules/{id}/evaluations: an evaluation of the labelled items on the current version; a
        calibration is fitted once it is done (``retrieve_rule(id)["loop"]``)."""
        call = _calls.of_one("create_review_rule_evaluation", rule_id)
        return cast(Evaluation, self._send(call, CallOptions(**options)).data)

    def list(self, *, rule: Optional[str] = None, question: Optional[str] = None, status: Optional[str] = None,
             limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any) -> ReviewList:
        """GET /v1/reviews: kept items newest first, by rule, question (fingerprint or rule id) and status."""
        call = Call(OPERATIONS["list_reviews"], query=_list_query(rule, question, status, limit, starting_after))
        return cast(ReviewList, self._send(call, CallOptions(**options)).data)

    def label(self, review_id: str, label: ReviewLabel, **options: Any) -> Review:
        """POST /v1/reviews/{id}/label: ``ConflictError`` ``review_already_reviewed`` when another was first."""
        call = _calls.of_one("label_review", review_id, body={"label": label})
        return cast(Review, self._send(call, CallOptions(**options)).data)

    def skip(self, review_id: str, **options: Any) -> Review:
        """POST /v1/reviews/{id}/skip."""
        return cast(Review, self._send(_calls.of_one("skip_review", review_id), CallOptions(**options)).data)


class AsyncReviews:
    """``AsyncClient.reviews``: the same methods as ``Client.reviews``, awaited."""

    def __init__(self, send: AsyncSend) -> None:
        self._send = send

    async def _data(self, call: Call, options: Dict[str, Any]) -> Any:
        return (await self._send(call, CallOptions(**options))).data

    async def create_rule(self, *, question: Question, when: ReviewRuleWhen, model: Optional[str] = None,
                          auto_apply: Optional[bool] = None, **options: Any) -> ReviewRule:
        """POST /v1/review-rules."""
        call = Call(OPERATIONS["create_review_rule"], body=_rule_body(question, when, model, auto_apply))
        return cast(ReviewRule, await self._data(call, options))

    async def list_rules(self, *, limit: Optional[int] = None, starting_after: Optional[str] = None,
                         **options: Any) -> ReviewRuleList:
        """GET /v1/review-rules."""
        call = Call(OPERATIONS["list_review_rules"], query=_calls.page(limit, starting_after))
        return cast(ReviewRuleList, await self._data(call, options))

    async def retrieve_rule(self, rule_id: str, **options: Any) -> ReviewRule:
        """GET /v1/review-rules/{id}."""
        return cast(ReviewRule, await self._data(_calls.of_one("get_review_rule", rule_id), options))

    async def delete_rule(self, rule_id: str, **options: Any) -> DeletedReviewRule:
        """DELETE /v1/review-rules/{id}."""
        return cast(DeletedReviewRule, await self._data(_calls.of_one("delete_review_rule", rule_id), options))

    async def next(self, rule_id: str, **options: Any) -> ReviewClaim:
        """POST /v1/review-rules/{id}/next."""
        return cast(ReviewClaim, await self._data(_calls.of_one("claim_next_review", rule_id), options))

    async def evaluate(self, rule_id: str, **options: Any) -> Evaluation:
        """POST /v1/review-rules/{id}/evaluations."""
        return cast(Evaluation, await self._data(_calls.of_one("create_review_rule_evaluation", rule_id), options))

    async def list(self, *, rule: Optional[str] = None, question: Optional[str] = None, status: Optional[str] = None,
                   limit: Optional[int] = None, starting_after: Optional[str] = None, **options: Any) -> ReviewList:
        """GET /v1/reviews."""
        call = Call(OPERATIONS["list_reviews"], query=_list_query(rule, question, status, limit, starting_after))
        return cast(ReviewList, await self._data(call, options))

    async def label(self, review_id: str, label: ReviewLabel, **options: Any) -> Review:
        """POST /v1/reviews/{id}/label."""
        return cast(Review, await self._data(_calls.of_one("label_review", review_id, body={"label": label}), options))

    async def skip(self, review_id: str, **options: Any) -> Review:
        """POST /v1/reviews/{id}/skip."""
        return cast(Review, await self._data(_calls.of_one("skip_review", review_id), options))
