// Dispatch, fallback and refunds on the real stack (GPU stand-in for fault injection, fake fallback).

import { Redis } from "@upstash/redis";
import { describe, expect, it } from "vitest";
import { ALIASES } from "../../../schema/models";
import { balanceOf, credit, DECIDE_BODY, decide, seed, useMoneyEdge } from "../../support/money-harness";
import { stack } from "../../support/stack-db";

const world = useMoneyEdge("ok", { fallback: true });

const tpmRemaining = (h: Headers) => Number(/"tpm";r=(\d+)/.exec(h.get("ratelimit") ?? "")?.[1]);

async function funded(mode: "live" | "test" = "live") {
  const acct = await seed({ keys: [{ mode }] });
  if (mode === "live") await credit(world.edge.url, acct.accountId, 100_000_000);
  return { acct, secret: acct.keys[0]!.secret };
}

describe("dispatch and refunds", () => {
  it("'charged → dispatch 503 → refunded in full before the response; tokens returned to the limiter': GPU worker killed mid-request", async () => {
    const { secret } = await funded();
    world.gpu.setMode("ok");
    const warm = await decide(world.edge.url, secret, { ...DECIDE_BODY, fallback: "never" });
    expect(warm.status).toBe(200);
    const tokens = (warm.json.usage as { input_tokens: number }).input_tokens;
    const tpmAfterOne = tpmRemaining(warm.headers);
    const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents as number;

    world.gpu.setMode("kill");
    const calls0 = world.gpu.calls();
    const r = await decide(world.edge.url, secret, { ...DECIDE_BODY, fallback: "never" });
    expect(world.gpu.calls() - calls0).toBe(1);
    expect(r.status).toBe(503);
    expect(r.json.error).toMatchObject({ type: "unavailable", code: "no_capacity" });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Refunded BEFORE the answer: the balance is already whole when the 503 arrives.
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before);
    // The tpm tokens came back: the 503's own header shows the same remaining as before it.
    expect(tpmRemaining(r.headers)).toBeGreaterThanOrEqual(tpmAfterOne);
    expect(tpmAfterOne).toBe(300_000 - tokens);
    world.gpu.setMode("ok");
    await new Promise((res) => setTimeout(res, 2_100));
  });

  it("'fallback: allow' on an alias uses the fallback when the GPU has no capacity; model svc-fallback-<version>", async () => {
    const { secret } = await funded();
    world.gpu.setMode("overloaded");
    const calls0 = world.fallback.calls();
    // Raw text: a JS object literal would itself move the integer-like label "10" first.
    const raw =
      '{"state":{"ticket":"The parcel arrived broken."},"questions":{"refund":{"type":"check","instructions":"Refund asked?"},' +
      '"mood":{"type":"pick","instructions":"Customer mood?","options":{"calm":null,"angry":null,"10":"ten"}}}}';
    const r = await decide(world.edge.url, secret, raw);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ object: "decision", served_by: "fallback", model: "svc-fallback-1.0.0" });
    expect(world.fallback.calls() - calls0).toBe(2); // one call per question
    const answers = r.json.answers as Record<string, { probabilities?: Record<string, number> }>;
    expect(Object.keys(answers)).toEqual(["refund", "mood"]);
    // Integer-like labels keep option order in the raw JSON (a JS object would move "10" first).
    expect(r.text).toMatch(/"probabilities":\{"calm":[0-9.]+,"angry":[0-9.]+,"10":[0-9.]+\}/);
    const sum = Object.values(answers.mood!.probabilities!).reduce((a, b) => a + b, 0);
    expect(Math.round(sum * 1e4)).toBe(1e4);
    expect((r.json.usage as { charge_micro_cents: number }).charge_micro_cents).toBeGreaterThan(0);
    world.gpu.setMode("ok");
  });

  it.each([
    ["fallback: never", { ...DECIDE_BODY, fallback: "never" }, "live"],
    ["an exact model version", { ...DECIDE_BODY, model: "svc-1.0.0" }, "live"],
    ["a test key", DECIDE_BODY, "test"],
  ] as const)("no fallback for %s → 503 no_capacity, uncharged", async (_name, body, mode) => {
    const { secret } = await funded(mode);
    world.gpu.setMode("overloaded");
    const before = mode === "live" ? (await balanceOf(world.edge.url, secret)).balance_micro_cents : 0;
    const calls0 = world.fallback.calls();
    const r = await decide(world.edge.url, secret, body);
    expect(r.status).toBe(503);
    expect((r.json.error as { code: string }).code).toBe("no_capacity");
    expect(world.fallback.calls()).toBe(calls0);
    if (mode === "live") expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before);
    world.gpu.setMode("ok");
  });

  it("'GPU path and fallback both failed' → 503 upstream_unavailable, refunded", async () => {
    const { secret } = await funded();
    const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents;
    world.gpu.setMode("overloaded");
    world.fallback.setMode("error");
    try {
      const r = await decide(world.edge.url, secret);
      expect(r.status).toBe(503);
      expect((r.json.error as { code: string }).code).toBe("upstream_unavailable");
      expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before);
    } finally {
      world.fallback.setMode("ok");
      world.gpu.setMode("ok");
    }
  });

  it("'for an original served by the fallback … the replay runs again on the normal path, uncharged; id, created and usage stay the original's'", async () => {
    const { secret } = await funded();
    world.gpu.setMode("overloaded");
    const a = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "fb-replay" });
    expect(a.json.served_by).toBe("fallback");
    const bal = (await balanceOf(world.edge.url, secret)).balance_micro_cents;
    world.gpu.setMode("ok");
    await new Promise((res) => setTimeout(res, 2_100));
    const b = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "fb-replay" });
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.json).toMatchObject({
      served_by: "gpu",
      model: ALIASES["svc-1"],
      id: a.json.id,
      created: a.json.created,
    });
    expect(b.json.usage).toEqual(a.json.usage);
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(bal);
  });

  it("'a replay never uses the fallback: if no GPU can serve that version it answers 503 no_capacity', uncharged", async () => {
    const { secret } = await funded();
    world.gpu.setMode("ok");
    const a = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "gpu-replay-down" });
    expect(a.json.served_by).toBe("gpu");
    const bal = (await balanceOf(world.edge.url, secret)).balance_micro_cents;
    world.gpu.setMode("overloaded");
    const calls0 = world.fallback.calls();
    const b = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "gpu-replay-down" });
    expect(b.status).toBe(503);
    expect((b.json.error as { code: string }).code).toBe("no_capacity");
    expect(Number(b.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(world.fallback.calls()).toBe(calls0);
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(bal);
    world.gpu.setMode("ok");
  });

  it("test quota: 'a 503 after admission is refunded in full, including the test quota'", async () => {
    const { acct, secret } = await funded("test");
    const redis = new Redis({ url: stack().UPSTASH_REDIS_REST_URL, token: stack().UPSTASH_REDIS_REST_TOKEN });
    const day = new Date().toISOString().slice(0, 10);
    const quotaKey = `rl:a:${acct.accountId}:test:day:${day}`;
    world.gpu.setMode("ok");
    const ok = await decide(world.edge.url, secret);
    expect(ok.status).toBe(200);
    expect(ok.json.usage).toMatchObject({ charge_micro_cents: 0, unit_price_micro_cents: 0, tier: "test" });
    const used = Number(await redis.get(quotaKey));
    expect(used).toBe((ok.json.usage as { input_tokens: number }).input_tokens);
    world.gpu.setMode("kill");
    const failed = await decide(world.edge.url, secret);
    expect(failed.status).toBe(503);
    expect(Number(await redis.get(quotaKey))).toBe(used);
    world.gpu.setMode("ok");
    await new Promise((res) => setTimeout(res, 2_100));
  });
});
