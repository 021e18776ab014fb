/** What the served check saw: the model and how long the whole wait took. */
export interface ServedCheck {
  model: string;
  ms: number;
}

/** Identifies the check in usage events (`x-client-request-id`, `user-agent`). */
export const SERVED_CHECK_CLIENT_REQUEST_ID = "svc-start-served-check";

const BODY = JSON.stringify({
  model: "svc-1",
  state: "npm start: is every piece answering?",
  questions: { ready: { type: "check", instructions: "Is the service ready?" } },
});

/**
 * The end-to-end readiness check of the local stack: `POST /v1/decide` through the edge with a test key
 * (free; test keys never fall back) until it is answered 200 by the GPU pool. 503s (the edge's pool still
 * backing off) and connection errors are retried until `deadline` (ms since epoch; one attempt at least);
 * any other answer fails at once. Throws with the last answer when the deadline passes.
 */
export async function waitForServedDecide(
  baseUrl: string,
  testKey: string,
  deadline: number,
): Promise<ServedCheck> {
  const t0 = Date.now();
  let last = "no attempt";
  do {
    const res = await fetch(`${baseUrl}/v1/decide`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${testKey}`,
        "content-type": "application/json",
        "user-agent": "svc-start/1",
        "x-client-request-id": SERVED_CHECK_CLIENT_REQUEST_ID,
      },
      body: BODY,
      signal: AbortSignal.timeout(Math.max(1_000, deadline - Date.now())),
    }).catch((error: unknown) => error as Error);
    if (res instanceof Error) {
      last = res.message;
    } else {
      const text = await res.text();
      const json = safeJson(text) as { served_by?: unknown; model?: unknown } | null;
      if (res.status === 200 && json?.served_by === "gpu" && typeof json.model === "string") {
        return { model: json.model, ms: Date.now() - t0 };
      }
      last = `${res.status} ${text.slice(0, 300)}`;
      if (res.status !== 503) throw new Error(`the served check POST /v1/decide answered ${last}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < deadline);
  throw new Error(`POST /v1/decide was not served by the GPU in time; last answer: ${last}`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
