"""JSONL both ways: a batch's lines written out as an upload, streamed, and an answer's body read back line by
line as its bytes arrive, never held whole."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import (
    IO,
    Any,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Union,
)

import anyio

from ._http import encode_body
from .batch_types import BatchLine
from .errors import SvcError, make_error

#: The media type of a batch upload and of its results.
JSONL = "application/jsonl"

#: Bytes read from a file, or lines gathered, per chunk of a streamed upload.
CHUNK_BYTES = 64 * 1024

#: What ``batches.create`` takes: lines (any iterable of ``{"custom_id", "body"}``; an async iterable too on
#: ``AsyncClient``), a path of a JSONL file, a binary file object, JSONL bytes, or an iterable of JSONL chunks.
BatchSource = Union[
    Iterable[BatchLine],
    AsyncIterable[BatchLine],
    str,
    "os.PathLike[str]",
    IO[bytes],
    bytes,
    Iterable[bytes],
    AsyncIterable[bytes],
]


@dataclass(frozen=True)
class Upload:
    """A body sent as it is. ``body()`` gives one attempt's content (bytes, or an iterator of chunks: sync or
    async by the client); ``length`` is its size when known; a stream that can be read once is not
    ``replayable`` and its call is sent once."""

    body: Callable[[], Any]
    length: Optional[int]
    replayable: bool
    content_type: str = JSONL


def upload_of(source: Any, *, asynchronous: bool) -> Upload:
    """The upload of ``source`` for the sync (``asynchronous=False``) or the async client."""
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        return Upload(lambda: data, len(data), True)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        size = os.path.getsize(path)  # raises FileNotFoundError for a path that is not there
        return Upload((lambda: _async_file(path)) if asynchronous else (lambda: _sync_file(path)), size, True)
    if hasattr(source, "read"):
        return _file_object_upload(source, asynchronous)
    if isinstance(source, (list, tuple)):
        lines: Sequence[BatchLine] = source
        return Upload((lambda: _async_of(_chunks(lines))) if asynchronous else (lambda: _chunks(lines)), None, True)
    if hasattr(source, "__aiter__"):
        if not asynchronous:
            raise TypeError("svc_decide: an async iterable of lines needs AsyncClient")
        return _once(lambda: _async_chunks(source))
    if hasattr(source, "__iter__"):
        return _once((lambda: _async_of(_chunks(source))) if asynchronous else (lambda: _chunks(source)))
    raise TypeError(
        "svc_decide: batches.create takes lines (an iterable of {'custom_id', 'body'}), a path, a binary file "
        f"object or JSONL bytes, not {type(source).__name__}"
    )


def _line(line: Union[BatchLine, bytes]) -> bytes:
    """A line written out; bytes pass as they are (an iterator of chunks already written)."""
    return bytes(line) if isinstance(line, (bytes, bytearray)) else encode_body(line) + b"\n"


class _Chunker:
    """Encoded lines gathered into chunks of at least ``CHUNK_BYTES`` (the last one smaller)."""

    def __init__(self) -> None:
        self._lines: List[bytes] = []
        self._size = 0

    def add(self, line: Union[BatchLine, bytes]) -> Optional[bytes]:
        """Takes a line; returns a chunk once enough has gathered."""
        encoded = _line(line)
        self._lines.append(encoded)
        self._size += len(encoded)
        return self.rest() if self._size >= CHUNK_BYTES else None

    def rest(self) -> Optional[bytes]:
        """What has gathered, as one chunk (None when nothing has)."""
        if not self._lines:
            return None
        chunk = b"".join(self._lines)
        self._lines, self._size = [], 0
        return chunk


def _chunks(lines: Iterable[Union[BatchLine, bytes]]) -> Iterator[bytes]:
    chunker = _Chunker()
    for line in lines:
        chunk = chunker.add(line)
        if chunk is not None:
            yield chunk
    rest = chunker.rest()
    if rest is not None:
        yield rest


async def _async_chunks(lines: AsyncIterable[Union[BatchLine, bytes]]) -> AsyncIterator[bytes]:
    chunker = _Chunker()
    async for line in lines:
        chunk = chunker.add(line)
        if chunk is not None:
            yield chunk
    rest = chunker.rest()
    if rest is not None:
        yield rest


async def _async_of(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _sync_file(path: str) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while True:
            chunk = f.read(CHUNK_BYTES)
            if not chunk:
                return
            yield chunk


async def _async_file(path: str) -> AsyncIterator[bytes]:
    async with await anyio.open_file(path, "rb") as f:
        while True:
            chunk = await f.read(CHUNK_BYTES)
            if not chunk:
                return
            yield chunk


def _file_object_upload(f: Any, asynchronous: bool) -> Upload:
    """A file object is read from where it stands; a seekable one is read again from there on a retry."""
    seekable = bool(getattr(f, "seekable", lambda: False)())
    start = f.tell() if seekable else 0
    length = None
    if seekable:
        length = f.seek(0, os.SEEK_END) - start
        f.seek(start)

    def chunks() -> Iterator[bytes]:
        if seekable:
            f.seek(start)
        while True:
            chunk = f.read(CHUNK_BYTES)
            if not chunk:
                return
            yield chunk.encode("utf-8") if isinstance(chunk, str) else chunk

    async def async_chunks() -> AsyncIterator[bytes]:
        it = chunks()
        while True:
            chunk = await anyio.to_thread.run_sync(next, it, None)
            if chunk is None:
                return
            yield chunk

    body = async_chunks if asynchronous else chunks
    return Upload(body, length, True) if seekable else _once(body)


def _once(body: Callable[[], Any]) -> Upload:
    used: List[bool] = []

    def once() -> Any:
        if used:
            raise RuntimeError("svc_decide: a streamed upload can be sent only once")
        used.append(True)
        return body()

    return Upload(once, None, False)


class JsonLines:
    """Splits a body's bytes into JSON values, one per non-empty line. Only ``\\n`` ends a line (never
    U+2028 or U+0085, which JSON strings may hold as they are), so chunks are split as bytes."""

    def __init__(self) -> None:
        self._rest = b""
        self._number = 0

    def feed(self, chunk: bytes) -> List[Any]:
        parts = (self._rest + chunk).split(b"\n")
        self._rest = parts.pop()
        return [self._parse(p) for p in parts if p.strip()]

    def end(self) -> List[Any]:
        rest, self._rest = self._rest, b""
        return [self._parse(rest)] if rest.strip() else []

    def _parse(self, line: bytes) -> Any:
        self._number += 1
        try:
            return json.loads(line.decode("utf-8"))
        except ValueError as exc:
            error: SvcError = make_error(
                f"Line {self._number} of the answer is not JSON.",
                type="invalid_response",
                code="invalid_jsonl_response",
                status=200,
            )
            raise error from exc
