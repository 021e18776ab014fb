import type { SvcError } from "./errors.js";

/** How the client retries (spec: Errors → "Retry and refund rules"). */
export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retries off). */
  maxRetries?: number;
  /** Backoff when the answer carries no `retry-after`: the first wait in ms, doubled each retry (default 500). */
  baseDelayMs?: number;
  /** Upper bound of one computed backoff in ms (default 8,000). */
  maxDelayMs?: number;
  /**
   * Longest `retry-after` in seconds the client waits for itself (default 60): a longer one (the sign-in
   * limits' up to 3,600 s) is handed to the caller as the error.
   */
  maxRetryAfterSeconds?: number;
}

/** The defaults of `RetryOptions`. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterSeconds: 60,
};

/**
 * Whether an error may be retried automatically, by its `type` (so a code added within v1 is handled too):
 * 429 except `test_daily_quota`, 503, 409 `idempotency_in_progress`, 500 (the same idempotency key is sent
 * again), and failures with no answer (connection, timeout); never any other 4xx. A call that is not
 * `idempotent` only after 429 and 503, where the API did nothing.
 */
export function isRetryable(err: SvcError, idempotent = true): boolean {
  if (!idempotent && err.type !== "rate_limited" && err.type !== "unavailable") return false;
  switch (err.type) {
    case "rate_limited":
      return err.code !== "test_daily_quota";
    case "unavailable":
    case "internal":
    case "connection":
    case "timeout":
      return true;
    case "conflict":
      return err.code === "idempotency_in_progress";
    default:
      return false;
  }
}

/** True for 409 `idempotency_in_progress`: the first attempt with this key is still being answered. */
export function isInProgress(err: SvcError): boolean {
  return err.type === "conflict" && err.code === "idempotency_in_progress";
}

/**
 * Milliseconds to wait before asking again after 409 `idempotency_in_progress` (its `retry-after`, 1 s
 * without one), or undefined once `waitedMs` plus that wait would pass `budgetMs` (the call's own attempt
 * bound) or retries are off. These waits do not use up `maxRetries`: a long decide that outlived an
 * attempt's timeout is still being computed, and asking again after it ends replays it uncharged.
 */
export function inProgressDelay(
  err: SvcError,
  waitedMs: number,
  budgetMs: number,
  options: Required<RetryOptions>,
): number | undefined {
  if (options.maxRetries === 0 || (err.retry_after ?? 0) > options.maxRetryAfterSeconds) return undefined;
  const delay = (err.retry_after ?? 1) * 1000;
  return waitedMs + delay > budgetMs ? undefined : delay;
}

/**
 * Milliseconds to wait before retry number `retry` (1-based), or undefined when the error must not be
 * retried (not retryable, retries used up, or a `retry-after` longer than the client waits for).
 */
export function retryDelay(
  err: SvcError,
  retry: number,
  options: Required<RetryOptions>,
  idempotent = true,
): number | undefined {
  if (retry > options.maxRetries || !isRetryable(err, idempotent)) return undefined;
  if (err.retry_after !== undefined) {
    return err.retry_after > options.maxRetryAfterSeconds ? undefined : err.retry_after * 1000;
  }
  const exp = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return exp / 2 + Math.random() * (exp / 2); // "equal jitter": never less than half the backoff
}
