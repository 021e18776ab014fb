import { describe, expect, it, vi } from "vitest";
import {
  attemptTimeoutMs,
  DEFAULT_TIMEOUTS,
  isSvcError,
  SvcClient,
  type SvcError,
} from "../../../sdk/src/index";
import { type Scripted, scriptedClient } from "../../support/sdk-fake-fetch";

const DECISION = {
  id: "req_01JD0000000000000000000000",
  object: "decision",
  answers: { ok: { type: "check", probability: 0.9, confidence: 0.8, abstained: false } },
};
const ok: Scripted = { json: DECISION };
const body = { state: "s", questions: { ok: { type: "check", instructions: "ok?" } } } as const;

async function failure(p: Promise<unknown>): Promise<SvcError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isSvcError(err)) throw new Error(`expected an SvcError, got ${String(err)}`);
  return err;
}

describe("SDK retries: 429 (not test_daily_quota), 503, 409 idempotency_in_progress after retry-after; 500 with the same key", () => {
  it.each<[string, Scripted]>([
    [
      "429 requests_per_minute",
      { error: "requests_per_minute", type: "rate_limited", status: 429, retryAfter: 3 },
    ],
    [
      "429 tokens_per_minute",
      { error: "tokens_per_minute", type: "rate_limited", status: 429, retryAfter: 7 },
    ],
    ["429 concurrency", { error: "concurrency", type: "rate_limited", status: 429, retryAfter: 1 }],
    ["503 no_capacity", { error: "no_capacity", type: "unavailable", status: 503, retryAfter: 2 }],
    [
      "503 billing_unavailable",
      { error: "billing_unavailable", type: "unavailable", status: 503, retryAfter: 5 },
    ],
    [
      "409 idempotency_in_progress",
      { error: "idempotency_in_progress", type: "conflict", status: 409, retryAfter: 1 },
    ],
    [
      "429 with a code newer than the SDK (by type)",
      { error: "gpus_per_hour", type: "rate_limited", status: 429, retryAfter: 4 },
    ],
  ])("%s: waits retry-after seconds, then succeeds", async (_, first) => {
    const { client, requests, sleeps } = scriptedClient([first, ok]);
    const d = await client.decide(body);
    expect(d.answers.ok.probability).toBe(0.9);
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([(first as { retryAfter: number }).retryAfter * 1000]);
  });

  it("500: retried with the same idempotency key, generated when the caller gave none", async () => {
    const { client, requests, sleeps } = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      { error: "internal_error", type: "internal", status: 500 },
      ok,
    ]);
    await client.decide(body);
    const keys = requests.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(new Set(keys).size).toBe(1);
    expect(sleeps).toHaveLength(2); // no retry-after on a 500: exponential backoff with jitter
    expect(sleeps[0]).toBeGreaterThanOrEqual(250);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
  });

  it("the caller's idempotency key is sent on every attempt; two calls without one get different keys", async () => {
    const { client, requests } = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      ok,
    ]);
    await client.decide(body, { idempotencyKey: "order-42" });
    expect(requests.map((r) => r.headers["idempotency-key"])).toEqual(["order-42", "order-42"]);
    const second = scriptedClient([ok, ok]);
    await second.client.decide(body);
    await second.client.decide(body);
    const [a, b] = second.requests.map((r) => r.headers["idempotency-key"]);
    expect(a).not.toBe(b);
  });

  it("a bounded number of times (configurable): the last error is returned with its attempts", async () => {
    const busy: Scripted = { error: "no_capacity", type: "unavailable", status: 503, retryAfter: 2 };
    const dflt = scriptedClient([busy]);
    const e = await failure(dflt.client.decide(body));
    expect([e.code, e.attempts, dflt.requests.length]).toEqual(["no_capacity", 3, 3]);
    const five = scriptedClient([busy], { maxRetries: 5 });
    expect((await failure(five.client.decide(body))).attempts).toBe(6);
    const none = scriptedClient([busy]);
    expect((await failure(none.client.decide(body, { maxRetries: 0 }))).attempts).toBe(1);
  });

  it("network failures are retried (the idempotency key makes it safe)", async () => {
    const { client, requests } = scriptedClient([{ throws: new TypeError("fetch failed") }, ok]);
    await client.decide(body);
    expect(requests).toHaveLength(2);
    const down = scriptedClient([{ throws: new TypeError("fetch failed") }], { maxRetries: 1 });
    const e = await failure(down.client.getKey());
    expect([e.type, e.code, e.status, e.attempts]).toEqual(["connection", "connection_failed", 0, 2]);
  });

  it("a retry-after longer than the client waits for (default 60 s) is handed back at once", async () => {
    const { client, requests } = scriptedClient([
      { error: "sign_ins_per_hour", type: "rate_limited", status: 429, retryAfter: 3600 },
    ]);
    const e = await failure(client.getKey());
    expect([e.code, e.retry_after, requests.length]).toEqual(["sign_ins_per_hour", 3600, 1]);
  });

  it("an attempt longer than timeoutMs is a timeout error, retried like a network failure", async () => {
    let calls = 0;
    const hang = (_: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) => {
        calls++;
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    const client = new SvcClient({
      baseUrl: "http://api.test",
      fetch: hang,
      timeoutMs: 20,
      maxRetries: 1,
      sleep: async () => {},
    });
    const e = await failure(client.getKey());
    expect([e.type, e.code, e.attempts, calls]).toEqual(["timeout", "timeout", 2, 2]);
  });

  it("a caller's abort is not retried", async () => {
    const controller = new AbortController();
    const { client, requests } = scriptedClient([{ throws: new Error("aborted") }]);
    controller.abort();
    await expect(client.getKey({ signal: controller.signal })).rejects.toBeDefined();
    expect(requests.length).toBeLessThanOrEqual(1);
  });
});

