// Rate limits and quotas on the real stack (Lua check-and-take through the Upstash bridge).
import { Redis } from "@upstash/redis";
import { describe, expect, it } from "vitest";
import { credit, decide, seed, useMoneyEdge } from "../../support/money-harness";
import { stack } from "../../support/stack-db";

const world = useMoneyEdge("ok");

async function priceOfOneCall(): Promise<number> {
  const probe = await seed();
  await credit(world.edge.url, probe.accountId, 100_000_000);
  const r = await decide(world.edge.url, probe.keys[0]!.secret);
  return (r.json.usage as { input_tokens: number }).input_tokens;
}

describe("rate limits and quotas", () => {
  it("'tokens per minute' never over-admits under parallel load: 60 parallel calls, room for exactly 7", async () => {
    const tokens = await priceOfOneCall();
    const acct = await seed({ keys: [{ mode: "live", tpmLimit: tokens * 7 + tokens - 1 }] });
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const results = await Promise.all(
      Array.from({ length: 60 }, () => decide(world.edge.url, acct.keys[0]!.secret)),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(7);
    expect(limited).toHaveLength(53);
    for (const r of limited) {
      expect(r.json.error).toMatchObject({ type: "rate_limited", code: "tokens_per_minute" });
      const ra = Number(r.headers.get("retry-after"));
      expect(ra >= 1 && ra <= 60).toBe(true);
      expect(r.headers.get("ratelimit-policy")).toBe(`"rpm";q=300;w=60, "tpm";q=${tokens * 8 - 1};w=60`);
    }
  });

  it("'concurrency': too many requests in flight → 429 concurrency, retry-after 1; slots are released on every exit path", async () => {
    const acct = await seed();
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const redis = new Redis({ url: stack().UPSTASH_REDIS_REST_URL, token: stack().UPSTASH_REDIS_REST_TOKEN });
    const slots = `rl:a:${acct.accountId}:inflight`;
    // Calls refused by the balance (402) after taking a slot give it back; so does a 200 (checked below).
    const poor = await seed();
    await Promise.all(Array.from({ length: 12 }, () => decide(world.edge.url, poor.keys[0]!.secret)));
    expect(await redis.zcard(`rl:a:${poor.accountId}:inflight`)).toBe(0);
    // 256 calls in flight (the live cap per account) → the next one is refused.
    const far = Date.now() + 60_000;
    for (let i = 0; i < 256; i += 64)
      await redis.zadd(
        slots,
        ...(Array.from({ length: 64 }, (_, j) => ({ score: far, member: `busy-${i + j}` })) as [
          { score: number; member: string },
        ]),
      );
    const r = await decide(world.edge.url, acct.keys[0]!.secret);
    expect(r.status).toBe(429);
    expect(r.json.error).toMatchObject({ type: "rate_limited", code: "concurrency" });
    expect(r.headers.get("retry-after")).toBe("1");
    await redis.del(slots);
    expect((await decide(world.edge.url, acct.keys[0]!.secret)).status).toBe(200);
    expect(await redis.zcard(slots)).toBe(0);
  });

  it("'requests per minute': a key limited to 5 rpm gets 429 requests_per_minute on the 6th call, with real remaining counts", async () => {
    const acct = await seed({ keys: [{ mode: "live", rpmLimit: 5 }] });
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await decide(world.edge.url, acct.keys[0]!.secret);
      seen.push(`${r.status}:${/"rpm";r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1]}`);
      if (i === 5) expect((r.json.error as { code: string }).code).toBe("requests_per_minute");
    }
    expect(seen).toEqual(["200:4", "200:3", "200:2", "200:1", "200:0", "429:0"]);
  });

  it("'a key may carry lower limits of its own, never above the account caps'", async () => {
    const acct = await seed({ rpmLimit: 3, keys: [{ mode: "live", rpmLimit: 100 }] });
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const r = await decide(world.edge.url, acct.keys[0]!.secret);
    expect(r.headers.get("ratelimit-policy")).toMatch(/^"rpm";q=3;w=60/);
  });

  it("'test_daily_quota': 250,000 tokens per UTC day per account, retry-after = seconds to 00:00 UTC", async () => {
    const acct = await seed({ keys: [{ mode: "test" }] });
    const redis = new Redis({ url: stack().UPSTASH_REDIS_REST_URL, token: stack().UPSTASH_REDIS_REST_TOKEN });
    const now = new Date();
    await redis.set(`rl:a:${acct.accountId}:test:day:${now.toISOString().slice(0, 10)}`, 249_990, {
      ex: 3600,
    });
    const r = await decide(world.edge.url, acct.keys[0]!.secret);
    expect(r.status).toBe(429);
    expect(r.json.error).toMatchObject({ type: "rate_limited", code: "test_daily_quota" });
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const expected = Math.ceil((midnight - Date.now()) / 1000);
    expect(Math.abs(Number(r.headers.get("retry-after")) - expected)).toBeLessThanOrEqual(5);
  });

  it("test keys: 30 rpm / 40,000 tpm defaults in the headers, charge 0, tier test", async () => {
    const acct = await seed({ keys: [{ mode: "test" }] });
    const r = await decide(world.edge.url, acct.keys[0]!.secret);
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-policy")).toBe('"rpm";q=30;w=60, "tpm";q=40000;w=60');
    expect(r.json.usage).toMatchObject({ unit_price_micro_cents: 0, charge_micro_cents: 0, tier: "test" });
  });
});
