"""Shapes of the question routes (issue 52): each question the account asks, its answers over time, its drift."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union


class Question(TypedDict):
    """A question of the account, as written (its calibration fingerprint)."""

    id: str
    object: Literal["question"]
    mode: Literal["live", "test"]
    type: Literal["check", "pick", "rate"]
    question: Dict[str, Any]
    first_asked: str
    last_asked: str
    count_7d: int
    versions: List[str]
    calibration: Optional[str]
    review_rule: Optional[str]


class QuestionList(TypedDict):
    object: Literal["list"]
    data: List[Question]
    has_more: bool


class _Bucket(TypedDict):
    start: str
    model: Optional[str]
    models: Dict[str, int]
    count: int
    mix: Union[Dict[str, float], List[float], None]
    mean_confidence: Optional[float]
    abstain_rate: Optional[float]


class QuestionBucket(_Bucket, total=False):
    """One bucket of a question's series; an empty one has count 0 and nulls. A check's adds its mean P(yes)
    and the share of answers per tenth of P(yes)."""

    mean_p_yes: Optional[float]
    histogram: Optional[List[float]]


class QuestionSeries(TypedDict):
    object: Literal["question_series"]
    question: str
    type: Literal["check", "pick", "rate"]
    start: str
    end: str
    granularity: Literal["day", "hour"]
    data: List[QuestionBucket]


class DriftWindow(TypedDict):
    start: str
    end: str
    count: int


class ReferenceWindow(TypedDict):
    """What the last 7 days are compared with: the active calibration's evaluation (``source`` ``calibration``,
    ``start`` and ``end`` None), or a week of answers."""

    start: Optional[str]
    end: Optional[str]
    count: int
    source: Literal["first_week", "reset", "calibration"]
    calibration: Optional[str]
    complete: bool


class QuestionDrift(TypedDict):
    """A question's drift on one exact version (also the ``question.drifted`` event's ``data.object``)."""

    object: Literal["question_drift"]
    question: str
    model: Optional[str]
    statistic: Literal["jensen_shannon_distance"]
    value: Optional[float]
    threshold: float
    reference: ReferenceWindow
    current: DriftWindow
    drifted: bool
