/**
 * The one catalogue of error codes (spec: Errors → "Types, statuses and codes" and "When each code is
 * returned"). It drives the runtime (workers/errors.ts), the OpenAPI document and the tests.
 */
export type ErrorType =
  | "invalid_request"
  | "authentication"
  | "insufficient_balance"
  | "permission"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "validation"
  | "rate_limited"
  | "internal"
  | "unavailable";

/** When a caller may retry: never, after a top-up, after `retry-after`, or with the same idempotency key. */
export type RetryRule = "no" | "after_top_up" | "after_retry_after" | "same_idempotency_key";

export interface ErrorSpec {
  readonly type: ErrorType;
  readonly status: number;
  readonly retry: RetryRule;
  readonly description: string;
  /** `retry-after` in seconds when the raiser gives none (codes whose wait is computed have none). */
  readonly retryAfter?: number;
}

const e = (
  type: ErrorType,
  status: number,
  retry: RetryRule,
  description: string,
  retryAfter?: number,
): ErrorSpec =>
  retryAfter === undefined
    ? { type, status, retry, description }
    : { type, status, retry, description, retryAfter };

/**
 * EXTENSIONS: codes added within v1 under an existing type (spec "Versioning", rule 2). The spec's code table
 * does not list them; this is the one place they are kept (the catalogue test allows exactly these beyond
 * the spec). Clients act on `type`.
 */
export const EXTENSION_ERRORS = {
  evaluations_in_progress: e(
    "rate_limited",
    429,
    "after_retry_after",
    "The account already has 5 evaluations queued, running or paused; one must finish first.",
    60,
  ),
  evaluation_storage_full: e(
    "conflict",
    409,
    "no",
    "The account's stored evaluations would pass 64 MiB; delete some or wait for them to expire.",
  ),
  live_key_not_allowed: e("permission", 403, "no", "Evaluations run on test keys only; a live key was sent."),
  evaluation_not_found: e("not_found", 404, "no", "No evaluation with that id in the account."),
  calibration_not_found: e("not_found", 404, "no", "No calibration with that id in the account."),
  question_not_found: e("not_found", 404, "no", "No question with that id asked by the account."),
  evaluation_not_done: e(
    "conflict",
    409,
    "no",
    "The evaluation is not `done`: a calibration is fitted on a finished run's answers.",
  ),
  calibration_limit_reached: e(
    "conflict",
    409,
    "no",
    "The account has 1,000 active calibrations; delete one before creating another.",
  ),
  batch_not_found: e("not_found", 404, "no", "No batch with that id in the account."),
  batches_in_progress: e(
    "rate_limited",
    429,
    "after_retry_after",
    "The account already has 3 batches queued, running or paused; one must finish first.",
    60,
  ),
  batch_storage_full: e(
    "conflict",
    409,
    "no",
    "The account's kept batch uploads would pass 1 GiB; delete finished batches or wait for their results to expire.",
  ),
  batch_too_many_lines: e("too_large", 413, "no", "A batch holds at most 100,000 lines."),
  batch_not_finished: e(
    "conflict",
    409,
    "no",
    "The batch is queued, running or paused: cancel it first, then delete it.",
  ),
  duplicate_custom_id: e("validation", 422, "no", "Two lines of the batch have the same `custom_id`."),
  webhook_endpoint_not_found: e("not_found", 404, "no", "The account has no webhook endpoint."),
  evaluation_outdated: e(
    "validation",
    422,
    "no",
    "The evaluation was scored before answers kept their unrounded distributions: run its items again.",
  ),
  too_few_labels: e(
    "validation",
    422,
    "no",
    "Too few labelled items for the question: a check needs 30 of each answer, a pick or rate 50 items.",
  ),
  calibration_no_gain: e(
    "validation",
    422,
    "no",
    "The cross-validated NLL of the fitted map is not better than the version's own; nothing was applied.",
  ),
  calibration_not_fitted: e(
    "conflict",
    409,
    "no",
    "The calibration is still fitting, or its fit failed: only a fitted calibration can be applied.",
  ),
  review_rule_not_found: e(
    "not_found",
    404,
    "no",
    "No review rule with that id in the account (of the caller's mode).",
  ),
  review_not_found: e(
    "not_found",
    404,
    "no",
    "No review with that id in the account (of the caller's mode).",
  ),
  review_rule_limit_reached: e(
    "conflict",
    409,
    "no",
    "The account has 100 review rules; delete one before creating another.",
  ),
  review_already_reviewed: e(
    "conflict",
    409,
    "no",
    "The review was already labelled or skipped (by this or another reviewer); take the next one.",
  ),
  checkout_renewals_exceeded: e(
    "conflict",
    409,
    "after_retry_after",
    "The plan's checkout was reopened the most times one seat hold allows; pay the open one or wait until it expires (`retry-after`).",
  ),
  checkouts_per_hour: e(
    "rate_limited",
    429,
    "after_retry_after",
    "Too many plan checkouts opened by the account in the last hour.",
  ),
  sign_in_tries_per_network: e(
    "rate_limited",
    429,
    "after_retry_after",
    "Too many sign-in code tries from one client network; each further try waits twice as long.",
  ),
  sign_in_emails_per_hour: e(
    "rate_limited",
    429,
    "after_retry_after",
    "The service's hourly budget of sign-in e-mails is used up.",
  ),
} as const satisfies Record<string, ErrorSpec>;

