"""What the sync and async clients share: settings, one call's request, and the reading of its answer."""

from __future__ import annotations

import json
import os
import platform
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Generic, Mapping, Optional, TypeVar, Union

import httpx

from ._version import __version__
from .error_catalogue import type_of_status
from .errors import SvcError, make_error
from .operations import Operation
from .retry import RetryPolicy
from .timeouts import TimeoutPolicy

if TYPE_CHECKING:
    from ._jsonl import Upload

T = TypeVar("T")

USER_AGENT = f"svc-decide/{__version__} python/{platform.python_version()} httpx/{httpx.__version__}"


@dataclass(frozen=True)
class ResponseMeta:
    """What came back besides the body."""

    status: int
    #: ``x-request-id`` of the answer.
    request_id: Optional[str]
    #: True on an idempotent replay (``idempotent-replayed: true``): nothing was charged.
    replayed: bool
    #: The ``ratelimit`` and ``ratelimit-policy`` headers as sent.
    rate_limit: Optional[str]
    rate_limit_policy: Optional[str]
    #: The idempotency key sent, if any.
    idempotency_key: Optional[str]
    #: Attempts made (1 without retries).
    attempts: int


@dataclass(frozen=True)
class ApiResponse(Generic[T]):
    """A body with its meta."""

    data: T
    meta: ResponseMeta


@dataclass(frozen=True)
class Call:
    """One operation as the client sends it."""

    operation: Operation
    body: Any = None
    query: Mapping[str, Optional[str]] = field(default_factory=dict)
    #: A body sent as it is (a batch's JSONL), instead of ``body``.
    upload: Optional[Upload] = None
    #: ``accept`` when the answer is not JSON (errors still are).
    accept: Optional[str] = None


@dataclass(frozen=True)
class CallOptions:
    """Per-call settings."""

    idempotency_key: Optional[str] = None
    client_request_id: Optional[str] = None
    #: Bound on one attempt in seconds, exactly (instead of the one grown from the body's size).
    timeout: Optional[float] = None
    max_retries: Optional[int] = None


@dataclass(frozen=True)
class Prepared:
    """A call ready to send: the same request on every attempt."""

    method: str
    url: str
    params: Dict[str, str]
    headers: Dict[str, str]
    content: Optional[bytes]
    timeout: float
    idempotency_key: Optional[str]
    upload: Optional[Upload] = None


def new_idempotency_key() -> str:
    """A fresh idempotency key: printable ASCII, as the spec asks."""
    return f"sdk_{uuid.uuid4()}"


def encode_body(body: Any) -> bytes:
    """The JSON body as sent: UTF-8, compact, keys in the caller's order (a pick's options keep theirs)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


class ClientConfig:
    """A client's settings, and how it turns a call into a request."""

    def __init__(
        self,
        base_url: Optional[str],
        api_key: Optional[str],
        *,
        retry: RetryPolicy,
        timeouts: TimeoutPolicy,
        headers: Optional[Mapping[str, str]],
    ) -> None:
        resolved = base_url or os.environ.get("SVC_BASE_URL")
        if not resolved:
            raise ValueError("svc_decide: pass base_url= (or set SVC_BASE_URL), e.g. http://127.0.0.1:8787")
        self.base_url = resolved.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("SVC_API_KEY")
        self.retry = retry
        self.timeouts = timeouts
        self.headers = {"accept": "application/json", "user-agent": USER_AGENT, **(headers or {})}

    def retry_for(self, options: CallOptions, call: Optional[Call] = None) -> RetryPolicy:
        once = call is not None and call.upload is not None and not call.upload.replayable
        if options.max_retries is None and not once:
            return self.retry
        max_retries = self.retry.max_retries if options.max_retries is None else options.max_retries
        return RetryPolicy(
            max_retries=0 if once else max_retries,
            base_delay=self.retry.base_delay,
            max_delay=self.retry.max_delay,
            max_retry_after=self.retry.max_retry_after,
        )

    def prepare(self, call: Call, options: CallOptions) -> Prepared:
        content = None if call.body is None else encode_body(call.body)
        headers = dict(self.headers)
        if call.operation.auth and self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        if call.upload is not None:
            headers["content-type"] = call.upload.content_type
            if call.upload.length is not None:
                headers["content-length"] = str(call.upload.length)
        elif content is not None:
            headers["content-type"] = "application/json"
        if call.accept is not None:
            headers["accept"] = call.accept
        if options.idempotency_key is not None:
            headers["idempotency-key"] = options.idempotency_key
        if options.client_request_id is not None:
            headers["x-client-request-id"] = options.client_request_id
        timeout = options.timeout
        if timeout is None and call.upload is not None:
            length = call.upload.length
            timeout = self.timeouts.max_timeout if length is None else self.timeouts.for_body(length)
        elif timeout is None:
            timeout = self.timeouts.for_body(0 if content is None else len(content))
        return Prepared(
            method=call.operation.method,
            url=self.base_url + call.operation.path,
            params={k: v for k, v in call.query.items() if v is not None},
            headers=headers,
            content=content,
            timeout=timeout,
            idempotency_key=options.idempotency_key,
            upload=call.upload,
        )

    def content_for_attempt(self, prepared: Prepared) -> Any:
        """The body of one attempt: the JSON bytes, or the upload's content made anew."""
        return prepared.upload.body() if prepared.upload is not None else prepared.content


