// Issue 50 item 2, "batches ignore a key's own limits": a key created with `tpm_limit` 1,000 gets 429
// `tokens_per_minute` on decides, but its batch lines took nothing from its windows and drained the balance.
// "Batch lines must respect the key's tokens-per-minute limit (they may wait for it, at batch priority, rather
// than fail), and the account's operator caps likewise." The runner here runs on an injected clock.

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { BatchRunnerDeps } from "../../../workers/batches/runner";
import { runBatchSlice } from "../../../workers/batches/runner";
import type { Env } from "../../../workers/env";
import { buildServices } from "../../../workers/services";
import { batchProgress } from "../../../workers/stores/batch-runs";
import { decideBody, line, quietCall, quietUpload, runnerDeps } from "../../support/batch-runner";
import { fixedCheckEngine } from "../../support/calibrations";
import { signIn } from "../../support/console";
import { seed } from "../../support/worker-http";

const FUNDS = 100_000_000;

/** Tokens each line takes (a line's usage.input_tokens, read from a finished line). */
async function lineTokens(deps: BatchRunnerDeps, batchId: string): Promise<number> {
  const b = (await batchProgress(deps.db, batchId))!;
  return b.inputTokens / (b.done || 1);
}

/** A clock the test moves: lines are counted in the minute it says. */
function clock(start = Date.now()) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("issue 50 item 2: batch lines respect the key's tokens per minute and the account's caps", () => {
  it("a key with a small tpm_limit: lines within one minute never exceed it; the rest wait (not failed, not charged) and run as the window allows", async () => {
    const s = await signIn();
    const res = await quietCall("POST", "/v1/console/keys", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { name: "capped", mode: "live", tpm_limit: 1_000 },
    });
    const key = (await res.json()) as { secret: string };
    await buildServices(env as unknown as Env)
      .ledger(s.accountId)
      .credit({ account_id: s.accountId, payment_id: `pay_${s.accountId}`, amount_micro_cents: FUNDS });
    // The decide path refuses this key past 1,000 tokens a minute; 100 lines of ~26 tokens each (the same body).
    const id = await quietUpload(
      key.secret,
      Array.from({ length: 100 }, (_, n) => line(n, decideBody(0))),
    );
    const t = clock();
    const deps = runnerDeps(fixedCheckEngine(0.7), { now: t.now });
    const next = await runBatchSlice(deps, s.accountId, { failures: 0 }, 20_000);
    const first = (await batchProgress(deps.db, id))!;
    const per = await lineTokens(deps, id);
    expect(per).toBeGreaterThan(0);
    // Within the first minute: at most 1,000 tokens of lines, and the runner waits for the window (not paused).
    expect(first.inputTokens).toBeLessThanOrEqual(1_000);
    expect(first.done).toBe(Math.floor(1_000 / per));
    expect(first).toMatchObject({ status: "running", failed: 0 });
    expect(next).not.toBeNull();
    expect(next!).toBeGreaterThan(t.now());
    expect(next!).toBeLessThanOrEqual(t.now() + 60_000);
    // Nothing was charged for the lines that wait.
    const balance = await deps.ledger(s.accountId).balance();
    expect(balance.balance_micro_cents).toBe(FUNDS - first.chargeMicroCents);
    // A second slice in the same minute runs nothing more.
    await runBatchSlice(deps, s.accountId, { failures: 0 }, 20_000);
    expect((await batchProgress(deps.db, id))!.done).toBe(first.done);
    // A minute later the window allows as many again.
    t.advance(60_001);
    await runBatchSlice(deps, s.accountId, { failures: 0 }, 20_000);
    const second = (await batchProgress(deps.db, id))!;
    expect(second.done).toBe(2 * first.done);
    expect(second.inputTokens - first.inputTokens).toBeLessThanOrEqual(1_000);
  });

  it("the account's operator cap (tpm) binds a console batch too", async () => {
    const a = await seed({ keys: [{ mode: "live" }] });
    await buildServices(env as unknown as Env)
      .ledger(a.accountId)
      .credit({ account_id: a.accountId, payment_id: `pay_${a.accountId}`, amount_micro_cents: FUNDS });
    const t = clock();
    const deps = runnerDeps(fixedCheckEngine(0.7), { now: t.now });
    await deps.db.sql().query("UPDATE accounts SET tpm_limit = 500 WHERE id = $1", [a.accountId]);
    const id = await quietUpload(
      a.keys[0]!.secret,
      Array.from({ length: 20 }, (_, n) => line(n)),
    );
    await runBatchSlice(deps, a.accountId, { failures: 0 }, 20_000);
    const b = (await batchProgress(deps.db, id))!;
    expect(b.done).toBeGreaterThan(0);
    expect(b.inputTokens).toBeLessThanOrEqual(500);
    expect(b.status).toBe("running");
  });

  it("a line larger than the key's whole tpm can never fit: it finishes with the 429 tokens_per_minute a decide would answer, uncharged", async () => {
    const s = await signIn();
    const res = await quietCall("POST", "/v1/console/keys", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { name: "tiny", mode: "test", tpm_limit: 10 },
    });
    const key = (await res.json()) as { secret: string };
    const id = await quietUpload(key.secret, [line(0)]);
    const deps = runnerDeps(fixedCheckEngine(0.7));
    await runBatchSlice(deps, s.accountId, { failures: 0 }, 20_000);
    const b = (await batchProgress(deps.db, id))!;
    expect(b).toMatchObject({ status: "completed", done: 0, failed: 1, chargeMicroCents: 0 });
    const results = await quietCall("GET", `/v1/batches/${id}/results`, { bearer: key.secret });
    const [first] = (await results.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(first).toMatchObject({ custom_id: "t-0", status: 429, error: { code: "tokens_per_minute" } });
  });
});
