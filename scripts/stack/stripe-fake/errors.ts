/** An error the fake answers with Stripe's error envelope. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Stripe's `{error: {type, message, code?, param?}}` for what a handler threw (anything else is a 400). */
export function errorReply(e: unknown): { status: number; body: unknown } {
  const err = e instanceof HttpError ? e : new HttpError(400, e instanceof Error ? e.message : String(e));
  const type =
    err.status === 401 ? "authentication_error" : err.status >= 500 ? "api_error" : "invalid_request_error";
  return {
    status: err.status,
    body: {
      error: {
        type,
        message: err.message,
        ...(err.code ? { code: err.code } : {}),
        ...(err.param ? { param: err.param } : {}),
      },
    },
  };
}
