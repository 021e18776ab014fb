import { describe, expect, expectTypeOf, it } from "vitest";
import type { BatchLine, BatchResultLine, Decision } from "../../../sdk/src/index";
import { scriptedClient } from "../../support/sdk-fake-fetch";

const ID = "batch_01JD0000000000000000000000";
const batch = (status = "queued") => ({
  id: ID,
  object: "batch",
  status,
  paused_reason: null,
  resumes_at: null,
  mode: "test",
  model: "svc-1",
  counts: { total: 2, done: 0, failed: 0 },
  usage: { input_tokens: 0, charge_micro_cents: 0 },
  created: 1,
  started: null,
  finished: null,
  expires_at: 86_401,
  results_expire_at: null,
  failure: null,
});
const line = (n: number): BatchLine => ({
  custom_id: `ticket-${n}`,
  body: {
    state: `Ticket ${n}: the parcel arrived broken.`,
    questions: { refund: { type: "check", instructions: "Refund?" } },
  },
});
const LINES = [line(1), line(2)];
const JSONL_OF_LINES = `${JSON.stringify(LINES[0])}\n${JSON.stringify(LINES[1])}\n`;
const decision = (id: string) => ({
  id,
  object: "decision",
  created: 1,
  model: "svc-1.5.1",
  served_by: "gpu",
  calibration: "cal-20261123-3",
  answers: { refund: { type: "check", probability: 0.9, confidence: 0.8, abstained: false } },
  usage: {
    input_tokens: 20,
    state_tokens: 10,
    question_tokens: 10,
    charge_micro_cents: 100,
    unit_price_micro_cents: 5,
    tier: "t1",
  },
});
const ok = (n: number) =>
  JSON.stringify({ custom_id: `ticket-${n}`, status: 200, body: decision(`req_${n}`) });
const failed = (n: number) =>
  JSON.stringify({
    custom_id: `ticket-${n}`,
    status: 402,
    error: { type: "insufficient_balance", code: "insufficient_balance", message: "Top up." },
  });

async function* generated(lines: BatchLine[]): AsyncGenerator<BatchLine> {
  for (const l of lines) yield l;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("client.batches: each operation's method and path", () => {
  it("create, retrieve, list, cancel, delete and results send their method and path (ids encoded)", async () => {
    const { client, requests } = scriptedClient([
      { json: batch(), status: 201 },
      { json: batch() },
      { json: { object: "list", data: [batch()], has_more: false } },
      { json: batch("cancelled") },
      { json: { id: ID, object: "batch", deleted: true } },
      { chunks: [] },
    ]);
    expect((await client.batches.create(LINES)).status).toBe("queued");
    await client.batches.retrieve(ID);
    await client.batches.list({ limit: 5, starting_after: ID });
    await client.batches.cancel(ID);
    expect(await client.batches.delete(ID)).toEqual({ id: ID, object: "batch", deleted: true });
    expect(await collect(client.batches.results("batch/x"))).toEqual([]);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST http://api.test/v1/batches",
      `GET http://api.test/v1/batches/${ID}`,
      `GET http://api.test/v1/batches?limit=5&starting_after=${ID}`,
      `POST http://api.test/v1/batches/${ID}/cancel`,
      `DELETE http://api.test/v1/batches/${ID}`,
      "GET http://api.test/v1/batches/batch%2Fx/results",
    ]);
    expect(requests.every((r) => r.headers.authorization === "Bearer svc_test_key")).toBe(true);
    expect(requests[0]?.headers["content-type"]).toBe("application/jsonl");
    expect(requests[5]?.headers.accept).toBe("application/jsonl, application/json");
  });

  it("list without a query sends none", async () => {
    const { client, requests } = scriptedClient([{ json: { object: "list", data: [], has_more: false } }]);
    await client.batches.list();
    expect(requests[0]?.url).toBe("http://api.test/v1/batches");
  });
});