describe("SDK never retries other 4xx, nor 429 test_daily_quota", () => {
  it.each<[number, string, string]>([
    [400, "invalid_request", "invalid_json"],
    [400, "invalid_request", "invalid_header"],
    [401, "authentication", "invalid_api_key"],
    [402, "insufficient_balance", "insufficient_balance"],
    [403, "permission", "insufficient_scope"],
    [404, "not_found", "model_not_found"],
    [409, "conflict", "idempotency_key_reused"],
    [409, "conflict", "a_conflict_newer_than_the_sdk"],
    [413, "too_large", "request_too_long"],
    [422, "validation", "invalid_value"],
    [429, "rate_limited", "test_daily_quota"],
  ])("%i %s %s: one attempt", async (status, type, code) => {
    const { client, requests, sleeps } = scriptedClient([
      { error: code, type, status, retryAfter: code === "test_daily_quota" ? 30 : undefined },
      ok,
    ]);
    const e = await failure(client.decide(body));
    expect([e.status, e.type, e.code, e.attempts]).toEqual([status, type, code, 1]);
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe("a decide's timeout grows with its body; after a timeout the same key is asked again (issue 30, item 5)", () => {
  it("attemptTimeoutMs: 60 s, plus 20 s per KiB of body, at most 15 minutes", () => {
    const at = (bytes: number) => attemptTimeoutMs(bytes, DEFAULT_TIMEOUTS);
    expect([at(0), at(1024), at(5 * 1024), at(40 * 1024), at(256 * 1024)]).toEqual([
      60_000, 80_000, 160_000, 860_000, 900_000,
    ]);
    expect(attemptTimeoutMs(0, { ...DEFAULT_TIMEOUTS, timeoutMs: 5_000 })).toBe(5_000);
  });

  it("a call without a body gets timeoutMs; a decide waits longer the larger its body; a per-call timeoutMs is exact", async () => {
    const elapsed = async (call: (c: SvcClient) => Promise<unknown>) => {
      const { client } = scriptedClient([{ hangs: true }], {
        maxRetries: 0,
        timeoutMs: 20,
        timeoutMsPerKiB: 200,
      });
      const t0 = performance.now();
      const e = await failure(call(client));
      expect(e.type).toBe("timeout");
      return performance.now() - t0;
    };
    const large = { state: "x".repeat(2048), questions: body.questions };
    expect(await elapsed((c) => c.getKey())).toBeLessThan(300);
    expect(await elapsed((c) => c.decide(large))).toBeGreaterThanOrEqual(400); // 20 ms + 2 KiB × 200 ms
    expect(await elapsed((c) => c.decide(large, { timeoutMs: 20 }))).toBeLessThan(300);
  });

  it("timeout → 409 idempotency_in_progress (waited out, not counted as retries) → the replay, one key throughout", async () => {
    const inProgress: Scripted = {
      error: "idempotency_in_progress",
      type: "conflict",
      status: 409,
      retryAfter: 1,
    };
    const replay: Scripted = { json: DECISION, headers: { "idempotent-replayed": "true" } };
    const script = [{ hangs: true } as const, inProgress, inProgress, inProgress, replay];
    // The first attempt's timeout runs on a fake clock; the in-progress waits are as long as that timeout.
    vi.useFakeTimers();
    try {
      const { client, requests, sleeps } = scriptedClient(script, { maxRetries: 1 });
      const pending = client.decideWithResponse(body, { timeoutMs: 3_500 });
      await vi.advanceTimersByTimeAsync(3_500);
      const r = await pending;
      expect([r.meta.replayed, r.meta.attempts]).toEqual([true, 5]);
      expect(new Set(requests.map((q) => q.headers["idempotency-key"])).size).toBe(1);
      expect(sleeps.slice(1)).toEqual([1000, 1000, 1000]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("409 idempotency_in_progress is waited out for at most the call's timeout; maxRetries 0 waits for nothing", async () => {
    const inProgress: Scripted = {
      error: "idempotency_in_progress",
      type: "conflict",
      status: 409,
      retryAfter: 1,
    };
    const { client, sleeps } = scriptedClient([inProgress]);
    const e = await failure(client.decide(body, { timeoutMs: 3_500 }));
    expect([e.code, e.attempts, sleeps]).toEqual(["idempotency_in_progress", 4, [1000, 1000, 1000]]);
    const none = scriptedClient([inProgress]);
    expect((await failure(none.client.decide(body, { maxRetries: 0 }))).attempts).toBe(1);
  });
});

describe("createEvaluation carries no idempotency key: sent again only after 429 and 503", () => {
  const created: Scripted = { json: { id: "eval_1", object: "evaluation", status: "queued" } };
  const request = { name: "n", items: [] };

  it("a 500 or a cut connection is not retried (a second create could make a second evaluation)", async () => {
    for (const first of [
      { error: "internal_error", type: "internal", status: 500 },
      { throws: new TypeError("fetch failed") },
    ] as Scripted[]) {
      const { client, requests } = scriptedClient([first, created]);
      const e = await failure(client.createEvaluation(request));
      expect([e.attempts, requests.length]).toEqual([1, 1]);
    }
  });

  it("429 and 503 are retried after retry-after", async () => {
    const { client, requests, sleeps } = scriptedClient([
      { error: "requests_per_minute", type: "rate_limited", status: 429, retryAfter: 2 },
      { error: "maintenance", type: "unavailable", status: 503, retryAfter: 3 },
      created,
    ]);
    expect((await client.createEvaluation(request)).id).toBe("eval_1");
    expect([requests.length, sleeps]).toEqual([3, [2000, 3000]]);
  });
});
