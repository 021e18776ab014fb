import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BATCH_ID_PATTERN } from "../../../schema/batches";
import { hmacHex } from "../../../schema/signing";
import { resultKey } from "../../../workers/batches/objects";
import { runBatchSlice } from "../../../workers/batches/runner";
import { storeUpload } from "../../../workers/batches/upload";
import { deliverDueEvents, webhookSecret } from "../../../workers/batches/webhooks";
import type { Env } from "../../../workers/env";
import { ApiError } from "../../../workers/errors";
import { buildServices } from "../../../workers/services";
import { claimLine, openChunk } from "../../../workers/stores/batch-lines";
import { batchProgress } from "../../../workers/stores/batch-runs";
import { findBatch } from "../../../workers/stores/batches";
import { newAccount as fundedAccount, quietCall, runnerDeps, runToEnd } from "../../support/batch-runner";
import { fixedCheckEngine, REFUND_CHECK } from "../../support/calibrations";
import { CONSOLE_SECRET, consoleCall, signIn } from "../../support/console";
import { expectError, seed } from "../../support/worker-http";

const workerEnv = env as unknown as Env;
const FUNDS = 10_000_000;

let _live = "";
let test = "";
let usageOnly = "";
let _accountId = "";
beforeAll(async () => {
  const a = await seed({
    keys: [{ mode: "live" }, { mode: "test" }, { mode: "test", scopes: ["usage:read"] }],
  });
  [_live, test, usageOnly] = a.keys.map((k) => k.secret) as [string, string, string];
  _accountId = a.accountId;
});

const decideBody = (n: number) => ({
  state: { ticket: `Parcel ${n} arrived broken, I want my money back.` },
  questions: { refund: REFUND_CHECK },
});
const line = (n: number, body: unknown = decideBody(n)) => JSON.stringify({ custom_id: `t-${n}`, body });
const jsonl = (lines: string[]) => `${lines.join("\n")}\n`;
// The runner's kick is a no-op (quietCall): these tests drive the runner themselves, and a background runner
// working on the same batch raced them ("a top-up resumes it" was flaky: it re-paused the batch after the top-up).
const upload = (secret: string, text: string, headers: Record<string, string> = {}) =>
  quietCall("POST", "/v1/batches", {
    bearer: secret,
    body: text,
    headers: { "content-type": "application/jsonl", ...headers },
  });

async function resultsOf(secret: string, id: string): Promise<Record<string, unknown>[]> {
  const res = await consoleCall("GET", `/v1/batches/${id}/results`, { bearer: secret });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/jsonl/);
  const text = await res.text();
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const newAccount = (mode: "live" | "test", funds = FUNDS) => fundedAccount(mode, funds);