describe("batches.create: the upload is JSONL, one `{custom_id, body}` per line", () => {
  it("an array is written one JSON per line and sent as a Blob (its length known)", async () => {
    const { client, requests } = scriptedClient([{ json: batch(), status: 201 }]);
    await client.batches.create(LINES);
    expect(requests[0]).toMatchObject({ bodyKind: "Blob", body: JSONL_OF_LINES, duplex: undefined });
  });

  it("JSONL already written (a string, a Blob) is sent as it is", async () => {
    const { client, requests } = scriptedClient([{ json: batch(), status: 201 }]);
    await client.batches.create(JSONL_OF_LINES);
    await client.batches.create(new Blob([JSONL_OF_LINES], { type: "text/plain" }));
    expect(requests.map((r) => [r.bodyKind, r.body, r.headers["content-type"]])).toEqual([
      ["string", JSONL_OF_LINES, "application/jsonl"],
      ["Blob", JSONL_OF_LINES, "application/jsonl"],
    ]);
  });

  it("an async iterable is streamed (duplex half) where the runtime can, as JSONL", async () => {
    const { client, requests } = scriptedClient([{ json: batch(), status: 201 }]);
    await client.batches.create(generated(LINES));
    expect(requests[0]).toMatchObject({ bodyKind: "ReadableStream", duplex: "half", body: JSONL_OF_LINES });
  });

  it("a sync iterable (a generator) and a byte stream are streamed too", async () => {
    const { client, requests } = scriptedClient([{ json: batch(), status: 201 }]);
    await client.batches.create(LINES.values());
    await client.batches.create(new Blob([JSONL_OF_LINES]).stream());
    expect(requests.map((r) => [r.bodyKind, r.body])).toEqual([
      ["ReadableStream", JSONL_OF_LINES],
      ["ReadableStream", JSONL_OF_LINES],
    ]);
  });

  it("`streamUpload: false` gathers an iterable into a Blob first (what browsers get)", async () => {
    const { client, requests } = scriptedClient([{ json: batch(), status: 201 }]);
    await client.batches.create(generated(LINES), { streamUpload: false });
    await client.batches.create(new Blob([JSONL_OF_LINES]).stream(), { streamUpload: false });
    expect(requests.map((r) => [r.bodyKind, r.body])).toEqual([
      ["Blob", JSONL_OF_LINES],
      ["Blob", JSONL_OF_LINES],
    ]);
  });

  it("a 422 names the first invalid line in `param` (lines.<n>.<path>)", async () => {
    const { client } = scriptedClient([
      {
        error: "invalid_value",
        type: "validation",
        status: 422,
        param: "lines.3.body.questions.q.instructions",
      },
    ]);
    await expect(client.batches.create(LINES)).rejects.toMatchObject({
      type: "validation",
      param: "lines.3.body.questions.q.instructions",
    });
  });
});

describe("batches.create retries as evaluations' create: after 429/503 only, unless the caller gave an idempotency key", () => {
  it("without a key: sent again after 429 (same body), never after a 500", async () => {
    const limited = scriptedClient([
      { error: "requests_per_minute", type: "rate_limited", status: 429, retryAfter: 1 },
      { json: batch(), status: 201 },
    ]);
    await limited.client.batches.create(LINES);
    expect(limited.requests.map((r) => r.body)).toEqual([JSONL_OF_LINES, JSONL_OF_LINES]);
    expect(limited.requests[0]?.headers["idempotency-key"]).toBeUndefined();
    const failed = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      { json: batch(), status: 201 },
    ]);
    await expect(failed.client.batches.create(LINES)).rejects.toMatchObject({ code: "internal_error" });
    expect(failed.requests).toHaveLength(1);
  });

  it("with a key: sent again after a 500 and a cut connection with the same key and body; the replay is flagged", async () => {
    const { client, requests } = scriptedClient([
      { error: "internal_error", type: "internal", status: 500 },
      { throws: new TypeError("fetch failed") },
      { json: batch(), status: 201, headers: { "idempotent-replayed": "true" } },
    ]);
    const res = await client.batches.createWithResponse(LINES, { idempotencyKey: "nightly-2026-11-27" });
    expect(res.meta).toMatchObject({ status: 201, replayed: true, attempts: 3 });
    expect(requests.map((r) => [r.headers["idempotency-key"], r.body])).toEqual([
      ["nightly-2026-11-27", JSONL_OF_LINES],
      ["nightly-2026-11-27", JSONL_OF_LINES],
      ["nightly-2026-11-27", JSONL_OF_LINES],
    ]);
  });

  it("a streamed upload can be read once: it is sent once, the 429 reaches the caller with its retry-after", async () => {
    const { client, requests } = scriptedClient([
      { error: "batches_in_progress", type: "rate_limited", status: 429, retryAfter: 30 },
      { json: batch(), status: 201 },
    ]);
    const err = await client.batches.create(generated(LINES), { idempotencyKey: "k" }).catch((e) => e);
    expect(err).toMatchObject({
      type: "rate_limited",
      code: "batches_in_progress",
      retry_after: 30,
      attempts: 1,
    });
    expect(requests).toHaveLength(1);
  });

  it("413 and 409 are not retried", async () => {
    const { client, requests } = scriptedClient([
      { error: "batch_too_many_lines", type: "too_large", status: 413 },
      { error: "batch_storage_full", type: "conflict", status: 409 },
    ]);
    await expect(client.batches.create(LINES, { idempotencyKey: "k" })).rejects.toMatchObject({
      status: 413,
    });
    await expect(client.batches.create(LINES, { idempotencyKey: "k" })).rejects.toMatchObject({
      status: 409,
    });
    expect(requests).toHaveLength(2);
  });
});

