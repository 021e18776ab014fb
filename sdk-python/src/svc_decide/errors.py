"""Errors as exceptions: ``SvcError`` and one subclass per error ``type`` of the API (and of the way to it)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

from .error_catalogue import is_known_code


class SvcError(Exception):
    """An error of the API, or of the way to it; ``type`` is what to act on, ``code`` the detail.

    ``status`` is 0 when no answer came back (connection failure, timeout). ``retry_after`` is the
    answer's ``retry-after`` in seconds; ``balance_micro_cents`` and ``required_micro_cents`` come with
    402. ``attempts`` is how many attempts were made before the client gave up.
    """

    def __init__(
        self,
        message: str,
        *,
        type: str,
        code: str,
        status: int,
        param: Optional[str] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[int] = None,
        balance_micro_cents: Optional[int] = None,
        required_micro_cents: Optional[int] = None,
        attempts: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.type = type
        self.code = code
        self.status = status
        self.param = param
        self.request_id = request_id
        self.retry_after = retry_after
        self.balance_micro_cents = balance_micro_cents
        self.required_micro_cents = required_micro_cents
        self.attempts = attempts

    @property
    def known(self) -> bool:
        """True when ``code`` is one this package knows (else act on ``type``)."""
        return is_known_code(self.code)

    def fields(self) -> Dict[str, Any]:
        """The plain fields, without the ones that are not set (for logs and JSON)."""
        names = (
            "type",
            "code",
            "message",
            "status",
            "param",
            "request_id",
            "retry_after",
            "balance_micro_cents",
            "required_micro_cents",
            "attempts",
        )
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.type}/{self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.fields()!r})"


class InvalidRequestError(SvcError):
    """400 ``invalid_request``: the body is not JSON, repeats a key, or a header is malformed."""


class AuthenticationError(SvcError):
    """401 ``authentication``: no key, or a key that is invalid, revoked or expired."""


class InsufficientBalanceError(SvcError):
    """402 ``insufficient_balance``: top up; ``required_micro_cents`` and ``balance_micro_cents`` say how much."""


class PermissionDeniedError(SvcError):
    """403 ``permission``: the key lacks the route's scope, or the account is suspended."""


class NotFoundError(SvcError):
    """404 ``not_found``: no such model (or a retired version), route or key."""


class MethodNotAllowedError(SvcError):
    """405 ``method_not_allowed``."""


class ConflictError(SvcError):
    """409 ``conflict``: an idempotency key reused with another body, or still in progress."""


class TooLargeError(SvcError):
    """413 ``too_large``: the body, the state, a question or the request is over its limit."""


class ValidationError(SvcError):
    """422 ``validation``: a field breaks the spec's rules; ``param`` names it."""


class RateLimitError(SvcError):
    """429 ``rate_limited``: a limit or quota is used up; ``retry_after`` says when to come back."""


class InternalServerError(SvcError):
    """500 ``internal``: safe to retry with the same idempotency key (any charge was refunded)."""


class ServiceUnavailableError(SvcError):
    """503 ``unavailable``: no capacity or a dependency is down; retry after ``retry_after``."""


class APIConnectionError(SvcError):
    """No answer came back (``type`` ``connection``): the connection failed or was cut."""


class APITimeoutError(APIConnectionError):
    """No answer within the attempt's timeout (``type`` ``timeout``)."""


class InvalidResponseError(SvcError):
    """An answer that is not the API's (``type`` ``invalid_response``), e.g. a 2xx body that is not JSON."""


#: The exception class of each ``type``.
ERROR_CLASSES: Dict[str, Type[SvcError]] = {
    "invalid_request": InvalidRequestError,
    "authentication": AuthenticationError,
    "insufficient_balance": InsufficientBalanceError,
    "permission": PermissionDeniedError,
    "not_found": NotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "conflict": ConflictError,
    "too_large": TooLargeError,
    "validation": ValidationError,
    "rate_limited": RateLimitError,
    "internal": InternalServerError,
    "unavailable": ServiceUnavailableError,
    "connection": APIConnectionError,
    "timeout": APITimeoutError,
    "invalid_response": InvalidResponseError,
}


def make_error(message: str, *, type: str, **fields: Any) -> SvcError:
    """The exception of ``type`` (``SvcError`` itself for a type this package does not know)."""
    return ERROR_CLASSES.get(type, SvcError)(message, type=type, **fields)


def evaluation_wait_timeout(evaluation: Any) -> SvcError:
    """The error ``wait_for_evaluation`` raises when its own ``timeout`` passes first."""
    return make_error(
        f"Evaluation {evaluation['id']} is still {evaluation['status']} "
        f"({evaluation['progress']['done']} of {evaluation['progress']['total']} items).",
        type="timeout",
        code="evaluation_wait_timeout",
        status=0,
    )


def with_attempts(error: SvcError, attempts: int) -> SvcError:
    """``error`` with ``attempts`` set (returned for chaining)."""
    error.attempts = attempts
    return error
