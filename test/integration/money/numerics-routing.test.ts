// Spec, Replay details 1: "For a GPU original, answers are recomputed on the original exact version and are
// byte-identical." Bytes depend on the worker's numerics class, so a replay goes only to a worker advertising
// the original's version on the original's class; with none up: 503 `no_capacity` with `retry-after`.
import { describe, expect, it } from "vitest";
import { balanceOf, credit, decide, type StandInGpu, seed, useMoneyEdge } from "../../support/money-harness";

const CPU = "cpu-haswell-t1-nlc3.22.1";
const GPU = "cuda-nvidia-l4-nlc3.22.1";
const world = useMoneyEdge("ok", { gpus: 2, numericsClasses: [CPU, GPU] });

describe("a pool of two numerics classes routes replays to the original's class", () => {
  it("replay with the original's class down → 503 no_capacity (the other class never asked); back up → the same decision, charged once", async () => {
    const [cpu, gpu] = world.gpus as [StandInGpu, StandInGpu];
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(world.edge.url, acct.accountId, 100_000_000);
    const key = { "idempotency-key": `numerics-${Date.now()}` };

    const original = await decide(world.edge.url, secret, undefined, key);
    expect(original.status).toBe(200);
    const servedBy = cpu.calls() === 1 ? cpu : gpu;
    const other = servedBy === cpu ? gpu : cpu;
    const otherCalls = other.calls();

    servedBy.setMode("kill");
    const refused = await decide(world.edge.url, secret, undefined, key);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: { type: "unavailable", code: "no_capacity" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(other.calls()).toBe(otherCalls);

    // A new request is not pinned: the other class serves it.
    const fresh = await decide(world.edge.url, secret);
    expect(fresh.status).toBe(200);
    expect(other.calls()).toBe(otherCalls + 1);

    servedBy.setMode("ok");
    await new Promise((r) => setTimeout(r, 2_100)); // the pool's back-off, then a /readyz probe
    const replay = await decide(world.edge.url, secret, undefined, key);
    expect(replay.status).toBe(200);
    expect(replay.json.id).toBe(original.json.id);
    expect(replay.json.answers).toEqual(original.json.answers);
    expect(other.calls()).toBe(otherCalls + 1);
    const charged = [original, fresh].map(
      (r) => (r.json.usage as { charge_micro_cents: number }).charge_micro_cents,
    );
    expect((await balanceOf(world.edge.url, secret)).balance_micro_cents).toBe(
      100_000_000 - charged[0]! - charged[1]!,
    );
  });
});