describe("POST /v1/batches: auth, content type, and the first invalid line", () => {
  it("no key 401; a key without `decide` 403; a body not application/jsonl 400 unsupported_media_type", async () => {
    await expectError(
      await consoleCall("POST", "/v1/batches", { body: jsonl([line(0)]) }),
      401,
      "missing_api_key",
    );
    await expectError(await upload(usageOnly, jsonl([line(0)])), 403, "insufficient_scope");
    await expectError(
      await upload(test, jsonl([line(0)]), { "content-type": "application/json" }),
      400,
      "unsupported_media_type",
      "content-type",
    );
    const ok = await upload(test, jsonl([line(0)]), {
      "content-type": "application/x-ndjson; charset=utf-8",
    });
    expect(ok.status).toBe(201);
  });

  it.each<[string, string[], number, string, string]>([
    ["a line that is not JSON: invalid_json at lines.<n>", [line(0), "{"], 400, "invalid_json", "lines.1"],
    ["an empty line in the middle", [line(0), "", line(2)], 400, "invalid_json", "lines.1"],
    [
      "a repeated key keeps its JSON pointer under the line",
      [line(0), '{"custom_id":"a","custom_id":"b","body":{}}'],
      400,
      "duplicate_key",
      "lines.1/custom_id",
    ],
    [
      "a line's unknown field",
      [line(0), '{"custom_id":"a","body":{},"x":1}'],
      422,
      "unknown_field",
      "lines.1.x",
    ],
    [
      "a missing custom_id",
      [JSON.stringify({ body: decideBody(0) })],
      422,
      "missing_field",
      "lines.0.custom_id",
    ],
    [
      "a custom_id over 64 characters",
      [JSON.stringify({ custom_id: "x".repeat(65), body: decideBody(0) })],
      422,
      "invalid_value",
      "lines.0.custom_id",
    ],
    ["a repeated custom_id", [line(0), line(0)], 422, "duplicate_custom_id", "lines.1.custom_id"],
    [
      "the body's own schema error, under lines.<n>.body",
      [line(0), line(1, { state: "s", questions: { q: { type: "check" } } })],
      422,
      "missing_field",
      "lines.1.body.questions.q.instructions",
    ],
    [
      "the body's model (404, after its schema)",
      [line(0, { ...decideBody(0), model: "svc-7" })],
      404,
      "model_not_found",
      "lines.0.body.model",
    ],
    [
      "the body's token limits (413)",
      [line(0, { state: "1".repeat(16_385), questions: { q: REFUND_CHECK } })],
      413,
      "state_too_long",
      "lines.0.body.state",
    ],
  ])("%s", async (_name, lines, status, code, param) => {
    await expectError(await upload(test, jsonl(lines)), status, code, param);
  });

  it("no lines at all: 422 invalid_value `lines`; a declared body over 100 MB: 413 before it is read", async () => {
    await expectError(await upload(test, ""), 422, "invalid_value", "lines");
    const res = await upload(test, jsonl([line(0)]), { "content-length": String(100 * 1024 * 1024 + 1) });
    expect([413, 400]).toContain(res.status);
  });

  it("past 100,000 lines: 413 batch_too_many_lines, nothing kept in R2", async () => {
    const text = jsonl([line(0), line(1), line(2)]);
    const stream = new Response(text).body;
    const err = await storeUpload(
      stream,
      null,
      workerEnv.BATCHES,
      "batch_01JDTOOMANYLINES0000000000",
      2,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("batch_too_many_lines");
    const left = await workerEnv.BATCHES.list({ prefix: "batches/batch_01JDTOOMANYLINES0000000000/" });
    expect(left.objects).toEqual([]);
  });
});

describe("POST /v1/batches: the batch object and the idempotency key", () => {
  it("201 with the Batch object: queued, counts, mode, model, created + 24 h", async () => {
    const res = await upload(test, jsonl([line(0), line(1), line(2)]));
    expect(res.status).toBe(201);
    const b = (await res.json()) as Record<string, unknown>;
    expect(b.id).toMatch(BATCH_ID_PATTERN);
    expect(b).toMatchObject({
      object: "batch",
      status: "queued",
      paused_reason: null,
      mode: "test",
      model: "svc-1",
      counts: { total: 3, done: 0, failed: 0 },
      usage: { input_tokens: 0, charge_micro_cents: 0 },
      finished: null,
      results_expire_at: null,
      failure: null,
    });
    expect(b.expires_at).toBe((b.created as number) + 86_400);
  });

  it("same key + same bytes → the same batch (idempotent-replayed); other bytes → 409 idempotency_key_reused", async () => {
    const key = `k-${crypto.randomUUID()}`;
    const first = await upload(test, jsonl([line(0), line(1)]), { "idempotency-key": key });
    const again = await upload(test, jsonl([line(0), line(1)]), { "idempotency-key": key });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
    await expectError(
      await upload(test, jsonl([line(0)]), { "idempotency-key": key }),
      409,
      "idempotency_key_reused",
      "idempotency-key",
    );
  });

  it("at most 3 active batches per account: the 4th is 429 batches_in_progress", async () => {
    const a = await newAccount("test");
    for (let i = 0; i < 3; i++) expect((await upload(a.secret, jsonl([line(i)]))).status).toBe(201);
    const err = await expectError(await upload(a.secret, jsonl([line(9)])), 429, "batches_in_progress");
    expect(err.type).toBe("rate_limited");
  });
});

describe("the runner: each line through a decide's money path", () => {
  it("a live batch: every line answered in input order, the balance moved by exactly the sum of the charges", async () => {
    const a = await newAccount("live");
    const created = (await (
      await upload(a.secret, jsonl([0, 1, 2, 3, 4, 5, 6].map((n) => line(n))))
    ).json()) as {
      id: string;
    };
    const engine = fixedCheckEngine(0.8);
    await runToEnd(runnerDeps(engine), a.accountId);
    const b = (await (
      await consoleCall("GET", `/v1/batches/${created.id}`, { bearer: a.secret })
    ).json()) as {
      status: string;
      counts: { done: number };
      usage: { charge_micro_cents: number; input_tokens: number };
      results_expire_at: number;
    };
    expect(b.status).toBe("completed");
    expect(b.counts.done).toBe(7);
    const results = await resultsOf(a.secret, created.id);
    expect(results.map((r) => r.custom_id)).toEqual([0, 1, 2, 3, 4, 5, 6].map((n) => `t-${n}`));
    const charges = results.map(
      (r) => (r.body as { usage: { charge_micro_cents: number } }).usage.charge_micro_cents,
    );
    expect(charges.every((c) => c > 0)).toBe(true);
    const sum = charges.reduce((x, y) => x + y, 0);
    expect(b.usage.charge_micro_cents).toBe(sum);
    const balance = await buildServices(workerEnv).ledger(a.accountId).balance();
    expect(balance.balance_micro_cents).toBe(FUNDS - sum);
    // Batch priority, GPU only: every engine request was at batch priority.
    expect(engine.seen.every((r) => r.priority === "batch")).toBe(true);
    // Each line's body is a Decision with its own id.
    const ids = results.map((r) => (r.body as { id: string }).id);
    expect(new Set(ids).size).toBe(7);
  });

  it("insufficient balance pauses the batch (never fails a line); a top-up resumes it", async () => {
    const a = await newAccount("live", 0);
    const created = (await (await upload(a.secret, jsonl([line(0), line(1)]))).json()) as { id: string };
    const deps = runnerDeps(fixedCheckEngine(0.7));
    await runBatchSlice(deps, a.accountId, { failures: 0 }, 5_000);
    const paused = (await findBatch(deps.db, a.accountId, created.id))!;
    expect(paused.status).toBe("paused");
    expect(paused.pausedReason).toBe("insufficient_balance");
    const shown = (await (
      await consoleCall("GET", `/v1/batches/${created.id}`, { bearer: a.secret })
    ).json()) as {
      paused_reason: string;
      resumes_at: null;
    };
    expect(shown).toMatchObject({ paused_reason: "insufficient_balance", resumes_at: null });
    await deps
      .ledger(a.accountId)
      .credit({ account_id: a.accountId, payment_id: "top", amount_micro_cents: FUNDS });
    await deps.db.sql().query("UPDATE batches SET resumes_at = now() WHERE id = $1", [created.id]);
    await runToEnd(deps, a.accountId);
    expect((await batchProgress(deps.db, created.id))!.status).toBe("completed");
  });

  it("a crashed attempt's debit is refunded before the line runs again: charged once", async () => {
    const a = await newAccount("live");
    const created = (await (await upload(a.secret, jsonl([line(0), line(1)]))).json()) as { id: string };
    const deps = runnerDeps(fixedCheckEngine(0.6));
    // An attempt that took its debit and died before its result was written.
    await openChunk(deps.db, created.id, 0, 0, 2);
    const crashed = "req_01JDCRASHEDATTEMPT00000000";
    await claimLine(deps.db, created.id, 0, crashed);
    await deps.ledger(a.accountId).debit({
      request_id: crashed,
      account_id: a.accountId,
      tokens: 50,
      amount_micro_cents: 50 * 1000,
      test: false,
    });
    await runToEnd(deps, a.accountId);
    const b = (await batchProgress(deps.db, created.id))!;
    expect(b.status).toBe("completed");
    const balance = await deps.ledger(a.accountId).balance();
    expect(balance.balance_micro_cents).toBe(FUNDS - b.chargeMicroCents);
    // The crashed attempt can never charge again.
    expect(
      await deps.ledger(a.accountId).debit({
        request_id: crashed,
        account_id: a.accountId,
        tokens: 1,
        amount_micro_cents: 1,
        test: false,
      }),
    ).toEqual({ ok: false, superseded: true });
  });

  it("an engine fault 5 times on a line finishes it with the 500 a decide would answer, refunded", async () => {
    const a = await newAccount("live");
    const created = (await (await upload(a.secret, jsonl([line(0), line(1)]))).json()) as { id: string };
    const good = fixedCheckEngine(0.9);
    const engine = {
      dispatch: async (req: Parameters<typeof good.dispatch>[0]) => {
        if (req.questions.length > 0 && JSON.stringify(req).includes("Parcel 1 "))
          throw new ApiError("internal_error");
        return good.dispatch(req);
      },
    };
    const deps = runnerDeps(engine);
    for (let i = 0; i < 10 && (await batchProgress(deps.db, created.id))!.status !== "completed"; i++)
      await runBatchSlice(deps, a.accountId, { failures: 0 }, 20_000);
    const b = (await batchProgress(deps.db, created.id))!;
    expect(b).toMatchObject({ status: "completed", done: 1, failed: 1 });
    const results = await resultsOf(a.secret, created.id);
    expect(results[1]).toMatchObject({ custom_id: "t-1", status: 500, error: { code: "internal_error" } });
    const balance = await deps.ledger(a.accountId).balance();
    expect(balance.balance_micro_cents).toBe(FUNDS - b.chargeMicroCents);
  });

  it("a test batch pauses at the daily test quota with resumes_at the next 00:00 UTC", async () => {
    const a = await newAccount("test");
    const created = (await (await upload(a.secret, jsonl([line(0)]))).json()) as {
      id: string;
      created: number;
    };
    const deps = runnerDeps(fixedCheckEngine(0.5), {
      quota: { take: async () => null, giveBack: async () => {} },
    });
    await runBatchSlice(deps, a.accountId, { failures: 0 }, 5_000);
    const b = (await (
      await consoleCall("GET", `/v1/batches/${created.id}`, { bearer: a.secret })
    ).json()) as {
      status: string;
      paused_reason: string;
      resumes_at: number;
    };
    expect(b.status).toBe("paused");
    expect(b.paused_reason).toBe("test_daily_quota");
    expect(b.resumes_at % 86_400).toBe(0);
    expect(b.resumes_at).toBeGreaterThan(Date.now() / 1000);
  });

  it("past expires_at the batch stops as `expired`: lines not yet run are never charged", async () => {
    const a = await newAccount("live");
    const created = (await (await upload(a.secret, jsonl([line(0), line(1)]))).json()) as { id: string };
    const deps = runnerDeps(fixedCheckEngine(0.5));
    await deps.db
      .sql()
      .query("UPDATE batches SET expires_at = now() - interval '1 second' WHERE id = $1", [created.id]);
    await runToEnd(deps, a.accountId);
    const b = (await batchProgress(deps.db, created.id))!;
    expect(b).toMatchObject({ status: "expired", done: 0, chargeMicroCents: 0 });
    expect((await deps.ledger(a.accountId).balance()).balance_micro_cents).toBe(FUNDS);
  });
});

describe("cancel, delete and results", () => {
  it("cancel: the rest never runs; delete: 409 while active, then lines and results go at once", async () => {
    const a = await newAccount("live");
    const created = (await (await upload(a.secret, jsonl([line(0), line(1), line(2)]))).json()) as {
      id: string;
    };
    await expectError(
      await consoleCall("DELETE", `/v1/batches/${created.id}`, { bearer: a.secret }),
      409,
      "batch_not_finished",
    );
    const cancelled = await quietCall("POST", `/v1/batches/${created.id}/cancel`, { bearer: a.secret });
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
    const again = await quietCall("POST", `/v1/batches/${created.id}/cancel`, { bearer: a.secret });
    expect(((await again.json()) as { status: string }).status).toBe("cancelled");
    const deps = runnerDeps(fixedCheckEngine(0.5));
    await runToEnd(deps, a.accountId);
    expect(await resultsOf(a.secret, created.id)).toEqual([]);
    expect((await deps.ledger(a.accountId).balance()).balance_micro_cents).toBe(FUNDS);
    const del = await consoleCall("DELETE", `/v1/batches/${created.id}`, { bearer: a.secret });
    expect(await del.json()).toEqual({ id: created.id, object: "batch", deleted: true });
    const left = await workerEnv.BATCHES.list({ prefix: `batches/${created.id}/` });
    expect(left.objects).toEqual([]);
    await expectError(
      await consoleCall("GET", `/v1/batches/${created.id}`, { bearer: a.secret }),
      404,
      "batch_not_found",
      "id",
    );
  });

  it("results of a running batch: only finished lines, in input order; the written chunk comes from R2", async () => {
    const a = await newAccount("test");
    const created = (await (await upload(a.secret, jsonl([0, 1, 2, 3, 4].map((n) => line(n))))).json()) as {
      id: string;
    };
    const deps = runnerDeps(fixedCheckEngine(0.5), { linesAtOnce: 2 });
    // One group of two lines, then stop (the slice ends at once after it).
    await runBatchSlice(deps, a.accountId, { failures: 0 }, 1);
    const partial = await resultsOf(a.secret, created.id);
    expect(partial.length).toBeLessThan(5);
    expect(partial.map((r) => r.custom_id)).toEqual(
      ["t-0", "t-1", "t-2", "t-3", "t-4"].slice(0, partial.length),
    );
    await runToEnd(deps, a.accountId);
    expect((await workerEnv.BATCHES.head(resultKey(created.id, 0)))?.size).toBeGreaterThan(0);
    expect((await resultsOf(a.secret, created.id)).map((r) => r.custom_id)).toEqual([
      "t-0",
      "t-1",
      "t-2",
      "t-3",
      "t-4",
    ]);
  });

  it("list: newest first with has_more; another account's batch is 404", async () => {
    const a = await newAccount("test");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await (await upload(a.secret, jsonl([line(i)]))).json()) as { id: string }).id);
    const page = (await (await consoleCall("GET", "/v1/batches?limit=2", { bearer: a.secret })).json()) as {
      data: { id: string }[];
      has_more: boolean;
    };
    expect(page.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    expect(page.has_more).toBe(true);
    await expectError(
      await consoleCall("GET", `/v1/batches/${ids[0]}`, { bearer: test }),
      404,
      "batch_not_found",
      "id",
    );
  });
});

