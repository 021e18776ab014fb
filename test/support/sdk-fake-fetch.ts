// A scripted fetch for the SDK's unit tests: answers in order, records every request it was given.
import { SvcClient } from "../../sdk/src/index";

/**
 * One scripted answer: an error envelope, a JSON body, a body streamed in the given chunks (then left open
 * when `stall`), raw text, a thrown network error, or none until aborted.
 */
export type Scripted =
  | { error: string; type: string; status: number; retryAfter?: number; param?: string }
  | { json: unknown; status?: number; headers?: Record<string, string> }
  | { chunks: Array<string | Uint8Array>; stall?: boolean; headers?: Record<string, string> }
  | { text: string; status: number }
  | { throws: Error }
  | { hangs: true };

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as text, whatever it was sent as (a stream is read to its end). */
  body: string | undefined;
  /** What the body was sent as: `string`, `Blob`, `ReadableStream`, or undefined. */
  bodyKind: string | undefined;
  duplex: string | undefined;
  signal: AbortSignal | undefined;
}

async function bodyText(body: BodyInit | null | undefined): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  return new Response(body).text();
}

const kindOf = (body: unknown) =>
  body === undefined || body === null
    ? undefined
    : typeof body === "string"
      ? "string"
      : body instanceof Blob
        ? "Blob"
        : body instanceof ReadableStream
          ? "ReadableStream"
          : typeof body;

/** A body delivered chunk by chunk (a pull each), left open after the last one when `stall`. */
function chunkedBody(chunks: Array<string | Uint8Array>, stall: boolean, signal?: AbortSignal | null) {
  const queue = chunks.map((c) => (typeof c === "string" ? new TextEncoder().encode(c) : c));
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) return controller.enqueue(next);
      if (!stall) return controller.close();
      return new Promise<void>((resolve) =>
        signal?.addEventListener("abort", () => {
          controller.error(new DOMException("aborted", "AbortError"));
          resolve();
        }),
      );
    },
  });
}

/** The envelope the API sends for `code` (request id fixed per call). */
function errorResponse(s: Extract<Scripted, { error: string }>, n: number): Response {
  const request_id = `req_${String(n).padStart(26, "0")}`;
  const headers: Record<string, string> = { "content-type": "application/json", "x-request-id": request_id };
  if (s.retryAfter !== undefined) headers["retry-after"] = String(s.retryAfter);
  const error = { type: s.type, code: s.error, message: `scripted ${s.error}`, param: s.param, request_id };
  return new Response(JSON.stringify({ error }), { status: s.status, headers });
}

/** A client on a scripted fetch with a recording sleep; `requests` and `sleeps` fill as it runs. */
export function scriptedClient(
  script: Scripted[],
  options: { maxRetries?: number; checkLimits?: boolean; timeoutMs?: number; timeoutMsPerKiB?: number } = {},
) {
  const requests: Recorded[] = [];
  const sleeps: number[] = [];
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const n = requests.length;
    const recorded: Recorded = {
      method: init.method ?? "GET",
      url: String(input),
      headers: { ...(init.headers as Record<string, string>) },
      body: undefined,
      bodyKind: kindOf(init.body),
      duplex: (init as { duplex?: string }).duplex,
      signal: init.signal ?? undefined,
    };
    requests.push(recorded);
    recorded.body = await bodyText(init.body);
    const s = script[Math.min(n, script.length - 1)];
    if (!s) throw new Error("empty script");
    if ("throws" in s) throw s.throws;
    if ("hangs" in s)
      return new Promise<Response>((_, reject) =>
        init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))),
      );
    if ("error" in s) return errorResponse(s, n);
    if ("text" in s) return new Response(s.text, { status: s.status });
    if ("chunks" in s)
      return new Response(chunkedBody(s.chunks, s.stall ?? false, init.signal), {
        status: 200,
        headers: { "content-type": "application/jsonl", "x-request-id": `req_${n}`, ...s.headers },
      });
    return new Response(JSON.stringify(s.json), {
      status: s.status ?? 200,
      headers: { "content-type": "application/json", "x-request-id": `req_${n}`, ...s.headers },
    });
  };
  const client = new SvcClient({
    baseUrl: "http://api.test",
    apiKey: "svc_test_key",
    fetch: fetch as typeof globalThis.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { client, requests, sleeps };
}
