/** One operation: method, path, whether the API key is sent. */
export interface Operation {
  method: "GET" | "POST" | "DELETE";
  path: string;
  auth: boolean;
  /**
   * Safe to send again after a failure that may have come after the API acted (a 500, a timeout, a cut
   * connection); default true. False for a create without an idempotency key: retried only after 429 and 503.
   */
  idempotent?: boolean;
}

/**
 * Every public operation the SDK calls (spec: Endpoints), keyed by its operation id, which is the client
 * method's name (or see NAMESPACED_METHODS). Tests check this table
 * against `GET /v1/openapi.json`: each public operation of the document is here with the same method and
 * path. Console routes (session cookie) are not part of the SDK.
 */
export const OPERATIONS = {
  decide: { method: "POST", path: "/v1/decide", auth: true },
  listModels: { method: "GET", path: "/v1/models", auth: true },
  getKey: { method: "GET", path: "/v1/key", auth: true },
  getBalance: { method: "GET", path: "/v1/balance", auth: true },
  getUsage: { method: "GET", path: "/v1/usage", auth: true },
  listPublicPlans: { method: "GET", path: "/v1/plans", auth: false },
  getOpenApiDocument: { method: "GET", path: "/v1/openapi.json", auth: false },
  // No idempotency key on this create: not sent again where the API may have acted (see `Operation`).
  createEvaluation: { method: "POST", path: "/v1/evaluations", auth: true, idempotent: false },
  listEvaluations: { method: "GET", path: "/v1/evaluations", auth: true },
  getEvaluation: { method: "GET", path: "/v1/evaluations/{id}", auth: true },
  cancelEvaluation: { method: "POST", path: "/v1/evaluations/{id}/cancel", auth: true },
  deleteEvaluation: { method: "DELETE", path: "/v1/evaluations/{id}", auth: true },
  listEvaluationItems: { method: "GET", path: "/v1/evaluations/{id}/items", auth: true },
  // A second create replaces the first calibration of the question: not sent again where the API may have acted.
  createCalibration: { method: "POST", path: "/v1/calibrations", auth: true, idempotent: false },
  previewCalibration: { method: "POST", path: "/v1/calibration-previews", auth: true },
  listCalibrations: { method: "GET", path: "/v1/calibrations", auth: true },
  getCalibration: { method: "GET", path: "/v1/calibrations/{id}", auth: true },
  deleteCalibration: { method: "DELETE", path: "/v1/calibrations/{id}", auth: true },
  activateCalibration: { method: "POST", path: "/v1/calibrations/{id}/activate", auth: true },
  // Reviews (issue 51) are reached through `client.reviews` (NAMESPACED_METHODS). A rule's create and a loop's
  // evaluation are not sent again where the API may have acted; a label answers 409 when it was already made.
  createReviewRule: { method: "POST", path: "/v1/review-rules", auth: true, idempotent: false },
  listReviewRules: { method: "GET", path: "/v1/review-rules", auth: true },
  getReviewRule: { method: "GET", path: "/v1/review-rules/{id}", auth: true },
  deleteReviewRule: { method: "DELETE", path: "/v1/review-rules/{id}", auth: true },
  claimNextReview: { method: "POST", path: "/v1/review-rules/{id}/next", auth: true },
  createReviewRuleEvaluation: {
    method: "POST",
    path: "/v1/review-rules/{id}/evaluations",
    auth: true,
    idempotent: false,
  },
  listReviews: { method: "GET", path: "/v1/reviews", auth: true },
  labelReview: { method: "POST", path: "/v1/reviews/{id}/label", auth: true },
  skipReview: { method: "POST", path: "/v1/reviews/{id}/skip", auth: true },
  // Batches (issue 42) are reached through `client.batches` (NAMESPACED_METHODS). The create is sent again
  // after a 500 or a timeout only with the caller's idempotency key (set per call).
  createBatch: { method: "POST", path: "/v1/batches", auth: true, idempotent: false },
  listBatches: { method: "GET", path: "/v1/batches", auth: true },
  getBatch: { method: "GET", path: "/v1/batches/{id}", auth: true },
  cancelBatch: { method: "POST", path: "/v1/batches/{id}/cancel", auth: true },
  deleteBatch: { method: "DELETE", path: "/v1/batches/{id}", auth: true },
  getBatchResults: { method: "GET", path: "/v1/batches/{id}/results", auth: true },
} as const satisfies Record<string, Operation>;

/** An operation the client calls: the API's operation id. */
export type OperationName = keyof typeof OPERATIONS;

/**
 * Operations whose client method sits in a namespace (`client.batches.create`) rather than on the client
 * itself; every other operation's method is named like the operation.
 */
export const NAMESPACED_METHODS = {
  createBatch: "batches.create",
  listBatches: "batches.list",
  getBatch: "batches.retrieve",
  cancelBatch: "batches.cancel",
  deleteBatch: "batches.delete",
  getBatchResults: "batches.results",
  createReviewRule: "reviews.createRule",
  listReviewRules: "reviews.listRules",
  getReviewRule: "reviews.retrieveRule",
  deleteReviewRule: "reviews.deleteRule",
  claimNextReview: "reviews.next",
  createReviewRuleEvaluation: "reviews.evaluate",
  listReviews: "reviews.list",
  labelReview: "reviews.label",
  skipReview: "reviews.skip",
} as const satisfies Partial<Record<OperationName, `${string}.${string}`>>;

/** Paths of routes that are not the SDK's (the browser console's, session based). */
export const CONSOLE_PATH_PREFIX = "/v1/console/";