describe("webhooks: signed like Stripe's, retried with backoff", () => {
  it("the console sets an https endpoint and shows its secret once; http on a public host is refused", async () => {
    const s = await signIn();
    await expectError(
      await consoleCall("POST", "/v1/console/webhook-endpoint", {
        cookie: s.cookie,
        csrf: s.csrf,
        body: { url: "http://hooks.example.com/svc" },
      }),
      422,
      "invalid_value",
      "url",
    );
    const set = await consoleCall("POST", "/v1/console/webhook-endpoint", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { url: "https://hooks.example.com/svc" },
    });
    const created = (await set.json()) as { secret: string; url: string };
    expect(created.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const got = (await (
      await consoleCall("GET", "/v1/console/webhook-endpoint", { cookie: s.cookie })
    ).json()) as {
      secret: null;
    };
    expect(got.secret).toBeNull();
  });

  it("issue 54: the console's Settings page of a fresh account reads its endpoints without an error answer: GET /v1/console/webhook-endpoints is an empty list, then the one set (no secret); the single endpoint's 404 stays", async () => {
    const s = await signIn();
    const list = async () => {
      const res = await consoleCall("GET", "/v1/console/webhook-endpoints", { cookie: s.cookie });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await list()).toEqual({ object: "list", data: [] });
    await expectError(
      await consoleCall("GET", "/v1/console/webhook-endpoint", { cookie: s.cookie }),
      404,
      "webhook_endpoint_not_found",
    );
    await consoleCall("POST", "/v1/console/webhook-endpoint", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { url: "https://hooks.example.com/settings" },
    });
    expect(await list()).toMatchObject({
      object: "list",
      data: [{ object: "webhook_endpoint", url: "https://hooks.example.com/settings", secret: null }],
    });
    await expectError(await consoleCall("GET", "/v1/console/webhook-endpoints", {}), 401, "invalid_session");
  });

  it("batch.cancelled is delivered signed `t=…,v1=HMAC(secret, t.body)`; a failed attempt is retried later", async () => {
    const a = await newAccount("test");
    const deps = runnerDeps(fixedCheckEngine(0.5));
    const endpointId = "we_01JDTESTENDPOINT00000000000";
    await deps.db
      .sql()
      .query(
        "INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, $2, 'https://hooks.example.com/x')",
        [a.accountId, endpointId],
      );
    const created = (await (await upload(a.secret, jsonl([line(0)]))).json()) as { id: string };
    await quietCall("POST", `/v1/batches/${created.id}/cancel`, { bearer: a.secret });
    const calls: { body: string; signature: string }[] = [];
    let answer = 500;
    const fetchStub = (async (_url: string, init: RequestInit) => {
      calls.push({
        body: String(init.body),
        signature: new Headers(init.headers).get("svc-signature") ?? "",
      });
      return new Response("", { status: answer });
    }) as unknown as typeof fetch;
    const delivery = { db: deps.db, serverSecret: CONSOLE_SECRET, fetch: fetchStub };
    expect(await deliverDueEvents(delivery, a.accountId)).toBe(1);
    // Not due again yet (backoff): nothing sent.
    expect(await deliverDueEvents(delivery, a.accountId)).toBe(0);
    await deps.db
      .sql()
      .query("UPDATE webhook_deliveries SET next_at = now() WHERE account_id = $1", [a.accountId]);
    answer = 200;
    expect(await deliverDueEvents(delivery, a.accountId)).toBe(1);
    expect(await deliverDueEvents(delivery, a.accountId)).toBe(0);
    expect(calls[0]!.body).toBe(calls[1]!.body);
    const event = JSON.parse(calls[1]!.body) as {
      type: string;
      data: { object: { id: string; status: string } };
    };
    expect(event.type).toBe("batch.cancelled");
    expect(event.data.object).toMatchObject({ id: created.id, status: "cancelled" });
    const [t, v1] = calls[1]!.signature.split(",").map((p) => p.split("=")[1]!);
    const secret = await webhookSecret(CONSOLE_SECRET, endpointId);
    expect(v1).toBe(await hmacHex(secret, `${t}.${calls[1]!.body}`));
  });
});
