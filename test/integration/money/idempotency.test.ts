// Idempotency on the real stack (Redis through the Upstash bridge).
import { decodeTime } from "ulid";
import { describe, expect, it } from "vitest";
import { balanceOf, credit, DECIDE_BODY, decide, seed, useMoneyEdge } from "../../support/money-harness";
import { upstashBridge } from "../../support/stack-db";

const world = useMoneyEdge("slow");

async function funded(mode: "live" | "test" = "live") {
  const acct = await seed({ keys: [{ mode }] });
  if (mode === "live") await credit(world.edge.url, acct.accountId, 100_000_000);
  return { acct, secret: acct.keys[0]!.secret };
}

describe("idempotency record", () => {
  it("'running → same key arrives → 409 idempotency_in_progress'; completed + same body → replay: one key fired 20 times in parallel → one run, one charge", async () => {
    world.gpu.setMode("slow");
    const { secret } = await funded();
    const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents as number;
    const calls0 = world.gpu.calls();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "same-20" }),
      ),
    );
    const fresh = results.filter((r) => r.status === 200 && !r.headers.get("idempotent-replayed"));
    const replays = results.filter(
      (r) => r.status === 200 && r.headers.get("idempotent-replayed") === "true",
    );
    const busy = results.filter((r) => r.status === 409);
    expect(fresh).toHaveLength(1);
    expect(fresh.length + replays.length + busy.length).toBe(20);
    for (const b of busy) {
      expect((b.json.error as { code: string }).code).toBe("idempotency_in_progress");
      expect(b.headers.get("retry-after")).toBe("1");
    }
    const charge = (fresh[0]!.json.usage as { charge_micro_cents: number }).charge_micro_cents;
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before - charge);
    // Replays recompute on the GPU (uncharged); no replay ran a second charged call.
    expect(world.gpu.calls() - calls0).toBe(1 + replays.length);
  });

  it("'completed, same key, same body → original response with idempotent-replayed: true; nothing charged; x-request-id names the replay'", async () => {
    world.gpu.setMode("ok");
    const { secret } = await funded();
    const a = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-replay" });
    expect(a.status).toBe(200);
    const bal = (await balanceOf(world.edge.url, secret)).balance_micro_cents;
    // Same canonical body with different whitespace.
    const b = await decide(world.edge.url, secret, JSON.stringify(DECIDE_BODY, null, 2), {
      "idempotency-key": "k-replay",
    });
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.json.id).toBe(a.json.id);
    expect(b.json.created).toBe(a.json.created);
    // 'created' is the time of the id's ULID, in seconds.
    expect(a.json.created).toBe(Math.floor(decodeTime(String(a.json.id).slice(4)) / 1000));
    expect(b.json.usage).toEqual(a.json.usage);
    expect(b.text).toBe(a.text);
    expect(b.headers.get("x-request-id")).not.toBe(a.json.id);
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(bal);
  });

  it("'completed, same key, different body → 409 idempotency_key_reused' (reordered keys count as different)", async () => {
    world.gpu.setMode("ok");
    const { secret } = await funded();
    await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-reuse" });
    const reordered = { questions: DECIDE_BODY.questions, state: DECIDE_BODY.state };
    const r = await decide(world.edge.url, secret, reordered, { "idempotency-key": "k-reuse" });
    expect(r.status).toBe(409);
    expect(r.json.error).toMatchObject({ type: "conflict", code: "idempotency_key_reused" });
  });

  it("'running → 5xx → failed, charge refunded; a retry with the same key runs normally and is charged once'", async () => {
    const { secret } = await funded();
    const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents as number;
    world.gpu.setMode("kill");
    const failed = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-fail" });
    expect(failed.status).toBe(503);
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before);
    world.gpu.setMode("ok");
    // The pool skips a failed worker for its back-off; wait it out.
    await new Promise((r) => setTimeout(r, 2_100));
    const retry = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-fail" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const charge = (retry.json.usage as { charge_micro_cents: number }).charge_micro_cents;
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before - charge);
  });

  it("'402 keeps no record; a retry runs as a new request'", async () => {
    world.gpu.setMode("ok");
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    const poor = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-402" });
    expect(poor.status).toBe(402);
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const ok = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-402" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
  });

  it("'while the idempotency store is unreachable, a decide request carrying an idempotency key gets 503 billing_unavailable'; unkeyed live calls still run (billed by the ledger), test keys wait", async () => {
    world.gpu.setMode("ok");
    const { secret } = await funded();
    const { secret: testSecret } = await funded("test");
    await upstashBridge("stop");
    try {
      const keyed = await decide(world.edge.url, secret, DECIDE_BODY, { "idempotency-key": "k-down" });
      expect(keyed.status).toBe(503);
      expect(keyed.json.error).toMatchObject({ type: "unavailable", code: "billing_unavailable" });
      expect(Number(keyed.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents as number;
      const unkeyed = await decide(world.edge.url, secret);
      expect(unkeyed.status).toBe(200);
      const charge = (unkeyed.json.usage as { charge_micro_cents: number }).charge_micro_cents;
      expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before - charge);
      const test = await decide(world.edge.url, testSecret);
      expect(test.status).toBe(503);
      expect((test.json.error as { code: string }).code).toBe("billing_unavailable");
    } finally {
      await upstashBridge("start");
    }
  });
});