describe("batches.results: one parsed line per finished request, read as the body arrives", () => {
  it("lines split across chunks (inside a line and inside a UTF-8 character) come out whole, empty lines skipped", async () => {
    const text = `${ok(1)}\n\n${failed(2)}\r\n${JSON.stringify({ custom_id: "é✓", status: 500, error: { type: "internal", code: "internal_error", message: "x" } })}`;
    const bytes = new TextEncoder().encode(text);
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of "é"
    const { client } = scriptedClient([
      { chunks: [bytes.slice(0, 40), bytes.slice(40, cut), bytes.slice(cut)] },
    ]);
    const lines = await collect(client.batches.results(ID));
    expect(lines.map((l) => [l.custom_id, l.status])).toEqual([
      ["ticket-1", 200],
      ["ticket-2", 402],
      ["é✓", 500],
    ]);
    const [first, second] = lines;
    if (first && "body" in first) expect(first.body.answers.refund?.type).toBe("check");
    if (second && "error" in second) expect(second.error.code).toBe("insufficient_balance");
  });

  it("only \\n ends a line: U+2028 and U+0085, which JSON strings may hold as they are, stay inside theirs", async () => {
    const odd = "a\u2028b\u0085c";
    const { client } = scriptedClient([
      { chunks: [`${JSON.stringify({ custom_id: odd, status: 200, body: {} })}\n${ok(2)}\n`] },
    ]);
    expect((await collect(client.batches.results(ID))).map((l) => l.custom_id)).toEqual([odd, "ticket-2"]);
  });

  it("the first line is handed out before the body has ended (the body is never held whole)", async () => {
    const { client, requests } = scriptedClient([{ chunks: [`${ok(1)}\n`], stall: true }]);
    const results = client.batches.results(ID);
    const first = await results.next();
    expect(first.value).toMatchObject({ custom_id: "ticket-1", status: 200 });
    expect(requests[0]?.signal?.aborted).toBe(false);
    await results.return();
    expect(requests[0]?.signal?.aborted).toBe(true); // leaving the loop closed the connection
  });

  it("a 503 before the body is retried; a 404 arrives typed", async () => {
    const { client, requests } = scriptedClient([
      { error: "no_capacity", type: "unavailable", status: 503, retryAfter: 1 },
      { chunks: [`${ok(1)}\n`] },
      { error: "batch_not_found", type: "not_found", status: 404 },
    ]);
    expect(await collect(client.batches.results(ID))).toHaveLength(1);
    expect(requests).toHaveLength(2);
    await expect(collect(client.batches.results(ID))).rejects.toMatchObject({
      type: "not_found",
      code: "batch_not_found",
    });
  });

  it("a body that stops sending for idleTimeoutMs is a timeout error; a line that is not JSON an invalid_response", async () => {
    const stalled = scriptedClient([{ chunks: [`${ok(1)}\n`], stall: true }]);
    const seen: BatchResultLine[] = [];
    const err = await (async () => {
      for await (const l of stalled.client.batches.results(ID, { idleTimeoutMs: 20 })) seen.push(l);
    })().catch((e) => e);
    expect(seen).toHaveLength(1);
    expect(err).toMatchObject({ type: "timeout" });
    const garbled = scriptedClient([{ chunks: [`${ok(1)}\n{"custom_id":\n`] }]);
    await expect(collect(garbled.client.batches.results(ID))).rejects.toMatchObject({
      type: "invalid_response",
      code: "invalid_jsonl_response",
      message: "Line 2 of the answer is not JSON.",
    });
  });

  it("the caller's signal stops the reading", async () => {
    const controller = new AbortController();
    const { client } = scriptedClient([{ chunks: [`${ok(1)}\n`], stall: true }]);
    const results = client.batches.results(ID, { signal: controller.signal });
    await results.next();
    const next = results.next();
    controller.abort(new Error("stop"));
    await expect(next).rejects.toThrow("stop");
  });

  it('lines are typed: `"body" in line` narrows to the Decision, `"error" in line` to the error', async () => {
    const { client } = scriptedClient([{ chunks: [`${ok(1)}\n${failed(2)}\n`] }]);
    for await (const l of client.batches.results(ID)) {
      expectTypeOf(l).toEqualTypeOf<BatchResultLine>();
      if ("body" in l) expectTypeOf(l.body).toEqualTypeOf<Decision>();
      else expectTypeOf(l.error.code).toEqualTypeOf<string>();
    }
  });
});
