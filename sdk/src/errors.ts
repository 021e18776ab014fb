import { ERRORS, type ErrorType } from "../../schema/errors.js";

export type { ErrorType };

/**
 * The error catalogue of v1 (spec: Errors → "Types, statuses and codes"), from the one table the API itself
 * is built from (`schema/errors.ts`). A `type` is one to one with an HTTP status; codes may be added within
 * v1, so callers act on `type` for a code they do not know.
 */
export type KnownErrorCode = keyof typeof ERRORS;

/** Status of each error type. */
export const ERROR_TYPE_STATUS = Object.fromEntries(
  Object.values(ERRORS).map((e) => [e.type, e.status]),
) as Readonly<Record<ErrorType, number>>;

/** The codes the SDK knows, by type. */
export const KNOWN_CODES = Object.fromEntries(
  Object.keys(ERROR_TYPE_STATUS).map((type) => [
    type,
    (Object.keys(ERRORS) as KnownErrorCode[]).filter((code) => ERRORS[code].type === type),
  ]),
) as Record<string, readonly KnownErrorCode[]> as Readonly<Record<ErrorType, readonly KnownErrorCode[]>>;

/** What the SDK reports when no answer came back (network failure, timeout, an answer that is not the API's). */
export type ClientErrorType = "connection" | "timeout" | "invalid_response";

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

/** True for a code the SDK knows. */
export function isKnownCode(code: string): code is KnownErrorCode {
  return Object.hasOwn(ERRORS, code);
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
