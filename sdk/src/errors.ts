/**
 * The error classes of the API (spec: Errors → "Types, statuses and codes"). A `type` is one to one with an
 * HTTP status; codes may be added within v1, so callers act on `type` for a code they do not know.
 */
export const ERROR_TYPE_STATUS = {
  invalid_request: 400,
  authentication: 401,
  insufficient_balance: 402,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

/** A class of error the API reports. */
export type ErrorType = keyof typeof ERROR_TYPE_STATUS;

/** What the SDK reports when no answer came back (network failure, timeout, an answer that is not the API's). */
export type ClientErrorType = "connection" | "timeout" | "invalid_response";

/** The codes of v1 as the SDK knows them, by type. New codes may appear: see `SvcError.type`. */
export const KNOWN_CODES = {
  invalid_request: ["invalid_json", "duplicate_key", "unsupported_media_type", "invalid_header"],
  authentication: [
    "missing_api_key",
    "invalid_api_key",
    "revoked_api_key",
    "expired_api_key",
    "invalid_session",
    "invalid_code",
    "code_attempts_exceeded",
    "invalid_idp_token",
    "idp_email_unverified",
  ],
  insufficient_balance: ["insufficient_balance"],
  permission: ["insufficient_scope", "account_suspended", "csrf_failed"],
  not_found: ["model_not_found", "model_retired", "route_not_found", "key_not_found"],
  method_not_allowed: ["method_not_allowed"],
  conflict: ["idempotency_key_reused", "idempotency_in_progress", "plan_sold_out"],
  too_large: ["body_too_large", "state_too_long", "question_too_long", "request_too_long"],
  validation: [
    "unknown_field",
    "missing_field",
    "invalid_type",
    "invalid_value",
    "field_not_allowed",
    "invalid_question_id",
    "too_many_questions",
    "too_many_options",
    "invalid_levels",
    "invalid_min_confidence",
    "duplicate_label",
    "state_path_not_found",
    "state_not_json",
    "top_up_limit_exceeded",
  ],
  rate_limited: [
    "requests_per_minute",
    "tokens_per_minute",
    "concurrency",
    "test_daily_quota",
    "email_codes_per_hour",
    "sign_ins_per_hour",
  ],
  internal: ["internal_error"],
  unavailable: ["no_capacity", "upstream_unavailable", "billing_unavailable", "maintenance"],
} as const satisfies Record<ErrorType, readonly string[]>;

/** A code the SDK knows. */
export type KnownErrorCode = (typeof KNOWN_CODES)[ErrorType][number];

/** Any code: a known one, or one added later within v1 (handled by its `type`). */
export type ErrorCode = KnownErrorCode | (string & {});

/** The fields of the API's error envelope, plus what the SDK adds. */
export interface SvcErrorFields {
  type: ErrorType | ClientErrorType;
  code: ErrorCode;
  message: string;
  /** HTTP status; 0 when no answer came back. */
  status: number;
  /** The field, query or header that caused it (a JSON pointer for `duplicate_key`). */
  param?: string;
  /** The `x-request-id` of the answer; absent when no answer came back. */
  request_id?: string;
  /** `retry-after` in seconds, when the answer carried it. */
  retry_after?: number;
  /** 402 only: the balance when the request arrived. */
  balance_micro_cents?: number;
  /** 402 only: what the request would have cost. */
  required_micro_cents?: number;
  /** How many attempts were made before this error was given up on. */
  attempts?: number;
}

/** An error of the API (or of the way to it) as a typed value; `type` is what to act on. */
export class SvcError extends Error implements SvcErrorFields {
  readonly type: ErrorType | ClientErrorType;
  readonly code: ErrorCode;
  readonly status: number;
  readonly param?: string;
  readonly request_id?: string;
  readonly retry_after?: number;
  readonly balance_micro_cents?: number;
  readonly required_micro_cents?: number;
  readonly attempts?: number;

  constructor(fields: SvcErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options);
    this.name = "SvcError";
    this.type = fields.type;
    this.code = fields.code;
    this.status = fields.status;
    const { param, request_id, retry_after, balance_micro_cents, required_micro_cents, attempts } = fields;
    Object.assign(
      this,
      dropUndefined({ param, request_id, retry_after, balance_micro_cents, required_micro_cents, attempts }),
    );
  }

  /** True when `code` is one the SDK knows (else act on `type`). */
  get known(): boolean {
    return isKnownCode(this.code);
  }

  /** The same error after `attempts` tries. */
  withAttempts(attempts: number): SvcError {
    return new SvcError({ ...this.fields(), attempts }, { cause: this.cause });
  }

  /** The plain fields (for logs and JSON). */
  fields(): SvcErrorFields {
    const { type, code, message, status, param, request_id, retry_after } = this;
    const { balance_micro_cents, required_micro_cents, attempts } = this;
    return dropUndefined({
      type,
      code,
      message,
      status,
      param,
      request_id,
      retry_after,
      balance_micro_cents,
      required_micro_cents,
      attempts,
    });
  }

  override toString(): string {
    return `SvcError ${this.status} ${this.type}/${this.code}: ${this.message}`;
  }
}

const ALL_KNOWN: ReadonlySet<string> = new Set(Object.values(KNOWN_CODES).flat());

/** True for a code the SDK knows. */
export function isKnownCode(code: string): code is KnownErrorCode {
  return ALL_KNOWN.has(code);
}

/** The type the spec gives a status (one to one), or undefined for a status the API does not answer with. */
export function typeOfStatus(status: number): ErrorType | undefined {
  for (const [type, s] of Object.entries(ERROR_TYPE_STATUS)) if (s === status) return type as ErrorType;
  return undefined;
}

/** True when `err` is an SvcError, optionally of one type. */
export function isSvcError(err: unknown, type?: SvcError["type"]): err is SvcError {
  return err instanceof SvcError && (type === undefined || err.type === type);
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
