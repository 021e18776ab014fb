import { type ErrorType, SvcError, typeOfStatus } from "./errors.js";

/** Whole seconds of a `retry-after` header (delay-seconds form), or undefined. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/**
 * The SvcError of a non-2xx answer: the envelope's fields when the body is one, else a value built from the
 * status (an answer from something in front of the API: its type follows from the status when it has one).
 */
export function errorFromResponse(res: Response, text: string): SvcError {
  const requestId = res.headers.get("x-request-id") ?? undefined;
  const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
  let envelope: Record<string, unknown> | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "object" && body.error !== null)
      envelope = body.error as Record<string, unknown>;
  } catch {
    envelope = undefined;
  }
  const statusType = typeOfStatus(res.status);
  const type = str(envelope?.type) ?? statusType ?? (res.status >= 500 ? "unavailable" : "invalid_response");
  return new SvcError({
    type: type as ErrorType,
    code: str(envelope?.code) ?? `http_${res.status}`,
    message: str(envelope?.message) ?? `HTTP ${res.status} ${res.statusText}`.trim(),
    status: res.status,
    param: str(envelope?.param),
    request_id: str(envelope?.request_id) ?? requestId,
    retry_after: retryAfter,
    balance_micro_cents: num(envelope?.balance_micro_cents),
    required_micro_cents: num(envelope?.required_micro_cents),
  });
}

/** The SvcError of a request that got no answer: a timeout or a network failure. */
export function errorFromFailure(cause: unknown, timedOut: boolean): SvcError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new SvcError(
    {
      type: timedOut ? "timeout" : "connection",
      code: timedOut ? "timeout" : "connection_failed",
      message: timedOut ? "The request timed out." : `No answer: ${message}`,
      status: 0,
    },
    { cause },
  );
}

/** The JSON body of a 2xx answer; an answer that is not JSON is an `invalid_response` error. */
export function parseSuccess<T>(res: Response, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new SvcError(
      {
        type: "invalid_response",
        code: "invalid_json_response",
        message: `HTTP ${res.status} with a body that is not JSON.`,
        status: res.status,
        request_id: res.headers.get("x-request-id") ?? undefined,
      },
      { cause },
    );
  }
}
