/**
 * The console's calls to the API: same origin, the session in its HttpOnly cookie (never readable here), the
 * CSRF token kept in memory only (fetched again from GET /v1/console/session on each page load) and sent as
 * `x-svc-csrf` on every change.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export interface Session {
  account_id: string;
  email: string | null;
  csrf_token: string;
  expires_at: string;
}

let csrf: string | null = null;

/** Remembers the session's CSRF token for this page's lifetime. */
export function useCsrf(token: string | null): void {
  csrf = token;
}

/** Where a signed-out visitor is sent. */
export const SIGN_IN = "/console/sign-in";

export interface CallOptions {
  body?: unknown;
  idempotencyKey?: string;
  /** A 401 goes to the sign-in page unless false. */
  redirectOn401?: boolean;
}

/** Calls `path` with `method`; resolves the JSON answer, throws ApiError with the spec's code. */
export async function api<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrf) headers["x-svc-csrf"] = csrf;
  if (opts.idempotencyKey) headers["idempotency-key"] = opts.idempotencyKey;
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; param?: string } } | null)?.error;
    if (res.status === 401 && opts.redirectOn401 !== false && err?.code === "invalid_session") {
      location.assign(SIGN_IN);
    }
    throw new ApiError(res.status, err?.code ?? "error", err?.message ?? `HTTP ${res.status}`, err?.param);
  }
  return json as T;
}

/** The signed-in session (its CSRF token remembered), or null when signed out. */
export async function loadSession(): Promise<Session | null> {
  try {
    const s = await api<Session>("GET", "/v1/console/session", { redirectOn401: false });
    useCsrf(s.csrf_token);
    return s;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

/** A human sentence for a failed call. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return `${e.message}${e.param ? ` (${e.param})` : ""} [${e.code}]`;
  return e instanceof Error ? e.message : String(e);
}
