// The SDK against the edge Worker in workerd on the test stack (GPU stand-in, real Postgres and Redis).
import { describe, expect, it } from "vitest";
import { type OpenApiDocument, SvcClient, type SvcError } from "../../../sdk/src/index";
import { credit, seed, useMoneyEdge } from "../../support/money-harness";
import { sdkMismatches } from "../../support/sdk-contract";

const world = useMoneyEdge("ok");

async function client(opts: { mode?: "live" | "test"; scopes?: string[]; funded?: boolean } = {}) {
  const acct = await seed({
    keys: [{ mode: opts.mode ?? "live", ...(opts.scopes ? { scopes: opts.scopes } : {}) }],
  });
  if (opts.funded !== false && (opts.mode ?? "live") === "live")
    await credit(world.edge.url, acct.accountId, 100_000_000);
  const sdk = new SvcClient({ baseUrl: world.edge.url, apiKey: acct.keys[0]!.secret, maxRetries: 0 });
  return { sdk, acct };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("resolved"),
    (e: unknown) => e as SvcError,
  );

const REQUEST = {
  state: { ticket: "The parcel arrived broken and I want my money back." },
  questions: {
    mood: { type: "pick", instructions: "Customer mood?", options: { calm: null, angry: "Shouting" } },
    urgency: { type: "rate", instructions: "Urgency?", levels: ["low", "medium", "high"] },
    refund: { type: "check", instructions: "Does the customer ask for a refund?" },
  },
  fallback: "never",
} as const;