def httpx_timeout(seconds: float) -> httpx.Timeout:
    """The attempt's bound as httpx takes it: reading the answer may take all of it, connecting 10 s at most."""
    return httpx.Timeout(seconds, connect=min(seconds, 10.0))


def parse_retry_after(value: Optional[str]) -> Optional[int]:
    """Whole seconds of a ``retry-after`` header (delay-seconds form), or None."""
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def error_from_response(response: httpx.Response) -> SvcError:
    """The exception of a non-2xx answer: the envelope's fields when the body is one, else one built from
    the status (an answer from something in front of the API)."""
    envelope: Mapping[str, Any] = {}
    try:
        body = response.json()
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            envelope = body["error"]
    except ValueError:
        pass
    status = response.status_code
    fallback_type = "unavailable" if status >= 500 else "invalid_response"
    error_type = _str(envelope.get("type")) or type_of_status(status) or fallback_type
    return make_error(
        _str(envelope.get("message")) or f"HTTP {status} {response.reason_phrase}".strip(),
        type=error_type,
        code=_str(envelope.get("code")) or f"http_{status}",
        status=status,
        param=_str(envelope.get("param")),
        request_id=_str(envelope.get("request_id")) or response.headers.get("x-request-id"),
        retry_after=parse_retry_after(response.headers.get("retry-after")),
        balance_micro_cents=_int(envelope.get("balance_micro_cents")),
        required_micro_cents=_int(envelope.get("required_micro_cents")),
    )


def error_from_failure(exc: httpx.TransportError) -> SvcError:
    """The exception of an attempt that got no answer: a timeout or a connection failure."""
    if isinstance(exc, httpx.TimeoutException):
        error = make_error("The request timed out.", type="timeout", code="timeout", status=0)
    else:
        error = make_error(f"No answer: {exc}", type="connection", code="connection_failed", status=0)
    error.__cause__ = exc
    return error


def read_answer(response: httpx.Response, prepared: Prepared, attempts: int) -> Union[ApiResponse[Any], SvcError]:
    """The body and meta of a 2xx answer, or the exception of any other (returned, to be retried or raised)."""
    if not response.is_success:
        return error_from_response(response)
    try:
        data = response.json()
    except ValueError:
        return make_error(
            f"HTTP {response.status_code} with a body that is not JSON.",
            type="invalid_response",
            code="invalid_json_response",
            status=response.status_code,
            request_id=response.headers.get("x-request-id"),
        )
    meta = ResponseMeta(
        status=response.status_code,
        request_id=response.headers.get("x-request-id"),
        replayed=response.headers.get("idempotent-replayed") == "true",
        rate_limit=response.headers.get("ratelimit"),
        rate_limit_policy=response.headers.get("ratelimit-policy"),
        idempotency_key=prepared.idempotency_key,
        attempts=attempts,
    )
    return ApiResponse(data=data, meta=meta)
