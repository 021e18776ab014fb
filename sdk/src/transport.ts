import { SvcError } from "./errors.js";
import { errorFromFailure, errorFromResponse, parseSuccess } from "./response.js";
import { DEFAULT_RETRY, inProgressDelay, isInProgress, type RetryOptions, retryDelay } from "./retry.js";
import { attemptTimeoutMs, DEFAULT_TIMEOUTS, type TimeoutOptions } from "./timeouts.js";

/** Settings of a client's transport. */
export interface TransportOptions extends RetryOptions, TimeoutOptions {
  /** The API's base address, e.g. `http://127.0.0.1:8787` for `npm start`. */
  baseUrl: string;
  /** An API key, `svc_live_…` or `svc_test_…` (not needed for the public routes). */
  apiKey?: string;
  /** The fetch to use (default the global one): Node ≥ 20, browsers and Workers all have it. */
  fetch?: typeof fetch;
  /** Headers sent on every request (e.g. a `user-agent` naming the calling app). */
  headers?: Record<string, string>;
  /** How to wait between attempts (tests pass a fake clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Per-call settings. */
export interface RequestOptions {
  /** `idempotency-key` (POST /v1/decide): sent on every attempt; the SDK makes one when none is given. */
  idempotencyKey?: string;
  /** `x-client-request-id`: your id for the call, echoed on the answer. */
  clientRequestId?: string;
  /** Stops the call (and its retries). */
  signal?: AbortSignal;
  /** Bound on one attempt of this call in ms, exactly (instead of the one grown from the body's size). */
  timeoutMs?: number;
  maxRetries?: number;
}

/** What came back besides the body. */
export interface ResponseMeta {
  status: number;
  /** `x-request-id` of the answer that was returned. */
  requestId: string | undefined;
  /** True on an idempotent replay (`idempotent-replayed: true`). */
  replayed: boolean;
  /** The `ratelimit` and `ratelimit-policy` headers as sent. */
  rateLimit: string | undefined;
  rateLimitPolicy: string | undefined;
  /** The idempotency key sent, if any. */
  idempotencyKey: string | undefined;
  /** Attempts made (1 without retries). */
  attempts: number;
}

/** A body with its meta. */
export interface ApiResponse<T> {
  data: T;
  meta: ResponseMeta;
}

/** A body sent as it is rather than as JSON (a batch's JSONL). */
export interface Upload {
  contentType: string;
  /** The body of one attempt (a fresh stream each time when the upload is `replayable`). */
  body: () => BodyInit;
  /** Its length in bytes, when known: the attempt's timeout grows with it (else it is `maxTimeoutMs`). */
  bytes?: number;
  /** False for a stream that can be read only once: the call is then sent once, never again. */
  replayable: boolean;
}

/** A 2xx answer whose body is read by the caller as it arrives. */
export interface StreamedBody {
  body: ReadableStream<Uint8Array>;
  /** Stops reading (the connection is closed). */
  cancel: (reason?: unknown) => void;
  /** Call once the body is read or abandoned: unhooks the caller's `signal`. */
  release: () => void;
}

/** One HTTP call as the client makes it. */
export interface Call {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as it is (instead of `body`). */
  upload?: Upload;
  /** `accept` when the answer is not JSON (errors still are). */
  accept?: string;
  /** Send the API key (false for the public routes). */
  auth: boolean;
  /** False: retried only after 429 and 503, where the API did nothing (a create without an idempotency key). */
  idempotent?: boolean;
}

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

/** The fetch-based transport: headers, one attempt with a timeout, and the retry loop of the spec's rules. */
export class Transport {
  private readonly retry: Required<RetryOptions>;
  private readonly timeouts: Required<TimeoutOptions>;

  constructor(private readonly options: TransportOptions) {
    this.retry = {
      maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries,
      baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULT_RETRY.maxRetryAfterSeconds,
    };
    this.timeouts = {
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUTS.timeoutMs,
      timeoutMsPerKiB: options.timeoutMsPerKiB ?? DEFAULT_TIMEOUTS.timeoutMsPerKiB,
      maxTimeoutMs: options.maxTimeoutMs ?? DEFAULT_TIMEOUTS.maxTimeoutMs,
    };
  }

  /**
   * Sends `call`, retrying by the spec's rules; resolves with the 2xx body or rejects with an SvcError. Each
   * attempt is bounded by the call's timeout (grown from the body's size); 409 `idempotency_in_progress` is
   * waited out for up to that bound again, without using up `maxRetries`.
   */
  send<T>(call: Call, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.run<T>(call, opts, false);
  }

