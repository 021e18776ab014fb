"""The client against the contract: its methods and the error codes it knows, compared with the
``GET /v1/openapi.json`` the running API serves, and its catalogue with the spec's table."""

from __future__ import annotations

import inspect
import re
from typing import Any, Dict, List, Tuple

import svc_decide
from conftest import REPO, Stack
from svc_decide.batch_types import Batch, BatchEvent, BatchList, DeletedBatch
from svc_decide.operations import CONSOLE_PATH_PREFIX, NAMESPACED_METHODS, OPERATIONS

SPEC = REPO / "docs" / "spec" / "decision-service-api-v1.md"


def snake(operation_id: str) -> str:
    """The Python name of an operation id: ``listPublicPlans`` is ``list_public_plans`` (``OpenApi`` one word)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id.replace("OpenApi", "Openapi")).lower()


def method_of(client: object, name: str) -> Any:
    """The client's method for an operation: ``client.<name>``, or ``client.batches.create`` for a namespaced one."""
    found: Any = client
    for part in NAMESPACED_METHODS.get(name, name).split("."):
        found = getattr(found, part, None)
    return found


def is_async(method: Any) -> bool:
    return inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method)


def public_operations(doc: Dict[str, Any]) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """(METHOD, path) to operation, console routes left out."""
    return {
        (method.upper(), path): op
        for path, methods in doc["paths"].items()
        if not path.startswith(CONSOLE_PATH_PREFIX)
        for method, op in methods.items()
    }


def error_responses(op: Dict[str, Any]) -> List[Tuple[int, str, List[str]]]:
    """(status, type, codes) of each error response the operation documents."""
    out = []
    for status, response in op.get("responses", {}).items():
        if int(status) < 400:
            continue
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        fields = schema.get("properties", {}).get("error", {}).get("properties", {})
        out.append((int(status), (fields.get("type", {}).get("enum") or [""])[0], fields.get("code", {}).get("enum", [])))
    return out


def test_every_public_operation_has_a_method_with_its_method_path_and_auth(stack: Stack) -> None:
    doc = svc_decide.Client(base_url=stack.base_url).get_openapi_document()
    sync, asynchronous = svc_decide.Client(base_url=stack.base_url), svc_decide.AsyncClient(base_url=stack.base_url)
    ops = public_operations(doc)
    assert len(ops) >= 13
    problems = []
    for (method, path), op in ops.items():
        name = snake(op["operationId"])
        mine = OPERATIONS.get(name)
        needs_key = len(op.get("security") or []) > 0
        if mine is None:
            problems.append(f"{method} {path} ({op['operationId']}) has no method {name}")
        elif (mine.method, mine.path, mine.auth) != (method, path, needs_key):
            problems.append(f"{name}: document {method} {path} auth={needs_key}, client {mine}")
    for name, mine in OPERATIONS.items():
        if (mine.method, mine.path) not in ops:
            problems.append(f"client method {name} ({mine.method} {mine.path}) is not in the document")
        if not callable(method_of(sync, name)):
            problems.append(f"Client has no method {NAMESPACED_METHODS.get(name, name)}")
        if not is_async(method_of(asynchronous, name)):
            problems.append(f"AsyncClient has no async method {NAMESPACED_METHODS.get(name, name)}")
    assert problems == []


def test_the_batch_operation_ids_map_to_client_batches_methods_sync_and_async() -> None:
    ids = ["createBatch", "listBatches", "getBatch", "cancelBatch", "deleteBatch", "getBatchResults"]
    batch_methods = {k: v for k, v in NAMESPACED_METHODS.items() if v.startswith("batches.")}
    assert [snake(i) for i in ids] == list(batch_methods)
    assert list(batch_methods.values()) == [
        "batches.create",
        "batches.list",
        "batches.retrieve",
        "batches.cancel",
        "batches.delete",
        "batches.results",
    ]
    sync, asynchronous = svc_decide.Client(base_url="http://contract.test"), svc_decide.AsyncClient(base_url="http://contract.test")
    for name in NAMESPACED_METHODS:
        assert name in OPERATIONS
        assert callable(method_of(sync, name)) and is_async(method_of(asynchronous, name)), name


def test_the_question_operation_ids_map_to_client_questions_methods_sync_and_async() -> None:
    ids = ["listQuestions", "getQuestion", "getQuestionSeries", "getQuestionDrift", "updateQuestionDrift"]
    methods = {k: v for k, v in NAMESPACED_METHODS.items() if v.startswith("questions.")}
    assert [snake(i) for i in ids] == list(methods)
    sync, asynchronous = svc_decide.Client(base_url="http://contract.test"), svc_decide.AsyncClient(base_url="http://contract.test")
    for name in methods:
        assert callable(method_of(sync, name)) and is_async(method_of(asynchronous, name)), name


def test_every_error_the_document_lists_is_raised_by_its_type_and_known_codes_sit_under_it(stack: Stack) -> None:
    doc = svc_decide.Client(base_url=stack.base_url).get_openapi_document()
    problems = []
    codes_seen = set()
    for (method, path), op in public_operations(doc).items():
        for status, error_type, codes in error_responses(op):
            if svc_decide.TYPE_STATUS.get(error_type) != status:
                problems.append(f"{method} {path} {status}: type {error_type!r} unknown or under another status")
            if error_type not in svc_decide.ERROR_CLASSES:
                problems.append(f"{error_type} has no exception class")
            for code in codes:
                codes_seen.add(code)
                if svc_decide.is_known_code(code) and code not in svc_decide.KNOWN_CODES[error_type]:
                    problems.append(f"{method} {path} {status}: {code} is known under another type")
    assert problems == []
    assert len(codes_seen) > 30


def test_the_batch_typed_dicts_have_the_fields_of_the_documents_schemas(stack: Stack) -> None:
    """Batch, BatchList and DeletedBatch as the document has them (issue 42's routes); WebhookEvent when it
    lists it too (no route answers one)."""
    schemas = svc_decide.Client(base_url=stack.base_url).get_openapi_document().get("components", {}).get("schemas", {})
    typed = {"Batch": Batch, "BatchList": BatchList, "DeletedBatch": DeletedBatch, "WebhookEvent": BatchEvent}
    assert [n for n in ("Batch", "BatchList", "DeletedBatch") if n not in schemas] == []
    for name, typed_dict in typed.items():
        if name in schemas:
            assert set(schemas[name]["properties"]) == set(typed_dict.__annotations__), name
    assert set(schemas["Batch"]["required"]) == set(Batch.__required_keys__)


def spec_error_table() -> Dict[str, Tuple[int, List[str]]]:
    """type to (status, codes) from the spec's "Types, statuses and codes" table."""
    text = SPEC.read_text(encoding="utf-8")
    section = text.split("### Types, statuses and codes", 1)[1].split("###", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            table[cells[1].strip("`")] = (int(cells[0]), re.findall(r"`([a-z_0-9]+)`", cells[2]))
    return table


def test_the_client_catalogue_is_the_specs_table() -> None:
    spec = spec_error_table()
    assert len(spec) == 12
    assert {t: status for t, (status, _) in spec.items()} == svc_decide.TYPE_STATUS
    assert {t: sorted(codes) for t, (_, codes) in spec.items()} == {
        t: sorted(codes) for t, codes in svc_decide.KNOWN_CODES.items()
    }
