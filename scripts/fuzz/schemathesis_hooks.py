"""Schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

The batch upload's body is JSONL, a media type schemathesis has no serializer for; without one it reports
"Serialization not possible" for POST /v1/batches and its console twin and sends them nothing. The document
declares the body a string, so a generated string goes as its UTF-8 bytes; anything else goes as one JSON line.
"""

import json

import schemathesis


@schemathesis.serializer("application/jsonl", "application/x-ndjson")
def jsonl(_ctx, value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return (json.dumps(value) + "\n").encode("utf-8")
