// The soak harness's short run (issue 19): 1,000 mixed requests at npm start's stack while each fault happens
// once (GPU worker killed and restarted, Redis stopped and restarted empty, Postgres stalled, the fallback
// failing), with a 60-line live batch (issue 42) running through them, then the accounting. `npm run soak` is the 10,000-request run (docs/reliability.md).
import { describe, expect, it } from "vitest";
import { runSoak, type SoakResult } from "../../../soak/run";

// On the local PGlite, or on the real PostgreSQL that REAL_DATABASE_URL names. It runs only when asked
// (SVC_SOAK=1: `npm run test:soak`, and `.ci/run`'s PostgreSQL step): its ~4 minutes are fixed costs and the
// model's pace, not the code a contributor changes, so `npm test` skips it (issue 54) and CI runs it once, on
// PostgreSQL 15.
const databaseUrl = process.env.REAL_DATABASE_URL;
const asked = process.env.SVC_SOAK === "1";

describe.skipIf(!asked)("soak: money is never lost under load and faults", () => {
  let result: SoakResult;

  const requests = Number(process.env.SOAK_REQUESTS ?? 1_000);

  it("'charge_micro_cents … Debited from the balance': per account, balance = opening + credits − Σ charge of 200 answers that were not replays; ledger journal = Postgres; roll-ups = events", async () => {
    result = await runSoak({
      requests,
      concurrency: 12,
      seed: 19,
      databaseUrl,
    });
    expect(result.check.failures, result.report).toEqual([]);
    expect(result.check.warnings, result.report).toEqual([]);
    expect(result.check.ok).toBe(true);
    expect(result.summary.requests).toBeGreaterThanOrEqual(requests);
  }, 600_000);

  it("'a failover forgets records': every fault met traffic, and the mix holds replays, 402s, 429s, 409s and 503s", () => {
    expect(result, "the run above did not finish").toBeDefined();
    const faults = Object.fromEntries(result.summary.faults.map((f) => [f.name, f.requests]));
    for (const name of ["gpu-restart", "redis-restart", "postgres-stall", "fallback-fail"])
      expect(faults[name], name).toBeGreaterThan(0);
    const mix = Object.fromEntries(result.summary.mix.map((m) => [m.answer, m.count]));
    for (const answer of [
      "200 live",
      "200 test",
      "200 replay",
      "402 insufficient_balance",
      "409 idempotency_in_progress",
      "409 idempotency_key_reused",
      "422 unknown_field",
      "503 no_capacity",
    ])
      expect(mix[answer] ?? 0, answer).toBeGreaterThan(0);
    expect(
      Object.keys(mix).some((a) => a.startsWith("429 ")),
      "a rate limit",
    ).toBe(true);
    expect(result.summary.servedBy.gpu ?? 0).toBeGreaterThan(0);
    expect(result.summary.servedBy.fallback ?? 0).toBeGreaterThan(0);
  });

  it("'crash-safe': the batch uploaded as the faults began completed, every line answered once, its charges in the balance above", () => {
    expect(result, "the run above did not finish").toBeDefined();
    expect(result.summary.batches).toMatchObject([{ status: "completed", total: 60, done: 60, failed: 0 }]);
    const rich = result.check.accounts.find((a) => a.name === "rich");
    expect(rich?.batchLines).toBe(60);
    expect(rich?.batchCharged).toBe(result.summary.batches[0]?.charge);
    expect(rich?.batchCharged ?? 0).toBeGreaterThan(0);
  });
});
