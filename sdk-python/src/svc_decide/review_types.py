"""Typed shapes of the review routes (issue 51): rules that keep the decides svc was unsure of, the kept items, and
the loop that turns their labels into an evaluation and a calibration."""

from __future__ import annotations

from typing import List, Literal, Optional, TypedDict, Union

from .types import Answer, Question, State

#: A pick's option label, a rate's level label, or a check's True / False.
ReviewLabel = Union[str, bool]


class ReviewRuleWhen(TypedDict, total=False):
    """Which decides a rule keeps: abstained, below a confidence, and a random share of the rest (default 0.01)."""

    abstained: bool
    below_confidence: float
    sample_rate: float


class ReviewLoopError(TypedDict):
    code: str
    message: str


class ReviewLoop(TypedDict):
    """The rule's last evaluation and the calibration fitted on it (``fitted``: stored; ``applied``: active)."""

    status: Literal["none", "evaluating", "fitted", "applied", "failed"]
    evaluation: Optional[str]
    calibration: Optional[str]
    error: Optional[ReviewLoopError]


class ReviewRuleCounts(TypedDict):
    pending: int
    labelled: int
    skipped: int
    kept: int


class ReviewRuleWhenSet(TypedDict):
    abstained: bool
    below_confidence: Optional[float]
    sample_rate: float


class ReviewRule(TypedDict):
    """A review rule (``rrule_…``); a test key's keeps only test decides."""

    id: str
    object: Literal["review_rule"]
    question: Question
    model: Optional[str]
    when: ReviewRuleWhenSet
    auto_apply: bool
    mode: Literal["live", "test"]
    counts: ReviewRuleCounts
    full: bool
    loop: ReviewLoop
    created: int


class ReviewRuleList(TypedDict):
    object: Literal["list"]
    data: List[ReviewRule]
    has_more: bool


class DeletedReviewRule(TypedDict):
    id: str
    object: Literal["review_rule"]
    deleted: Literal[True]


class Review(TypedDict):
    """A kept decide (``rev_…``): the state, question and answer as the decide had them, and its label."""

    id: str
    object: Literal["review"]
    rule: str
    request_id: str
    model: str
    question_id: str
    state: State
    question: Question
    answer: Answer
    status: Literal["pending", "labelled", "skipped"]
    label: Optional[ReviewLabel]
    created: int
    reviewed: Optional[int]
    expires_at: int


class ReviewList(TypedDict):
    object: Literal["list"]
    data: List[Review]
    has_more: bool


class ReviewClaim(TypedDict):
    """``reviews.next``: the item claimed for this caller for 120 s, or None when none is left."""

    object: Literal["review_claim"]
    review: Optional[Review]
    claimed_until: Optional[int]
