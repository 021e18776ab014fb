"""Every public operation the client calls (spec: Endpoints), keyed by its client method. The tests check
this table against ``GET /v1/openapi.json``: each public operation of the document is here, named after its
operation id, with the same method, path and authentication. Console routes (session based) are not the
client's."""

from __future__ import annotations

from typing import Dict, NamedTuple


class Operation(NamedTuple):
    method: str
    path: str
    #: Sends the API key (False for the public routes).
    auth: bool
    #: Safe to send again after a failure that may have happened after the API acted (a 500, a timeout, a
    #: cut connection). False for a create without an idempotency key: it is retried only after 429 and 503.
    idempotent: bool = True


OPERATIONS: Dict[str, Operation] = {
    "decide": Operation("POST", "/v1/decide", True),
    "list_models": Operation("GET", "/v1/models", True),
    "get_key": Operation("GET", "/v1/key", True),
    "get_balance": Operation("GET", "/v1/balance", True),
    "get_usage": Operation("GET", "/v1/usage", True),
    "list_public_plans": Operation("GET", "/v1/plans", False),
    "get_openapi_document": Operation("GET", "/v1/openapi.json", False),
    "create_evaluation": Operation("POST", "/v1/evaluations", True, idempotent=False),
    "list_evaluations": Operation("GET", "/v1/evaluations", True),
    "get_evaluation": Operation("GET", "/v1/evaluations/{id}", True),
    "cancel_evaluation": Operation("POST", "/v1/evaluations/{id}/cancel", True),
    "delete_evaluation": Operation("DELETE", "/v1/evaluations/{id}", True),
    "list_evaluation_items": Operation("GET", "/v1/evaluations/{id}/items", True),
    # A second create would replace the first calibration of the question.
    "create_calibration": Operation("POST", "/v1/calibrations", True, idempotent=False),
    "preview_calibration": Operation("POST", "/v1/calibration-previews", True),
    "list_calibrations": Operation("GET", "/v1/calibrations", True),
    "get_calibration": Operation("GET", "/v1/calibrations/{id}", True),
    "delete_calibration": Operation("DELETE", "/v1/calibrations/{id}", True),
    "activate_calibration": Operation("POST", "/v1/calibrations/{id}/activate", True),
    # Batches (issue 42), reached through ``client.batches`` (NAMESPACED_METHODS). The create is sent again
    # after a 500 or a timeout only with the caller's idempotency key (decided per call).
    "create_batch": Operation("POST", "/v1/batches", True, idempotent=False),
    "list_batches": Operation("GET", "/v1/batches", True),
    "get_batch": Operation("GET", "/v1/batches/{id}", True),
    "cancel_batch": Operation("POST", "/v1/batches/{id}/cancel", True),
    "delete_batch": Operation("DELETE", "/v1/batches/{id}", True),
    "get_batch_results": Operation("GET", "/v1/batches/{id}/results", True),
    # Reviews (issue 51), reached through ``client.reviews``. A rule's create and a loop's evaluation are not sent
    # again where the API may have acted; a second label answers 409.
    "create_review_rule": Operation("POST", "/v1/review-rules", True, idempotent=False),
    "list_review_rules": Operation("GET", "/v1/review-rules", True),
    "get_review_rule": Operation("GET", "/v1/review-rules/{id}", True),
    "delete_review_rule": Operation("DELETE", "/v1/review-rules/{id}", True),
    "claim_next_review": Operation("POST", "/v1/review-rules/{id}/next", True),
    "create_review_rule_evaluation": Operation("POST", "/v1/review-rules/{id}/evaluations", True, idempotent=False),
    "list_reviews": Operation("GET", "/v1/reviews", True),
    "label_review": Operation("POST", "/v1/reviews/{id}/label", True),
    "skip_review": Operation("POST", "/v1/reviews/{id}/skip", True),
}

#: Operations whose method sits in a namespace of the client (``client.batches.create``) rather than on the
#: client itself: operation (snake case of its operation id) to ``namespace.method``.
NAMESPACED_METHODS: Dict[str, str] = {
    "create_batch": "batches.create",
    "list_batches": "batches.list",
    "get_batch": "batches.retrieve",
    "cancel_batch": "batches.cancel",
    "delete_batch": "batches.delete",
    "get_batch_results": "batches.results",
    "create_review_rule": "reviews.create_rule",
    "list_review_rules": "reviews.list_rules",
    "get_review_rule": "reviews.retrieve_rule",
    "delete_review_rule": "reviews.delete_rule",
    "claim_next_review": "reviews.next",
    "create_review_rule_evaluation": "reviews.evaluate",
    "list_reviews": "reviews.list",
    "label_review": "reviews.label",
    "skip_review": "reviews.skip",
}

#: Evaluation statuses after which nothing changes any more.
FINAL_EVALUATION_STATUSES = ("done", "cancelled", "failed")

#: Paths of the browser console's routes, which are not the client's.
CONSOLE_PATH_PREFIX = "/v1/console/"