export const ERRORS = {
  invalid_json: e(
    "invalid_request",
    400,
    "no",
    "Body empty, not UTF-8 or not JSON, including a lone surrogate escape.",
  ),
  duplicate_key: e(
    "invalid_request",
    400,
    "no",
    "An object in the body repeats a key; `param` is the JSON pointer.",
  ),
  unsupported_media_type: e(
    "invalid_request",
    400,
    "no",
    "A request with a body lacks content type `application/json`.",
  ),
  invalid_header: e("invalid_request", 400, "no", "`idempotency-key` or `x-client-request-id` is malformed."),

  missing_api_key: e("authentication", 401, "no", "No `authorization` header."),
  invalid_api_key: e("authentication", 401, "no", "Key is not a valid existing key."),
  revoked_api_key: e("authentication", 401, "no", "Key revoked."),
  expired_api_key: e("authentication", 401, "no", "Key past its expiry."),
  invalid_session: e("authentication", 401, "no", "Missing or invalid console session."),
  invalid_code: e("authentication", 401, "no", "Wrong or expired sign-in code."),
  code_attempts_exceeded: e("authentication", 401, "no", "Five wrong tries made the code unusable."),
  invalid_idp_token: e(
    "authentication",
    401,
    "no",
    "Identity-provider token malformed, unsigned, wrong or expired.",
  ),
  idp_email_unverified: e("authentication", 401, "no", "The identity provider has not verified the email."),

  insufficient_balance: e("insufficient_balance", 402, "after_top_up", "Balance does not cover the charge."),

  insufficient_scope: e("permission", 403, "no", "Key lacks the route's scope."),
  account_suspended: e("permission", 403, "no", "The account is suspended."),
  csrf_failed: e("permission", 403, "no", "Missing or wrong `x-svc-csrf`."),

  model_not_found: e("not_found", 404, "no", "No model has that name."),
  model_retired: e("not_found", 404, "no", "That exact version is retired."),
  route_not_found: e("not_found", 404, "no", "No such route."),
  key_not_found: e("not_found", 404, "no", "No key with that id in the account."),

  method_not_allowed: e("method_not_allowed", 405, "no", "The path exists but not with this method."),

  idempotency_key_reused: e(
    "conflict",
    409,
    "no",
    "Idempotency key used within 24 hours with a different body.",
  ),
  idempotency_in_progress: e(
    "conflict",
    409,
    "after_retry_after",
    "First request with that key still running.",
    1,
  ),
  plan_sold_out: e("conflict", 409, "no", "The plan is not available."),

  body_too_large: e("too_large", 413, "no", "Body over 256 KiB."),
  state_too_long: e("too_large", 413, "no", "Rendered state over 16,384 tokens."),
  question_too_long: e("too_large", 413, "no", "A rendered question over 4,096 tokens."),
  request_too_long: e("too_large", 413, "no", "Over 16,384 billable tokens, or all questions over 4,096."),

  unknown_field: e("validation", 422, "no", "A field the API does not define."),
  missing_field: e("validation", 422, "no", "A required field or query parameter is absent."),
  invalid_type: e("validation", 422, "no", "A value has the wrong JSON type."),
  invalid_value: e("validation", 422, "no", "Right type, disallowed value."),
  field_not_allowed: e("validation", 422, "no", "`options` outside a pick or `levels` outside a rate."),
  invalid_question_id: e("validation", 422, "no", "Question id does not match its pattern."),
  too_many_questions: e("validation", 422, "no", "More than 32 questions."),
  too_many_options: e("validation", 422, "no", "A pick has more than 255 options."),
  invalid_levels: e(
    "validation",
    422,
    "no",
    "`levels` is not 2 to 10 unique strings of 1 to 200 characters.",
  ),
  invalid_min_confidence: e("validation", 422, "no", "`min_confidence` is not a number from 0 to 1."),
  duplicate_label: e("validation", 422, "no", "Two pick labels equal after NFC and lower-casing."),
  state_path_not_found: e("validation", 422, "no", "A `{{path}}` reference names a field the state lacks."),
  state_not_json: e("validation", 422, "no", "A `{{path}}` reference is used while the state is a string."),
  top_up_limit_exceeded: e("validation", 422, "no", "A new account would pass EUR 500 in its first 30 days."),

  requests_per_minute: e("rate_limited", 429, "after_retry_after", "Requests-per-minute limit exhausted."),
  tokens_per_minute: e("rate_limited", 429, "after_retry_after", "Tokens-per-minute limit exhausted."),
  concurrency: e("rate_limited", 429, "after_retry_after", "Too many requests in flight.", 1),
  test_daily_quota: e("rate_limited", 429, "after_retry_after", "Free test tokens for the UTC day used up."),
  email_codes_per_hour: e("rate_limited", 429, "after_retry_after", "Too many sign-in codes asked."),
  sign_ins_per_hour: e("rate_limited", 429, "after_retry_after", "Too many identity-provider sign-ins."),

  internal_error: e("internal", 500, "same_idempotency_key", "Server fault; any charge refunded."),

  no_capacity: e("unavailable", 503, "after_retry_after", "No GPU capacity and no allowed fallback.", 2),
  upstream_unavailable: e("unavailable", 503, "after_retry_after", "GPU path and fallback both failed.", 5),
  billing_unavailable: e(
    "unavailable",
    503,
    "after_retry_after",
    "Balance or idempotency store unreachable.",
    5,
  ),
  maintenance: e(
    "unavailable",
    503,
    "after_retry_after",
    "A dependency is in maintenance; nothing changed.",
    5,
  ),
  ...EXTENSION_ERRORS,
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** Schema-rule precedence of the spec ("Order of checks"): the first code in this list wins. */
export const VALIDATION_PRECEDENCE = [
  "unknown_field",
  "field_not_allowed",
  "missing_field",
  "invalid_question_id",
  "too_many_questions",
  "too_many_options",
  "invalid_levels",
  "invalid_min_confidence",
  "invalid_value",
  "invalid_type",
] as const satisfies readonly ErrorCode[];
