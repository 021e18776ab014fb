"""Typed shapes of the calibration routes (issue 44): a map fitted on a done evaluation's labels for one
question, applied to the account's decides that ask that question, as written, of that exact version."""

from __future__ import annotations

from typing import List, Literal, Optional, TypedDict

from .types import Question


class ReliabilityBin(TypedDict):
    """One of 15 equal bins of the predicted label's probability."""

    lower: float
    upper: float
    count: int
    mean_probability: Optional[float]
    accuracy: Optional[float]


class Threshold(TypedDict):
    """The smallest ``min_confidence`` reaching ``target`` accuracy (None if none does)."""

    target: float
    min_confidence: Optional[float]
    coverage: Optional[float]


class CalibrationMetrics(TypedDict):
    """Cross-validated metrics of the question's answers, with the version's map or the account's."""

    n: int
    accuracy: float
    ece15: float
    #: The ECE-15 a perfectly calibrated answer with these confidences shows from sampling noise alone.
    ece15_noise_floor: float
    nll: float
    brier: float
    #: Checks only: ROC AUC of the probability of yes.
    auc: Optional[float]
    reliability: List[ReliabilityBin]
    thresholds: List[Threshold]


CalibrationMethod = Literal["temperature", "temperature_bias", "state_words"]


class _MethodTriedFields(TypedDict):
    method: CalibrationMethod
    metrics: CalibrationMetrics


class CalibrationMethodTried(_MethodTriedFields, total=False):
    """One method the fit tried, with its cross-validated metrics on the same folds."""

    #: ``state_words``: the L2 weight the folds chose.
    l2: float


class CalibrationMethodNotTried(TypedDict):
    """A method the fit did not try: ``work_bound`` when the states' word buckets × weight rows exceed ``bound``."""

    method: Literal["state_words"]
    reason: Literal["work_bound"]
    work: int
    bound: int


class _CalibrationFoldsFields(TypedDict):
    folds: int
    before: CalibrationMetrics
    after: CalibrationMetrics


class CalibrationFolds(_CalibrationFoldsFields, total=False):
    """K folds: ``before`` with the version's map, ``after`` with the account's."""

    #: Every method tried (absent on calibrations made before state-reading ones existed).
    methods: List[CalibrationMethodTried]
    #: Methods not tried, and why (absent when every method was tried).
    not_tried: List[CalibrationMethodNotTried]


class CalibrationFeatures(TypedDict):
    """``state_words``: what the model read of the state."""

    kind: Literal["state_words"]
    #: NFC, lower case, letter-and-digit runs (first 2,048), words and word pairs, FNV-1a 32-bit into ``buckets``.
    procedure: str
    buckets: int
    #: Buckets the model reads.
    vocabulary: int
    #: L2 weight on the word weights, chosen by the same folds.
    l2: float
    #: Size of the stored model (at most 262,144).
    model_bytes: int


class CalibrationMap(TypedDict):
    temperature: float
    #: Per option or level in order; a check's is [yes, no].
    bias: List[float]


#: Where a calibration is: ``fitting`` on the account's runner (a create above the in-request bound answers 202;
#: wait with ``get_calibration``), ``active``, ``inactive`` (replaced or deleted), ``failed`` (see ``error``).
CalibrationStatus = Literal["fitting", "active", "inactive", "failed"]


class _CalibrationErrorRequired(TypedDict):
    code: str
    message: str


class CalibrationError(_CalibrationErrorRequired, total=False):
    """A failed calibration's error: the one a synchronous create would have answered."""

    param: str


class _CalibrationFields(TypedDict):
    #: The exact version it applies to: not followed when the alias moves.
    model: str
    evaluation: str
    question_id: str
    #: The question as written, without ``min_confidence``: decides asking exactly this use the map.
    #: None while ``fitting`` and when ``failed``, as are ``method``, ``map``, ``n`` and ``metrics``.
    question: Optional[Question]
    method: Optional[CalibrationMethod]
    #: ``state_words``: what it read of the state; None for a map.
    features: Optional[CalibrationFeatures]
    map: Optional[CalibrationMap]
    #: Labelled items the map was fitted on.
    n: Optional[int]
    metrics: Optional[CalibrationFolds]
    #: The mode of its creator: ``test`` answers only test decides; ``live`` live ones (and test ones without a test one).
    mode: Literal["live", "test"]
    status: CalibrationStatus
    active: bool
    created: int
    #: When it was replaced or deleted, or when it failed.
    deactivated: Optional[int]
    #: ``failed``: the error a synchronous create would have answered (e.g. ``calibration_no_gain``).
    error: Optional[CalibrationError]


class Calibration(_CalibrationFields):
    """A calibration of one question of the account's, on one exact version."""

    id: str
    object: Literal["calibration"]


class CalibrationPreview(_CalibrationFields):
    """What ``create_calibration`` would make: stored nowhere, applied to nothing."""

    id: None
    object: Literal["calibration_preview"]


class CalibrationList(TypedDict):
    """A page of calibrations, newest first, active or not."""

    object: Literal["list"]
    data: List[Calibration]
    has_more: bool
