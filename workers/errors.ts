import { ERRORS, type ErrorCode, type ErrorSpec } from "../schema/errors";

export interface ApiErrorOptions {
  /** Dotted path into the body, a query or header name, or (for `duplicate_key`) a JSON pointer. */
  param?: string;
  message?: string;
  /** Seconds; required on 429, 503 and 409 `idempotency_in_progress`. */
  retryAfter?: number;
  /** Extra envelope fields (402: `balance_micro_cents`, `required_micro_cents`). */
  extra?: Record<string, number | string>;
  /** Extra response headers (405: `allow`). */
  headers?: Record<string, string>;
}

/** A typed error that the app's one `onError` renders as the spec's envelope (status, type from the catalogue). */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly options: ApiErrorOptions;

  constructor(
    readonly code: ErrorCode,
    options: ApiErrorOptions = {},
  ) {
    const spec: ErrorSpec = ERRORS[code];
    super(options.message ?? spec.description);
    this.status = spec.status;
    this.type = spec.type;
    this.options = { ...options, retryAfter: options.retryAfter ?? spec.retryAfter };
  }
}

/** The error envelope body for a request id. */
export function errorBody(err: ApiError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { type: err.type, code: err.code, message: err.message };
  if (err.options.param !== undefined) body.param = err.options.param;
  body.request_id = requestId;
  Object.assign(body, err.options.extra);
  return { error: body };
}