describe("SDK against the local stack", () => {
  it("decide(): typed answers, as the request asked them", async () => {
    const { sdk } = await client();
    const r = await sdk.decideWithResponse(REQUEST);
    const d = r.data;
    expect(d).toMatchObject({ object: "decision", served_by: "gpu" });
    expect(d.model).toMatch(/^svc-1\.[0-9]+\.[0-9]+$/); // the exact version the alias resolves to
    expect(r.meta.requestId).toBe(d.id);
    expect(r.meta.idempotencyKey).toMatch(/^sdk_/);
    expect(["calm", "angry"]).toContain(d.answers.mood.choice);
    expect(Object.keys(d.answers.mood.probabilities)).toEqual(["calm", "angry"]);
    expect(d.answers.urgency.levels).toEqual(["low", "medium", "high"]);
    expect(d.answers.urgency.probabilities).toHaveLength(3);
    expect(d.answers.refund.probability).toBeGreaterThanOrEqual(0);
    expect(d.answers.refund.probability).toBeLessThanOrEqual(1);
    expect(d.usage.charge_micro_cents).toBe(d.usage.input_tokens * 5);
  });

  it("the same idempotency key replays (nothing charged); another body with it is 409 idempotency_key_reused, not retried", async () => {
    const { sdk } = await client();
    const first = await sdk.decideWithResponse(REQUEST, { idempotencyKey: "sdk-it-1" });
    const again = await sdk.decideWithResponse(REQUEST, { idempotencyKey: "sdk-it-1" });
    expect([again.meta.replayed, again.data.id]).toEqual([true, first.data.id]);
    const e = await failure(
      sdk.decide({ ...REQUEST, state: "Another text." }, { idempotencyKey: "sdk-it-1", maxRetries: 3 }),
    );
    expect([e.status, e.type, e.code, e.attempts]).toEqual([409, "conflict", "idempotency_key_reused", 1]);
  });

  it("503 no_capacity is retried after retry-after and then answered", async () => {
    const { acct } = await client();
    world.gpu.setMode("overloaded");
    const waits: number[] = [];
    const sdk = new SvcClient({
      baseUrl: world.edge.url,
      apiKey: acct.keys[0]!.secret,
      maxRetries: 2,
      sleep: async (ms) => {
        waits.push(ms);
        world.gpu.setMode("ok"); // capacity comes back while the client waits
      },
    });
    const r = await sdk.decideWithResponse(REQUEST);
    expect(r.meta.attempts).toBe(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1_000); // retry-after in seconds, as sent
  });

  it("a decide that outlives its attempt's timeout is sent again with the same key and charged once", async () => {
    const { acct } = await client();
    const keys: string[] = [];
    const recording: typeof fetch = (input, init) => {
      keys.push(new Headers(init?.headers).get("idempotency-key") ?? "");
      return fetch(input, init);
    };
    // Only the first attempt is slow (300 ms at the stand-in, over its 100 ms bound); the client waits
    // 1.5 s before the retry, by when that attempt has ended (a replay is recomputed, fast now).
    const sdk = new SvcClient({
      baseUrl: world.edge.url,
      apiKey: acct.keys[0]!.secret,
      fetch: recording,
      sleep: async () => {
        world.gpu.setMode("ok");
        await new Promise((r) => setTimeout(r, 1_500));
      },
    });
    const before = (await sdk.getBalance()).balance_micro_cents;
    world.gpu.setMode("slow");
    try {
      const r = await sdk.decideWithResponse(REQUEST, { timeoutMs: 100 });
      expect(r.meta.attempts).toBeGreaterThanOrEqual(2);
      expect(new Set(keys.slice(1)).size).toBe(1); // keys[0] is the balance read
      expect((await sdk.getBalance()).balance_micro_cents).toBe(before - r.data.usage.charge_micro_cents);
    } finally {
      world.gpu.setMode("ok");
    }
  });

  it("errors are typed values: 401, 402, 403, 404 and 422 with type, code, param and request_id", async () => {
    const bad = new SvcClient({ baseUrl: world.edge.url, apiKey: `svc_live_${"0".repeat(40)}` });
    const e401 = await failure(bad.getKey());
    expect([e401.status, e401.type, e401.code]).toEqual([401, "authentication", "invalid_api_key"]);
    expect(e401.request_id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);

    const poor = (await client({ funded: false })).sdk;
    const e402 = await failure(poor.decide(REQUEST));
    expect([e402.type, e402.code, e402.balance_micro_cents]).toEqual([
      "insufficient_balance",
      "insufficient_balance",
      0,
    ]);
    expect(e402.required_micro_cents).toBeGreaterThan(0);

    const narrow = (await client({ scopes: ["decide"] })).sdk;
    expect((await failure(narrow.getBalance())).code).toBe("insufficient_scope");

    const { sdk } = await client();
    const e404 = await failure(sdk.decide({ ...REQUEST, model: "svc-0.9.0" }));
    expect([e404.type, e404.code, e404.param]).toEqual(["not_found", "model_retired", "model"]);
    const e422 = await failure(
      sdk.decide({ state: "s", questions: { q: { type: "check", instructions: "  " } } }),
    );
    expect([e422.type, e422.code, e422.param]).toEqual([
      "validation",
      "invalid_value",
      "questions.q.instructions",
    ]);
  });

  it("reads the key, the balance, the usage and the limits; a test key works the same", async () => {
    const { sdk, acct } = await client();
    expect(await sdk.getKey()).toMatchObject({ object: "key", mode: "live", account_id: acct.accountId });
    expect(await sdk.getBalance()).toMatchObject({ object: "balance", balance_micro_cents: 100_000_000 });
    expect(await sdk.limits()).toMatchObject({ max_questions: 32, max_options: 255, max_levels: 10 });
    expect(await sdk.limits("svc-0.9.0")).toBeUndefined();
    const usage = await sdk.getUsage({ start: new Date().toISOString().slice(0, 10), granularity: "hour" });
    expect(usage).toMatchObject({ object: "usage", granularity: "hour", key_id: null });
    const e = await failure(sdk.getUsage({ start: "2026-13-01" }));
    expect([e.type, e.code, e.param]).toEqual(["validation", "invalid_value", "start"]);
    const test = (await client({ mode: "test" })).sdk;
    const d = await test.decide(REQUEST);
    expect(d.usage).toMatchObject({ tier: "test", charge_micro_cents: 0 });
  });

  it("the served GET /v1/openapi.json: every public operation has an SDK method, every code is handled", async () => {
    const doc: OpenApiDocument = await new SvcClient({ baseUrl: world.edge.url }).getOpenApiDocument();
    expect(sdkMismatches(doc)).toEqual([]);
    expect((await new SvcClient({ baseUrl: world.edge.url }).listPublicPlans()).object).toBe("list");
  });
});
