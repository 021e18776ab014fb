"""The error catalogue of API v1 (spec: Errors, "Types, statuses and codes").

A ``type`` is one to one with an HTTP status. Codes may be added within v1, so callers act on ``type``
for a code this package does not know. The tests check this table against the spec's and against
``GET /v1/openapi.json``.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

#: HTTP status of each error type.
TYPE_STATUS: Dict[str, int] = {
    "invalid_request": 400,
    "authentication": 401,
    "insufficient_balance": 402,
    "permission": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "conflict": 409,
    "too_large": 413,
    "validation": 422,
    "rate_limited": 429,
    "internal": 500,
    "unavailable": 503,
}

#: The codes this package knows, by type.
KNOWN_CODES: Dict[str, Tuple[str, ...]] = {
    "invalid_request": ("invalid_json", "duplicate_key", "unsupported_media_type", "invalid_header"),
    "authentication": (
        "missing_api_key",
        "invalid_api_key",
        "revoked_api_key",
        "expired_api_key",
        "invalid_session",
        "invalid_code",
        "code_attempts_exceeded",
        "invalid_idp_token",
        "idp_email_unverified",
    ),
    "insufficient_balance": ("insufficient_balance",),
    "permission": ("insufficient_scope", "account_suspended", "csrf_failed"),
    "not_found": ("model_not_found", "model_retired", "route_not_found", "key_not_found"),
    "method_not_allowed": ("method_not_allowed",),
    "conflict": ("idempotency_key_reused", "idempotency_in_progress", "plan_sold_out"),
    "too_large": ("body_too_large", "state_too_long", "question_too_long", "request_too_long"),
    "validation": (
        "unknown_field",
        "missing_field",
        "invalid_type",
        "invalid_value",
        "field_not_allowed",
        "invalid_question_id",
        "too_many_questions",
        "too_many_options",
        "invalid_levels",
        "invalid_min_confidence",
        "duplicate_label",
        "state_path_not_found",
        "state_not_json",
        "top_up_limit_exceeded",
    ),
    "rate_limited": (
        "requests_per_minute",
        "tokens_per_minute",
        "concurrency",
        "test_daily_quota",
        "email_codes_per_hour",
        "sign_ins_per_hour",
    ),
    "internal": ("internal_error",),
    "unavailable": ("no_capacity", "upstream_unavailable", "billing_unavailable", "maintenance"),
}

_TYPE_OF_CODE: Dict[str, str] = {code: t for t, codes in KNOWN_CODES.items() for code in codes}


def is_known_code(code: str) -> bool:
    """True for a code this package knows (else act on the error's ``type``)."""
    return code in _TYPE_OF_CODE


def type_of_status(status: int) -> Optional[str]:
    """The type the spec gives an HTTP status, or None for a status the API does not answer with."""
    for error_type, s in TYPE_STATUS.items():
        if s == status:
            return error_type
    return None
