"""The calls behind each client method, built the same way for the sync and async clients."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence
from urllib.parse import quote

from ._http import Call
from ._jsonl import JSONL, Upload
from .operations import OPERATIONS, Operation
from .evaluation_types import EvaluationItemInput
from .types import Fallback, Questions, State


def decide(state: State, questions: Questions, model: Optional[str], fallback: Optional[Fallback]) -> Call:
    """POST /v1/decide: the keyword arguments are the body's fields; unset ones are left out."""
    body: Dict[str, Any] = {"state": state, "questions": questions}
    if model is not None:
        body["model"] = model
    if fallback is not None:
        body["fallback"] = fallback
    return Call(OPERATIONS["decide"], body=body)


def usage(start: str, end: Optional[str], granularity: Optional[str], key_id: Optional[str]) -> Call:
    """GET /v1/usage with its query."""
    query = {"start": start, "end": end, "granularity": granularity, "key_id": key_id}
    return Call(OPERATIONS["get_usage"], query=query)


def create_evaluation(name: str, items: Sequence[EvaluationItemInput], model: Optional[str]) -> Call:
    """POST /v1/evaluations: labelled items scored in the background (test keys only)."""
    body: Dict[str, Any] = {"name": name, "items": list(items)}
    if model is not None:
        body["model"] = model
    return Call(OPERATIONS["create_evaluation"], body=body)


def list_evaluations(limit: Optional[int], starting_after: Optional[str]) -> Call:
    """GET /v1/evaluations, one page."""
    return Call(OPERATIONS["list_evaluations"], query=page(limit, starting_after))


def of_evaluation(name: str, evaluation_id: str, query: Optional[Mapping[str, Optional[str]]] = None) -> Call:
    """An operation on one evaluation: ``{id}`` in its path is the evaluation's id."""
    return _of_one(name, evaluation_id, query)


def of_calibration(name: str, calibration_id: str) -> Call:
    """An operation on one calibration: ``{id}`` in its path is the calibration's id."""
    return _of_one(name, calibration_id, None)


def of_one(name: str, resource_id: str, body: Any = None) -> Call:
    """An operation on one resource (``{id}`` in its path), with an optional JSON body."""
    call = _of_one(name, resource_id, None)
    return call if body is None else Call(call.operation, body=body)


def _of_one(name: str, resource_id: str, query: Optional[Mapping[str, Optional[str]]]) -> Call:
    op = OPERATIONS[name]
    path = op.path.replace("{id}", quote(resource_id, safe=""))
    return Call(op._replace(path=path), query=dict(query or {}))


def calibration(name: str, evaluation: str, question: str) -> Call:
    """POST /v1/calibrations or its preview: a done evaluation and one question id of its items."""
    return Call(OPERATIONS[name], body={"evaluation": evaluation, "question": question})


def list_calibrations(limit: Optional[int], starting_after: Optional[str]) -> Call:
    """GET /v1/calibrations, one page."""
    return Call(OPERATIONS["list_calibrations"], query=page(limit, starting_after))


def create_batch(upload: Upload, idempotency_key: Optional[str]) -> Call:
    """POST /v1/batches: the JSONL upload. Sent again after a 500 or a timeout only with the caller's key."""
    op = OPERATIONS["create_batch"]
    return Call(op._replace(idempotent=idempotency_key is not None), upload=upload)


def list_batches(limit: Optional[int], starting_after: Optional[str]) -> Call:
    """GET /v1/batches, one page."""
    return Call(OPERATIONS["list_batches"], query=page(limit, starting_after))


def of_batch(name: str, batch_id: str) -> Call:
    """An operation on one batch: ``{id}`` in its path is the batch's id."""
    return _of_one(name, batch_id, None)


def batch_results(batch_id: str) -> Call:
    """GET /v1/batches/{id}/results: JSONL (an error is still JSON)."""
    call = _of_one("get_batch_results", batch_id, None)
    return Call(call.operation, accept=f"{JSONL}, application/json")


def page(limit: Optional[int], starting_after: Optional[Any]) -> Dict[str, Optional[str]]:
    """The query of a paginated list."""
    return {
        "limit": None if limit is None else str(limit),
        "starting_after": None if starting_after is None else str(starting_after),
    }


def plain(name: str) -> Call:
    """An operation without a body or query."""
    return Call(OPERATIONS[name])


def any_route(
    method: str, path: str, body: Any, query: Optional[Mapping[str, Optional[str]]], auth: bool
) -> Call:
    """A route newer than this package, with the same headers, retries and errors."""
    return Call(Operation(method.upper(), path, auth), body=body, query=dict(query or {}))
