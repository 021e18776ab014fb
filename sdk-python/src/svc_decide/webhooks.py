"""Webhook signatures (issue 42): the service signs each call's raw body in
``svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`` (Stripe's scheme), the key being
the ``whsec_…`` secret's UTF-8 bytes as shown."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import List, Optional, Tuple, Union, cast

from .batch_types import WebhookEvent

#: The header a webhook call is signed in.
SIGNATURE_HEADER = "svc-signature"
#: How far (seconds) a signature's ``t`` may be from the receiver's clock, either way, by default.
TOLERANCE_SECONDS = 300

_TIMESTAMP = re.compile(r"^[0-9]{1,15}$")


class WebhookVerificationError(Exception):
    """A webhook call that must not be trusted (answer it with a 400). ``code`` says why:
    ``missing_secret``, ``missing_signature``, ``malformed_signature``, ``signature_mismatch``,
    ``timestamp_out_of_tolerance`` or ``invalid_payload``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def verify(
    payload: Union[bytes, str],
    header: Optional[str],
    secret: str,
    tolerance: int = TOLERANCE_SECONDS,
    *,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Checks a webhook call and returns its event: the header's ``t`` and one of its ``v1`` signatures must
    match the raw body (bytes as received, or their text) under ``secret``, compared with
    ``hmac.compare_digest`` (any ``v1`` may match, so a rotated secret's calls pass), and ``t`` must be within
    ``tolerance`` seconds of ``now`` (default the current time). Raises ``WebhookVerificationError``."""
    if not secret:
        raise WebhookVerificationError("missing_secret", "No webhook secret was given.")
    if not header:
        raise WebhookVerificationError("missing_signature", f"No {SIGNATURE_HEADER} header.")
    timestamp, signatures = _parse_header(header)
    body = _payload_bytes(payload)
    expected = _mac(secret, timestamp, body)
    matched = False
    for candidate in signatures:
        matched = hmac.compare_digest(candidate.lower().encode("ascii", "replace"), expected) or matched
    if not matched:
        raise WebhookVerificationError("signature_mismatch", "No signature matches the body and the secret.")
    current = int(time.time() if now is None else now)
    if abs(current - timestamp) > tolerance:
        raise WebhookVerificationError(
            "timestamp_out_of_tolerance",
            f"The signature's time is {current - timestamp} s from now; at most {tolerance} s is accepted.",
        )
    try:
        event = json.loads(body.decode("utf-8"))
    except ValueError:
        event = None
    if not isinstance(event, dict):
        raise WebhookVerificationError("invalid_payload", "The signed body is not a JSON object.")
    return cast(WebhookEvent, event)


def sign(payload: Union[bytes, str], secret: str, *, timestamp: Optional[int] = None) -> str:
    """The ``svc-signature`` header the service would send for ``payload`` at ``timestamp`` (default now):
    for testing your endpoint."""
    if not secret:
        raise WebhookVerificationError("missing_secret", "No webhook secret was given.")
    t = int(time.time()) if timestamp is None else timestamp
    return f"t={t},v1={_mac(secret, t, _payload_bytes(payload)).decode('ascii')}"


def _mac(secret: str, timestamp: int, body: bytes) -> bytes:
    """The hex HMAC-SHA256 of ``"<t>.<body>"``, as ASCII bytes (compared as such)."""
    message = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest().encode("ascii")


def _parse_header(header: str) -> Tuple[int, List[str]]:
    timestamp: Optional[int] = None
    signatures: List[str] = []
    for part in header.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            continue
        key, value = key.strip(), value.strip()
        if key == "t" and _TIMESTAMP.match(value):
            timestamp = int(value)
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not signatures:
        raise WebhookVerificationError(
            "malformed_signature", f"{SIGNATURE_HEADER} needs t=<unix seconds> and at least one v1=<hex>."
        )
    return timestamp, signatures


def _payload_bytes(payload: Union[bytes, str]) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise WebhookVerificationError(
        "invalid_payload", "Pass the raw body (bytes, or its text) as received, not a parsed object."
    )
