// Issue 50 item 3, "a charge kept without a result": a line's debit was refunded only when that same line was
// claimed again. An attempt that took its debit and died before its result was written (or whose write failed
// and did not land) is never claimed again once the batch is cancelled, expires or is deleted. "When a batch
// finishes in any way, settle every unfinished line's lapsed attempt": the balance then moves by exactly the
// batch's `usage.charge_micro_cents`, and the lapsed attempt can never charge later.
import { describe, expect, it } from "vitest";
import { claimLine, openChunk } from "../../../workers/stores/batch-lines";
import { batchProgress } from "../../../workers/stores/batch-runs";
import { line, newAccount, quietCall, quietUpload, runnerDeps, runToEnd } from "../../support/batch-runner";
import { fixedCheckEngine } from "../../support/calibrations";

const FUNDS = 10_000_000;

/** A live batch whose line 0 holds an attempt that took its debit and died before its result was written. */
async function batchWithLapsedAttempt(lines = 2) {
  const a = await newAccount("live", FUNDS);
  const id = await quietUpload(
    a.secret,
    Array.from({ length: lines }, (_, n) => line(n)),
  );
  const deps = runnerDeps(fixedCheckEngine(0.6));
  await openChunk(deps.db, id, 0, 0, lines);
  const crashed = `req_01JDLAPSED${crypto.randomUUID().replace(/-/g, "").slice(0, 15).toUpperCase()}`;
  await claimLine(deps.db, id, 0, crashed);
  const debit = await deps.ledger(a.accountId).debit({
    request_id: crashed,
    account_id: a.accountId,
    tokens: 50,
    amount_micro_cents: 50_000,
    test: false,
  });
  expect(debit.ok).toBe(true);
  return { ...a, id, deps, crashed };
}

const balance = async (deps: ReturnType<typeof runnerDeps>, accountId: string) =>
  (await deps.ledger(accountId).balance()).balance_micro_cents;

describe("issue 50 item 3: when a batch finishes in any way, every unfinished line's lapsed attempt is settled", () => {
  it("cancelled: the crashed attempt's debit is refunded once; the balance moves by exactly usage.charge_micro_cents", async () => {
    const b = await batchWithLapsedAttempt();
    const cancelled = await quietCall("POST", `/v1/batches/${b.id}/cancel`, { bearer: b.secret });
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
    await runToEnd(b.deps, b.accountId);
    await runToEnd(b.deps, b.accountId); // settling again refunds nothing more
    const row = (await batchProgress(b.deps.db, b.id))!;
    expect(row.status).toBe("cancelled");
    expect(await balance(b.deps, b.accountId)).toBe(FUNDS - row.chargeMicroCents);
    // The lapsed attempt can never charge again.
    expect(
      await b.deps.ledger(b.accountId).debit({
        request_id: b.crashed,
        account_id: b.accountId,
        tokens: 1,
        amount_micro_cents: 1,
        test: false,
      }),
    ).toEqual({ ok: false, superseded: true });
  });

  it("expired: the lapsed attempt is refunded when the runner stops the batch", async () => {
    const b = await batchWithLapsedAttempt();
    await b.deps.db
      .sql()
      .query("UPDATE batches SET expires_at = now() - interval '1 second' WHERE id = $1", [b.id]);
    await runToEnd(b.deps, b.accountId);
    const row = (await batchProgress(b.deps.db, b.id))!;
    expect(row).toMatchObject({ status: "expired", chargeMicroCents: 0 });
    expect(await balance(b.deps, b.accountId)).toBe(FUNDS);
  });

  it("deleted before the runner came back: the refund is owed through the ledger's refund intents, applied once", async () => {
    const b = await batchWithLapsedAttempt();
    await quietCall("POST", `/v1/batches/${b.id}/cancel`, { bearer: b.secret });
    const del = await quietCall("DELETE", `/v1/batches/${b.id}`, { bearer: b.secret });
    expect(del.status).toBe(200);
    // Whatever the delete applied at once, the ledger's own sweep finds nothing more to refund.
    await b.deps.ledger(b.accountId).applyRefundIntents(b.accountId);
    await b.deps.ledger(b.accountId).applyRefundIntents(b.accountId);
    expect(await balance(b.deps, b.accountId)).toBe(FUNDS);
  });

  it("lines in flight at the cancel finish and are billed; only the lapsed attempt is refunded", async () => {
    const a = await newAccount("live", FUNDS);
    const id = await quietUpload(
      a.secret,
      [0, 1, 2, 3].map((n) => line(n)),
    );
    const good = fixedCheckEngine(0.6);
    let cancelled = false;
    const engine = {
      dispatch: async (req: Parameters<typeof good.dispatch>[0]) => {
        if (!cancelled) {
          cancelled = true;
          await quietCall("POST", `/v1/batches/${id}/cancel`, { bearer: a.secret });
        }
        return good.dispatch(req);
      },
    };
    const deps = runnerDeps(engine, { linesAtOnce: 2 });
    await openChunk(deps.db, id, 0, 0, 4);
    const crashed = "req_01JDLAPSEDINFLIGHT00000000";
    await claimLine(deps.db, id, 3, crashed);
    await deps.ledger(a.accountId).debit({
      request_id: crashed,
      account_id: a.accountId,
      tokens: 50,
      amount_micro_cents: 50_000,
      test: false,
    });
    await runToEnd(deps, a.accountId);
    const row = (await batchProgress(deps.db, id))!;
    expect(row).toMatchObject({ status: "cancelled", done: 2 });
    expect(row.chargeMicroCents).toBeGreaterThan(0);
    expect(await balance(deps, a.accountId)).toBe(FUNDS - row.chargeMicroCents);
  });
});
