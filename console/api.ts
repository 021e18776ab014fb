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
  /** A file sent as it is (its bytes), with this content type, instead of a JSON body. */
  file?: { data: Blob; type: string };
  idempotencyKey?: string;
  /** A 401 goes to the sign-in page unless false. */
  redirectOn401?: boolean;
}

/** Calls `path` with `method`; resolves the JSON answer, throws ApiError with the spec's code. */
export async function api<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (opts.file) headers["content-type"] = opts.file.type;
  if (method !== "GET" && csrf) headers["x-svc-csrf"] = csrf;
  if (opts.idempotencyKey) headers["idempotency-key"] = opts.idempotencyKey;
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: opts.file ? opts.file.data : opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) throw failure(res.status, json, opts);
  return json as T;
}

/** The ApiError of a failed answer (a 401 for an ended session goes to sign-in unless asked not to). */
function failure(status: number, json: unknown, opts: CallOptions): ApiError {
  const err = (json as { error?: { code?: string; message?: string; param?: string } } | null)?.error;
  if (status === 401 && opts.redirectOn401 !== false && err?.code === "invalid_session") {
    location.assign(SIGN_IN);
  }
  return new ApiError(status, err?.code ?? "error", err?.message ?? `HTTP ${status}`, err?.param);
}

/** GETs `path` as a file (with the session); throws ApiError like {@link api} when it fails. */
export async function download(path: string): Promise<Blob> {
  const res = await fetch(path, { credentials: "same-origin" });
  if (res.ok) return res.blob();
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  throw failure(res.status, json, {});
}

/** Hands a file to the browser to save as `name`. */
export function saveAs(data: Blob, name: string): void {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(data);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
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
