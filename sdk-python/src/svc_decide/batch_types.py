"""Typed shapes of the batch routes (issue 42): lines in, a batch's status out, its results as JSONL, and the
webhook event sent when it ends."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union, final

from .calibration_types import Calibration
from .question_types import QuestionDrift
from .types import DecideRequest, Decision

BatchStatus = Literal["queued", "running", "paused", "completed", "cancelled", "expired", "failed"]

#: A batch in one of these statuses no longer runs: its results are final.
FINISHED_BATCH_STATUSES = ("completed", "cancelled", "expired", "failed")

BatchEventType = Literal["batch.completed", "batch.failed", "batch.expired", "batch.cancelled"]

#: Every event a webhook endpoint is called with: the batch events, a question's drift and the end of a
#: calibration fitted in the background (``calibration.ready``: active; ``calibration.failed``: see its ``error``).
WebhookEventType = Literal[
    "batch.completed",
    "batch.failed",
    "batch.expired",
    "batch.cancelled",
    "question.drifted",
    "calibration.ready",
    "calibration.failed",
]


class BatchLine(TypedDict):
    """One line of an upload: your id for it (1 to 64 characters, unique in the batch) and a decide's body."""

    custom_id: str
    body: DecideRequest


class BatchCounts(TypedDict):
    total: int
    #: Lines answered (status 200).
    done: int
    #: Lines finished with an error.
    failed: int


class BatchUsage(TypedDict):
    input_tokens: int
    #: The sum of the answered lines' charges.
    charge_micro_cents: int


class BatchFailure(TypedDict):
    code: str
    message: str


class Batch(TypedDict):
    """A batch: ``queued``, ``running`` (``paused`` while the balance or the test quota is used up), then
    ``completed``, ``cancelled``, ``expired`` (not run within 24 hours) or ``failed``."""

    id: str
    object: Literal["batch"]
    status: BatchStatus
    #: Why a ``paused`` batch waits; None otherwise.
    paused_reason: Optional[Literal["insufficient_balance", "test_daily_quota"]]
    #: Paused for the test daily quota: the next 00:00 UTC (Unix seconds); None when not known.
    resumes_at: Optional[int]
    #: The creating key's mode: live lines are charged.
    mode: Literal["live", "test"]
    #: The model every line names (default ``svc-1``); None when lines name different ones.
    model: Optional[str]
    counts: BatchCounts
    usage: BatchUsage
    created: int
    started: Optional[int]
    finished: Optional[int]
    #: created + 24 h: lines not run by then are never run.
    expires_at: int
    #: finished + 30 days: lines and results are deleted then.
    results_expire_at: Optional[int]
    failure: Optional[BatchFailure]


class BatchList(TypedDict):
    """A page of batches, newest first."""

    object: Literal["list"]
    data: List[Batch]
    has_more: bool


class DeletedBatch(TypedDict):
    id: str
    object: Literal["batch"]
    deleted: Literal[True]


@final  # final: `"body" in line` narrows the union for a type checker
class BatchResultSuccess(TypedDict):
    """A line that was answered: the Decision, as POST /v1/decide would have answered it."""

    custom_id: str
    status: Literal[200]
    body: Decision


@final
class BatchResultFailure(TypedDict):
    """A line that ended in an error: its status and the error envelope's fields (``type``, ``code``,
    ``message``, and any others the envelope has)."""

    custom_id: str
    status: int
    error: Dict[str, Any]


#: One line of the results, in input order: ``"body" in line`` for an answer, ``"error" in line`` else.
BatchResultLine = Union[BatchResultSuccess, BatchResultFailure]


class BatchEventData(TypedDict):
    object: Batch


class BatchEvent(TypedDict):
    """A batch ended; ``data["object"]`` is the batch as ``get_batch`` then answers."""

    id: str
    object: Literal["event"]
    type: BatchEventType
    created: int
    data: BatchEventData


class DriftedQuestion(QuestionDrift):
    mode: Literal["live", "test"]


class QuestionDriftedEventData(TypedDict):
    object: DriftedQuestion


class QuestionDriftedEvent(TypedDict):
    """A question's drift crossed its threshold: the drift report, with the mode of the keys that asked it."""

    id: str
    object: Literal["event"]
    type: Literal["question.drifted"]
    created: int
    data: QuestionDriftedEventData


class CalibrationEventData(TypedDict):
    object: Calibration


class CalibrationEvent(TypedDict):
    """A calibration fitted in the background ended: ``calibration.ready`` (active) or ``calibration.failed``."""

    id: str
    object: Literal["event"]
    type: Literal["calibration.ready", "calibration.failed"]
    created: int
    data: CalibrationEventData


#: The body of a webhook call, signed in its ``svc-signature`` header; compare ``event["type"]`` to narrow it.
WebhookEvent = Union[BatchEvent, QuestionDriftedEvent, CalibrationEvent]
