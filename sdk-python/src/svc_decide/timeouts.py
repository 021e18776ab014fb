"""How long one attempt may take. A decide's work grows with its input (the engine reads every token of
the state and questions), so a call with a body gets a bound that grows with the body's size; the client
cannot count billable tokens, and bytes bound them (docs/decisions.md, "SDKs (issue 32)")."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeoutPolicy:
    """Seconds one attempt may take.

    ``timeout``: the whole bound of a call without a body, and the base of a decide's bound, which adds
    ``timeout_per_kib`` per KiB of its JSON body, at most ``max_timeout`` (15 minutes).
    """

    timeout: float = 60.0
    timeout_per_kib: float = 20.0
    max_timeout: float = 900.0

    def for_body(self, body_bytes: int) -> float:
        """The bound of one attempt of a call whose body has ``body_bytes`` bytes (0 without a body)."""
        grown = self.timeout + self.timeout_per_kib * body_bytes / 1024
        return max(self.timeout, min(self.max_timeout, grown))
