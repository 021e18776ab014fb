"""A stand-in for POST /v1/decide on a real local HTTP server: it answers from a script and keeps the API's
idempotency records (running, done, failed), so retries can be checked end to end: same key, waits,
replays, and how many times a call was charged."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Union

DECISION = {
    "id": "req_01JD0000000000000000000000",
    "object": "decision",
    "created": 1795600000,
    "model": "svc-1.4.0",
    "served_by": "gpu",
    "calibration": "cal-20261123-3",
    "answers": {"ok": {"type": "check", "probability": 0.9, "confidence": 0.8, "abstained": False}},
    "usage": {
        "input_tokens": 10,
        "state_tokens": 4,
        "question_tokens": 6,
        "charge_micro_cents": 50,
        "unit_price_micro_cents": 5,
        "tier": "t1",
    },
}


@dataclass
class Fail:
    """Answer an error envelope (and, for a decide, leave its record failed: a retry runs again)."""

    status: int
    type: str
    code: str
    retry_after: Optional[int] = None


@dataclass
class Work:
    """Take ``seconds`` to compute, then answer 200 and charge once (to whoever still listens)."""

    seconds: float = 0.0


Step = Union[Fail, Work]


@dataclass
class Seen:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes
    at: float


@dataclass
class StandIn:
    """The server: ``script`` is used one step per request that runs (the last step repeats)."""

    script: List[Step]
    requests: List[Seen] = field(default_factory=list)
    charges: int = 0
    records: Dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    started: float = field(default_factory=time.monotonic)

    runs: int = 0

    def next_step(self) -> Step:
        step = self.script[min(self.runs, len(self.script) - 1)]
        self.runs += 1
        return step


def _handler(stand_in: StandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            key = self.headers.get("idempotency-key")
            with stand_in.lock:
                stand_in.requests.append(
                    Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                )
                record = stand_in.records.get(key) if key else None
                if record == "running":
                    return self._error(Fail(409, "conflict", "idempotency_in_progress", 1))
                if record == "done":
                    return self._json(200, DECISION, {"idempotent-replayed": "true"})
                step = stand_in.next_step()
                if key:
                    stand_in.records[key] = "running"
            if isinstance(step, Fail):
                with stand_in.lock:
                    if key:
                        stand_in.records[key] = "failed"
                return self._error(step)
            time.sleep(step.seconds)
            with stand_in.lock:
                stand_in.charges += 1
                if key:
                    stand_in.records[key] = "done"
            try:
                self._json(200, DECISION, {})
            except OSError:
                pass  # the client gave up on this attempt

        def _error(self, fail: Fail) -> None:
            headers = {"x-request-id": "req_01JD0000000000000000000001"}
            if fail.retry_after is not None:
                headers["retry-after"] = str(fail.retry_after)
            error = {
                "type": fail.type,
                "code": fail.code,
                "message": f"stand-in {fail.code}",
                "request_id": headers["x-request-id"],
            }
            self._json(fail.status, {"error": error}, headers)

        def _json(self, status: int, body: Any, headers: Dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("x-request-id", headers.pop("x-request-id", DECISION["id"]))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    return Handler


class Running:
    """A started stand-in: ``url``, the ``stand_in`` state, ``close()``."""

    def __init__(self, script: List[Step]) -> None:
        self.stand_in = StandIn(script)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.stand_in))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def keys(self) -> List[Optional[str]]:
        return [r.headers.get("idempotency-key") for r in self.stand_in.requests]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
