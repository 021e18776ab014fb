"""When and how long to wait before asking again (spec: Errors, "Retry and refund rules")."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from .errors import SvcError


@dataclass(frozen=True)
class RetryPolicy:
    """How the client retries.

    ``max_retries``: retries after the first attempt (0 turns every retry off). ``base_delay`` and
    ``max_delay``: the backoff in seconds when an answer carries no ``retry-after`` (doubled each retry,
    with jitter). ``max_retry_after``: the longest ``retry-after`` the client waits for itself; a longer one
    (the sign-in limits' hour) is raised to the caller at once.
    """

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: int = 60


def is_retryable(error: SvcError, idempotent: bool = True) -> bool:
    """Whether an error may be retried automatically, by its ``type`` (so a code added within v1 is
    handled too): 429 except ``test_daily_quota``, 503, 500 (the same idempotency key is sent again),
    409 ``idempotency_in_progress``, and attempts with no answer; never any other 4xx. A call that is not
    ``idempotent`` is retried only after 429 and 503, where the API did nothing."""
    if not idempotent and error.type not in ("rate_limited", "unavailable"):
        return False
    if error.type == "rate_limited":
        return error.code != "test_daily_quota"
    if error.type == "conflict":
        return error.code == "idempotency_in_progress"
    return error.type in ("unavailable", "internal", "connection", "timeout")


def is_in_progress(error: SvcError) -> bool:
    """True for 409 ``idempotency_in_progress``: the first attempt with this key is still being answered."""
    return error.type == "conflict" and error.code == "idempotency_in_progress"


def retry_delay(error: SvcError, retry: int, policy: RetryPolicy, idempotent: bool = True) -> Optional[float]:
    """Seconds to wait before retry number ``retry`` (1-based), or None when the error is not retried."""
    if retry > policy.max_retries or not is_retryable(error, idempotent):
        return None
    if error.retry_after is not None:
        return None if error.retry_after > policy.max_retry_after else float(error.retry_after)
    backoff = min(policy.max_delay, policy.base_delay * 2.0 ** (retry - 1))
    return backoff / 2 + random.random() * backoff / 2  # "equal jitter": never less than half the backoff


def in_progress_delay(error: SvcError, waited: float, budget: float, policy: RetryPolicy) -> Optional[float]:
    """Seconds to wait before asking again after 409 ``idempotency_in_progress`` (its ``retry-after``, 1 s
    without one), or None once ``waited`` plus that wait would pass ``budget`` (the call's attempt timeout)
    or retries are off. These waits do not use up ``max_retries``: the first attempt is still being
    computed, and asking again after it ends replays it uncharged."""
    if policy.max_retries == 0 or (error.retry_after or 0) > policy.max_retry_after:
        return None
    delay = float(error.retry_after or 1)
    return None if waited + delay > budget else delay


class RetryState:
    """The retry decisions of one call: counts retries and the time spent waiting out ``in progress``."""

    def __init__(self, policy: RetryPolicy, attempt_timeout: float, idempotent: bool = True) -> None:
        self._policy = policy
        self._attempt_timeout = attempt_timeout
        self._idempotent = idempotent
        self._retries = 0
        self._waited_in_progress = 0.0

    def next_delay(self, error: SvcError) -> Optional[float]:
        """Seconds to wait before the next attempt after ``error``, or None to raise it."""
        if is_in_progress(error):
            delay = in_progress_delay(error, self._waited_in_progress, self._attempt_timeout, self._policy)
            self._waited_in_progress += delay or 0.0
            return delay
        self._retries += 1
        return retry_delay(error, self._retries, self._policy, self._idempotent)
