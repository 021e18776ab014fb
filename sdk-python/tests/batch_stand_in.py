"""A stand-in for the batch routes on a real local HTTP server: it reads uploads as sent (chunked or with a
length), answers each request from a script, and writes results in pieces (or cuts them short), so uploads
and streamed reads are checked over a real connection."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Union

BATCH = {
    "id": "batch_01JD0000000000000000000000",
    "object": "batch",
    "status": "queued",
    "paused_reason": None,
    "resumes_at": None,
    "mode": "test",
    "model": "svc-1",
    "counts": {"total": 2, "done": 0, "failed": 0},
    "usage": {"input_tokens": 0, "charge_micro_cents": 0},
    "created": 1795600000,
    "started": None,
    "finished": None,
    "expires_at": 1795686400,
    "results_expire_at": None,
    "failure": None,
}


@dataclass
class Error:
    status: int
    type: str
    code: str
    retry_after: Optional[int] = None


@dataclass
class Json:
    status: int = 201
    body: Any = field(default_factory=lambda: BATCH)
    headers: Dict[str, str] = field(default_factory=dict)


@dataclass
class Lines:
    """A JSONL body: ``lines`` written ``per_chunk`` at a time (HTTP chunks); ``cut_after`` lines, then the
    connection is closed mid-body."""

    lines: List[str]
    per_chunk: int = 500
    cut_after: Optional[int] = None


Step = Union[Error, Json, Lines]


@dataclass
class Seen:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


class BatchStandIn:
    """``url``, the ``requests`` it saw, ``close()``; the ``script`` is used one step per request (the last
    one repeats)."""

    def __init__(self, script: List[Step]) -> None:
        self.script = script
        self.requests: List[Seen] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def next_step(self, seen: Seen) -> Step:
        with self._lock:
            self.requests.append(seen)
            return self.script[min(len(self.requests) - 1, len(self.script) - 1)]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(stand_in: BatchStandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _read_body(self) -> bytes:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                out: List[bytes] = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        self.rfile.readline()
                        return b"".join(out)
                    out.append(self.rfile.read(size))
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("content-length") or 0))

        def _handle(self) -> None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            step = stand_in.next_step(Seen(self.command, self.path, headers, self._read_body()))
            if isinstance(step, Error):
                error = {"type": step.type, "code": step.code, "message": step.code, "request_id": "req_1"}
                extra = {} if step.retry_after is None else {"retry-after": str(step.retry_after)}
                return self._json(step.status, {"error": error}, extra)
            if isinstance(step, Json):
                return self._json(step.status, step.body, step.headers)
            try:
                self._lines(step)
            except OSError:
                pass  # the client left before the end (a `break` out of its loop)

        def _json(self, status: int, body: Any, headers: Dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _lines(self, step: Lines) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/jsonl")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            lines = step.lines if step.cut_after is None else step.lines[: step.cut_after]
            for i in range(0, len(lines), step.per_chunk):
                data = "".join(f"{line}\n" for line in lines[i : i + step.per_chunk]).encode("utf-8")
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            if step.cut_after is not None:
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)  # cut mid-body: no last chunk
                return
            self.wfile.write(b"0\r\n\r\n")

    return Handler
