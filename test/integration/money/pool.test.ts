// GPU pool: a worker that dies mid-request is skipped and the call moves on to the next one, charged once.
import { describe, expect, it } from "vitest";
import { balanceOf, credit, decide, type StandInGpu, seed, useMoneyEdge } from "../../support/money-harness";

const world = useMoneyEdge("ok", { gpus: 2 });

describe("GPU pool", () => {
  it("spreads calls over healthy workers and fails over when one dies mid-request; charged once", async () => {
    const [a, b] = world.gpus as [StandInGpu, StandInGpu];
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const warm = await Promise.all(
      Array.from({ length: 8 }, () => decide(world.edge.url, secret, undefined)),
    );
    expect(warm.every((r) => r.status === 200)).toBe(true);
    expect(a.calls()).toBeGreaterThan(0);
    expect(b.calls()).toBeGreaterThan(0);

    a.setMode("kill");
    const before = (await balanceOf(world.edge.url, secret)).balance_micro_cents as number;
    const results = await Promise.all(Array.from({ length: 6 }, () => decide(world.edge.url, secret)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const charged = results.reduce(
      (s, r) => s + (r.json.usage as { charge_micro_cents: number }).charge_micro_cents,
      0,
    );
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(before - charged);
  });
});
