"""svc_decide.webhooks: svc-signature t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, checked on
known vectors (computed with ``openssl dgst -sha256 -hmac`` and by the TypeScript SDK's tests, the same ones)."""

from __future__ import annotations

import json
import re
from typing import Optional

import pytest

import svc_decide
from svc_decide.webhooks import WebhookVerificationError, sign, verify

SECRET = "whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH"
ROTATED = "whsec_rotated0000000000000000000000000"
T = 1795600000
BODY = (
    '{"id":"evt_01JD0000000000000000000000","object":"event","type":"batch.completed","created":1795600000,'
    '"data":{"object":{"id":"batch_01JD0000000000000000000000","object":"batch","status":"completed",'
    '"paused_reason":null,"resumes_at":null,"mode":"live","model":"svc-1","counts":{"total":2,"done":2,"failed":0},'
    '"usage":{"input_tokens":40,"charge_micro_cents":200},"created":1795599000,"started":1795599001,'
    '"finished":1795599990,"expires_at":1795685400,"results_expire_at":1798191990,"failure":null}}}'
)
SIG = "b47052a6218243a4d0d72fde0eb6f04ca253be2a776b342e3b027dbf6fd8d319"
SIG_ROTATED = "ffd64af2118601a04496d2bdd731d2413b06c2e5655fbdf123ba1dd20e87bc43"
UTF8_BODY = '{"id":"evt_x","object":"event","note":"café ✓"}'
UTF8_SIG = "f36eedee117e31f68ff33f2c0214f9ec7c337d9fab7048f63683a9a56de1065d"
NOW = T + 10


def header(*v1: str) -> str:
    return ",".join([f"t={T}", *(f"v1={s}" for s in v1)])


def code_of(payload: object, h: Optional[str], secret: str, now: float = NOW, tolerance: int = 300) -> str:
    with pytest.raises(WebhookVerificationError) as caught:
        verify(payload, h, secret, tolerance, now=now)  # type: ignore[arg-type]
    return caught.value.code


def test_a_valid_signature_returns_the_parsed_event() -> None:
    event = verify(BODY, header(SIG), SECRET, now=NOW)
    assert event["type"] == "batch.completed"  # narrows the union to a batch event
    assert (event["id"], event["type"], event["data"]["object"]["counts"]["done"]) == (
        "evt_01JD0000000000000000000000",
        "batch.completed",
        2,
    )
    assert svc_decide.webhooks.verify(BODY.encode(), header(SIG), SECRET, now=NOW)["object"] == "event"


def test_the_raw_body_may_be_bytes_or_text_and_the_secret_is_its_utf8_bytes() -> None:
    assert verify(UTF8_BODY.encode("utf-8"), header(UTF8_SIG), SECRET, now=NOW)["id"] == "evt_x"
    assert verify(UTF8_BODY, header(UTF8_SIG), SECRET, now=NOW)["id"] == "evt_x"


def test_a_wrong_secret_is_signature_mismatch() -> None:
    assert code_of(BODY, header(SIG), "whsec_wrong") == "signature_mismatch"


def test_a_tampered_body_is_signature_mismatch() -> None:
    assert code_of(BODY.replace('"done":2', '"done":3'), header(SIG), SECRET) == "signature_mismatch"
    assert code_of(json.dumps(json.loads(BODY), indent=2), header(SIG), SECRET) == "signature_mismatch"


def test_a_timestamp_more_than_300_s_from_now_either_way_is_out_of_tolerance() -> None:
    assert code_of(BODY, header(SIG), SECRET, now=T + 301) == "timestamp_out_of_tolerance"
    assert code_of(BODY, header(SIG), SECRET, now=T - 301) == "timestamp_out_of_tolerance"
    assert verify(BODY, header(SIG), SECRET, now=T + 300)["id"].startswith("evt_")
    assert verify(BODY, header(SIG), SECRET, 3600, now=T + 3600)["id"].startswith("evt_")


def test_t_is_signed_a_moved_timestamp_breaks_the_signature() -> None:
    assert code_of(BODY, f"t={T + 1},v1={SIG}", SECRET) == "signature_mismatch"


def test_several_v1_entries_any_match_passes_none_fails() -> None:
    bogus = "00" * 32
    assert verify(BODY, header(bogus, SIG_ROTATED, SIG), SECRET, now=NOW)["id"].startswith("evt_")
    assert verify(BODY, header(SIG, SIG_ROTATED), ROTATED, now=NOW)["id"].startswith("evt_")
    assert code_of(BODY, header(bogus, "zz", SIG[2:], "é"), SECRET) == "signature_mismatch"


def test_other_entries_and_spaces_are_ignored() -> None:
    assert verify(BODY, f" t={T} , v0={SIG_ROTATED}, v1={SIG} ", SECRET, now=NOW)["id"].startswith("evt_")


@pytest.mark.parametrize(
    "h, secret, code",
    [
        (None, SECRET, "missing_signature"),
        ("", SECRET, "missing_signature"),
        (f"v1={SIG}", SECRET, "malformed_signature"),
        (f"t={T}", SECRET, "malformed_signature"),
        (f"t=soon,v1={SIG}", SECRET, "malformed_signature"),
        ("garbage", SECRET, "malformed_signature"),
        (header(SIG), "", "missing_secret"),
    ],
)
def test_a_missing_or_malformed_header_or_an_empty_secret_has_its_code(h: Optional[str], secret: str, code: str) -> None:
    assert code_of(BODY, h, secret) == code


def test_a_signed_body_that_is_not_a_json_object_or_a_parsed_payload_is_invalid_payload() -> None:
    assert code_of("not json", sign("not json", SECRET, timestamp=T), SECRET) == "invalid_payload"
    assert code_of("[1]", sign("[1]", SECRET, timestamp=T), SECRET) == "invalid_payload"
    assert code_of(json.loads(BODY), header(SIG), SECRET) == "invalid_payload"


def test_sign_gives_the_known_vector_and_verify_accepts_what_it_made() -> None:
    assert sign(BODY, SECRET, timestamp=T) == f"t={T},v1={SIG}"
    fresh = sign(UTF8_BODY, SECRET)
    assert re.match(r"^t=\d{10},v1=[0-9a-f]{64}$", fresh)
    assert verify(UTF8_BODY, fresh, SECRET)["id"] == "evt_x"
    assert (svc_decide.webhooks.SIGNATURE_HEADER, svc_decide.webhooks.TOLERANCE_SECONDS) == ("svc-signature", 300)