  /**
   * `send`, but the 2xx body is handed over unread (retries happen only before an answer's body is read): the
   * attempt's timeout ends when its headers arrive, the caller's `signal` still stops the reading.
   */
  sendStreamed(call: Call, opts: RequestOptions = {}): Promise<ApiResponse<StreamedBody>> {
    return this.run<StreamedBody>(call, opts, true);
  }

  private async run<T>(call: Call, opts: RequestOptions, streamed: boolean): Promise<ApiResponse<T>> {
    const once = call.upload !== undefined && !call.upload.replayable;
    const maxRetries = once ? 0 : (opts.maxRetries ?? this.retry.maxRetries);
    const retry = { ...this.retry, maxRetries };
    const sleep = this.options.sleep ?? sleepFor;
    const json = call.body === undefined ? undefined : JSON.stringify(call.body);
    const bodyBytes = call.upload ? call.upload.bytes : json === undefined ? 0 : utf8Length(json);
    const timeoutMs =
      opts.timeoutMs ??
      (bodyBytes === undefined ? this.timeouts.maxTimeoutMs : attemptTimeoutMs(bodyBytes, this.timeouts));
    let retries = 0;
    let waitedInProgressMs = 0;
    for (let attempt = 1; ; attempt++) {
      const body = call.upload ? call.upload.body() : json;
      const result = await this.attempt<T>(call, body, timeoutMs, opts, attempt, streamed);
      if (!(result instanceof SvcError)) return result;
      if (opts.signal?.aborted) throw result.withAttempts(attempt);
      const inProgress = isInProgress(result);
      const delay = inProgress
        ? inProgressDelay(result, waitedInProgressMs, timeoutMs, retry)
        : retryDelay(result, ++retries, retry, call.idempotent !== false);
      if (delay === undefined) throw result.withAttempts(attempt);
      if (inProgress) waitedInProgressMs += delay;
      await sleep(delay, opts.signal);
    }
  }

  private async attempt<T>(
    call: Call,
    body: BodyInit | undefined,
    timeoutMs: number,
    opts: RequestOptions,
    attempts: number,
    streamed: boolean,
  ): Promise<ApiResponse<T> | SvcError> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort);
    const release = () => opts.signal?.removeEventListener("abort", onAbort);
    let handedOver = false;
    try {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const doFetch = this.options.fetch ?? fetch;
      const init: RequestInit & { duplex?: "half" } = {
        method: call.method,
        headers: this.headers(call, opts),
        body,
        signal: controller.signal,
      };
      // A stream sent as a request body must say so (fetch spec; Node's fetch rejects it otherwise).
      if (isReadableStream(body)) init.duplex = "half";
      const res = await doFetch(this.url(call), init);
      if (!res.ok) return errorFromResponse(res, await res.text());
      if (streamed) {
        const stream = res.body ?? new Blob([]).stream();
        const data: StreamedBody = { body: stream, cancel: (r) => controller.abort(r), release };
        handedOver = true;
        return { data: data as T, meta: meta(res, opts, attempts) };
      }
      const text = await res.text();
      return { data: parseSuccess<T>(res, text), meta: meta(res, opts, attempts) };
    } catch (cause) {
      if (cause instanceof SvcError) throw cause;
      if (opts.signal?.aborted) throw cause; // the caller stopped it: not retried
      return errorFromFailure(cause, timedOut);
    } finally {
      clearTimeout(timer);
      if (!handedOver) release();
    }
  }

  private url(call: Call): string {
    const url = new URL(call.path, this.options.baseUrl.replace(/\/*$/, "/"));
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  }

  private headers(call: Call, opts: RequestOptions): Record<string, string> {
    const h: Record<string, string> = { accept: call.accept ?? "application/json", ...this.options.headers };
    if (call.auth && this.options.apiKey) h.authorization = `Bearer ${this.options.apiKey}`;
    if (call.upload) h["content-type"] = call.upload.contentType;
    else if (call.body !== undefined) h["content-type"] = "application/json";
    if (opts.idempotencyKey !== undefined) h["idempotency-key"] = opts.idempotencyKey;
    if (opts.clientRequestId !== undefined) h["x-client-request-id"] = opts.clientRequestId;
    return h;
  }
}

function meta(res: Response, opts: RequestOptions, attempts: number): ResponseMeta {
  const header = (name: string) => res.headers.get(name) ?? undefined;
  return {
    status: res.status,
    requestId: header("x-request-id"),
    replayed: res.headers.get("idempotent-replayed") === "true",
    rateLimit: header("ratelimit"),
    rateLimitPolicy: header("ratelimit-policy"),
    idempotencyKey: opts.idempotencyKey,
    attempts,
  };
}

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

function isReadableStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
}

/** A fresh idempotency key: printable ASCII, as the spec asks. */
export function newIdempotencyKey(): string {
  return `sdk_${crypto.randomUUID()}`;
}
