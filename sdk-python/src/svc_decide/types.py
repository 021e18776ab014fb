"""Typed shapes of the requests and answers (spec: Resources and fields). Bodies are plain dicts at run
time; these TypedDicts give editors and type checkers their fields. Fields the API adds later within v1
come through untouched."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, TypedDict, Union

#: The state: a text, or a JSON object or array.
State = Union[str, Mapping[str, Any], Sequence[Any]]


class _QuestionRequired(TypedDict):
    instructions: str


class _QuestionCommon(_QuestionRequired, total=False):
    #: A string, or 1 to 20 strings; None equals absent.
    criteria: Union[str, Sequence[str], None]
    #: 0 to 1: below it the answer abstains.
    min_confidence: float


class PickQuestion(_QuestionCommon):
    """Choose one of labelled options (label to description or None), shown to the model in key order."""

    type: Literal["pick"]
    options: Mapping[str, Optional[str]]


class RateQuestion(_QuestionCommon):
    """Place the state on 2 to 10 ordered levels, lowest first."""

    type: Literal["rate"]
    levels: Sequence[str]


class CheckQuestion(_QuestionCommon):
    """Yes or no, answered as the probability of yes."""

    type: Literal["check"]


Question = Union[PickQuestion, RateQuestion, CheckQuestion]

#: Question id (``^[A-Za-z][A-Za-z0-9_-]{0,63}$``) to question; 1 to 32 entries.
Questions = Mapping[str, Question]

Fallback = Literal["allow", "never"]


class _DecideRequestRequired(TypedDict):
    state: State
    questions: Questions


class DecideRequest(_DecideRequestRequired, total=False):
    """The body of POST /v1/decide."""

    model: str
    fallback: Fallback


class _AnswerCalibration(TypedDict, total=False):
    #: The account's calibration (``calib_…``) that answered this question; absent when the version's own map
    #: did (the Decision's ``calibration``).
    calibration: str


class PickAnswer(_AnswerCalibration):
    """The most probable label and every label's probability, in option order."""

    type: Literal["pick"]
    choice: str
    probabilities: Dict[str, float]
    confidence: float
    abstained: bool


class RateAnswer(_AnswerCalibration):
    """The probability-weighted level index (0 to levels - 1) and one probability per level."""

    type: Literal["rate"]
    rating: float
    levels: List[str]
    probabilities: List[float]
    confidence: float
    abstained: bool


class CheckAnswer(_AnswerCalibration):
    """The probability of yes."""

    type: Literal["check"]
    probability: float
    confidence: float
    abstained: bool


Answer = Union[PickAnswer, RateAnswer, CheckAnswer]


class DecisionUsage(TypedDict):
    """Tokens and charge of one decision."""

    input_tokens: int
    state_tokens: int
    question_tokens: int
    charge_micro_cents: int
    unit_price_micro_cents: int
    tier: Literal["t1", "t2", "t3", "test"]


class Decision(TypedDict):
    """The 200 answer of POST /v1/decide: ``answers`` by question id, in the request's order."""

    id: str
    object: Literal["decision"]
    created: int
    model: str
    served_by: Literal["gpu", "fallback"]
    calibration: str
    answers: Dict[str, Answer]
    usage: DecisionUsage


class ModelLimits(TypedDict):
    """The limits of a model version."""

    max_state_tokens: int
    max_question_tokens: int
    max_total_tokens: int
    max_questions: int
    max_options: int
    max_levels: int
    exact_option_probabilities: int


class Model(ModelLimits):
    """One entry of GET /v1/models."""

    object: Literal["model"]
    id: str
    alias: Optional[str]
    served_by: Literal["gpu", "fallback"]
    status: Literal["active", "retired"]
    calibration: str


class ModelList(TypedDict):
    """GET /v1/models."""

    object: Literal["list"]
    data: List[Model]


class Key(TypedDict):
    """GET /v1/key: the calling key (never its secret)."""

    object: Literal["key"]
    id: str
    prefix: str
    mode: Literal["live", "test"]
    scopes: List[str]
    account_id: str
    created: int


class Balance(TypedDict):
    """GET /v1/balance (the API may send more fields; they are kept)."""

    object: Literal["balance"]
    account_id: str
    balance_micro_cents: int
    balance_eur: str
    tier: Literal["t1", "t2", "t3"]
    unit_price_micro_cents: int
    month_to_date_tokens: int
    next_tier_at_tokens: Optional[int]


class UsagePoint(TypedDict):
    """One UTC bucket; empty buckets are present with zeros."""

    start: str
    end: str
    requests: int
    input_tokens: int
    charge_micro_cents: int
    gpu_requests: int
    fallback_requests: int
    error_requests: int


class KeyUsage(TypedDict):
    """One key's buckets."""

    object: Literal["key_usage"]
    key_id: str
    points: List[UsagePoint]


class UsageReport(TypedDict):
    """GET /v1/usage."""

    object: Literal["usage"]
    start: str
    end: str
    granularity: Literal["day", "hour"]
    key_id: Optional[str]
    data: List[KeyUsage]


class PlanPrice(TypedDict):
    """A plan's price in one currency, minor units excluding VAT."""

    price_cents: int
    reset_price_cents: int


class Plan(TypedDict):
    """One plan of GET /v1/plans."""

    id: str
    object: Literal["plan"]
    name: str
    price_cents: int
    currency: Literal["EUR"]
    interval: Literal["month"]
    included_multiple: int
    week_allowance_tokens: int
    effective_unit_price_micro_cents: int
    reset_price_cents: int
    seats_total: Optional[int]
    seats_taken: int
    seats_left: Optional[int]
    available: bool
    prices: Dict[str, PlanPrice]


class TopUpPack(TypedDict):
    """EUR credit in euro cents, and its price per currency."""

    credit_cents: int
    prices: Dict[str, int]


class PlanList(TypedDict):
    """GET /v1/plans (public)."""

    object: Literal["list"]
    standard_unit_price_micro_cents: int
    data: List[Plan]
    currencies: List[str]
    top_up_packs: List[TopUpPack]
