// client.batches and webhooks.verify against the Worker's own batch routes (inside workerd): an upload from an
// async iterable, the idempotent replay, a typed 422 naming the line, the runner to the end (the GPU a
// fixed-answer stand-in), retrieve / list / results in input order, delete and a typed 404, and a webhook the
// service signed, verified by the SDK.
import { env as cfEnv, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type BatchLine, isSvcError, SvcClient, webhooks } from "../../../sdk/src/index";
import { runBatchSlice } from "../../../workers/batches/runner";
import { deliverDueEvents, webhookSecret } from "../../../workers/batches/webhooks";
import type { Env } from "../../../workers/env";
import { TEST_DAILY_QUOTA } from "../../../workers/limits/key-limits";
import { buildServices } from "../../../workers/services";
import { EvaluationQuota } from "../../../workers/stores/evaluation-quota";
import { redisAccess } from "../../../workers/stores/redis";
import { fixedCheckEngine, REFUND_CHECK } from "../../support/calibrations";
import { CONSOLE_SECRET } from "../../support/console";
import { BASE, seed } from "../../support/worker-http";

const env = cfEnv as unknown as Env;

const line = (n: number): BatchLine => ({
  custom_id: `ticket-${n}`,
  body: {
    state: { ticket: `Parcel ${n} arrived broken, I want my money back.` },
    questions: { refund: REFUND_CHECK },
  },
});

async function* lines(count: number): AsyncGenerator<BatchLine> {
  for (let n = 0; n < count; n++) yield line(n);
}

async function runToEnd(accountId: string): Promise<void> {
  const services = buildServices(env);
  const deps = {
    db: services.db,
    env,
    engine: fixedCheckEngine(0.8),
    ledger: services.ledger,
    refundIntents: services.refundIntents,
    calibrations: services.calibrations,
    limits: services.limits,
    bucket: env.BATCHES,
    quota: new EvaluationQuota(redisAccess(env), TEST_DAILY_QUOTA),
  };
  for (let i = 0; i < 50; i++) {
    const next = await runBatchSlice(deps, accountId, { failures: 0 }, 20_000);
    if (next === null || next > Date.now() + 5_000) return;
  }
}

describe("the SDK against the Worker's batch routes (workerd)", () => {
  it("create (streamed or gathered), replay, run, retrieve, list, results in order, delete, 404", async () => {
    const acct = await seed({ keys: [{ mode: "test" }] });
    const svc = new SvcClient({
      baseUrl: BASE,
      apiKey: acct.keys[0]!.secret,
      fetch: (input, init) => SELF.fetch(input as string, init),
      maxRetries: 0,
    });
    const key = `sdk-${acct.accountId}`;
    const created = await svc.batches.create(lines(3), { idempotencyKey: key });
    expect(created).toMatchObject({ object: "batch", status: "queued", mode: "test", counts: { total: 3 } });
    // The same key and the same bytes, as an array this time: the same batch, flagged as a replay.
    const again = await svc.batches.createWithResponse([line(0), line(1), line(2)], { idempotencyKey: key });
    expect([again.data.id, again.meta.status, again.meta.replayed]).toEqual([created.id, 201, true]);

    const invalid = await svc.batches
      .create([
        line(0),
        { custom_id: "bad", body: { state: "x", questions: { q: { type: "check", instructions: "" } } } },
      ])
      .catch((e: unknown) => e);
    expect(isSvcError(invalid, "validation")).toBe(true);
    expect((invalid as { param?: string }).param).toMatch(/^lines\.1\.body\.questions\.q\.instructions$/);

    await runToEnd(acct.accountId);
    const done = await svc.batches.retrieve(created.id);
    expect(done).toMatchObject({ status: "completed", counts: { total: 3, done: 3, failed: 0 } });
    expect((await svc.batches.list({ limit: 10 })).data.map((b) => b.id)).toContain(created.id);

    const results = [];
    for await (const l of svc.batches.results(created.id)) results.push(l);
    expect(results.map((l) => l.custom_id)).toEqual(["ticket-0", "ticket-1", "ticket-2"]);
    for (const l of results) {
      expect("body" in l && l.body.answers.refund?.type).toBe("check");
    }

    expect(await svc.batches.cancel(created.id)).toMatchObject({ id: created.id, status: "completed" });
    expect(await svc.batches.delete(created.id)).toEqual({ id: created.id, object: "batch", deleted: true });
    const gone = await svc.batches.retrieve(created.id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ type: "not_found", code: "batch_not_found", status: 404 });
  });

  it("a webhook call the service signed passes webhooks.verify with the endpoint's secret; a tampered one does not", async () => {
    const acct = await seed({ keys: [{ mode: "test" }] });
    const svc = new SvcClient({
      baseUrl: BASE,
      apiKey: acct.keys[0]!.secret,
      fetch: (input, init) => SELF.fetch(input as string, init),
    });
    const db = buildServices(env).db;
    const endpointId = `we_${acct.accountId.slice(-26)}`;
    await db
      .sql()
      .query(
        "INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, $2, 'https://hooks.example.com/x')",
        [acct.accountId, endpointId],
      );
    const created = await svc.batches.create([line(0)]);
    await svc.batches.cancel(created.id);
    const calls: Array<{ body: string; signature: string | null }> = [];
    const capture = (async (_url: string, init: RequestInit) => {
      calls.push({ body: String(init.body), signature: new Headers(init.headers).get(webhooks.header) });
      return new Response(null, { status: 204 });
    }) as unknown as typeof fetch;
    // The Worker's own runner may have tried the endpoint first (and failed: the host does not resolve here).
    await db
      .sql()
      .query("UPDATE webhook_deliveries SET next_at = now() WHERE account_id = $1", [acct.accountId]);
    const delivery = { db, serverSecret: CONSOLE_SECRET, fetch: capture };
    expect(await deliverDueEvents(delivery, acct.accountId)).toBe(1);
    const secret = await webhookSecret(CONSOLE_SECRET, endpointId);
    const [call] = calls;
    const event = await webhooks.verify(call!.body, call!.signature, secret);
    expect(event).toMatchObject({
      object: "event",
      type: "batch.cancelled",
      data: { object: { id: created.id } },
    });
    const tampered = call!.body.replace('"cancelled"', '"completed"');
    await expect(webhooks.verify(tampered, call!.signature, secret)).rejects.toMatchObject({
      code: "signature_mismatch",
    });
  });
});
