"""Typed shapes of the evaluation routes (issue 31): labelled items in, a run's status and metrics out."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Mapping, Optional, TypedDict, Union

from .types import Decision, Questions, State


class _EvaluationItemRequired(TypedDict):
    state: State
    questions: Questions
    #: Question id to the expected answer: a pick's label, a rate's level, or True / False for a check.
    expected: Mapping[str, Union[str, bool]]


class EvaluationItemInput(_EvaluationItemRequired):
    """One labelled item of POST /v1/evaluations."""


EvaluationStatus = Literal["queued", "running", "paused", "done", "cancelled", "failed"]


class EvaluationProgress(TypedDict):
    done: int
    total: int


class Evaluation(TypedDict):
    """An evaluation; ``metrics`` (per question id: accuracy, AUC, ECE, Brier, reliability, risk-coverage,
    thresholds) once ``done``. The metrics' fields are in the API's OpenAPI document."""

    id: str
    object: Literal["evaluation"]
    name: str
    model: str
    status: EvaluationStatus
    progress: EvaluationProgress
    usage: Dict[str, int]
    created: int
    started: Optional[int]
    finished: Optional[int]
    resumes_at: Optional[int]
    expires_at: int
    failure: Optional[Dict[str, str]]
    metrics: Optional[Dict[str, Dict[str, Any]]]


class EvaluationList(TypedDict):
    """A page of evaluations, newest first."""

    object: Literal["list"]
    data: List[Evaluation]
    has_more: bool


class EvaluationItem(TypedDict):
    """One scored (or not yet scored: ``decision`` None) item."""

    object: Literal["evaluation_item"]
    index: int
    state: Any
    questions: Dict[str, Any]
    expected: Dict[str, Union[str, bool]]
    decision: Optional[Decision]


class EvaluationItemList(TypedDict):
    object: Literal["list"]
    data: List[EvaluationItem]
    has_more: bool


class DeletedEvaluation(TypedDict):
    id: str
    object: Literal["evaluation"]
    deleted: bool
