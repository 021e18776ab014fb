import { errorText, logEvent } from "../observability/log";
import { clearSettled, finishedBatchesToSettle, lapseUnfinishedLines } from "../stores/batch-lines";
import type { LineDeps } from "./line";

/**
 * Issue 50, "a charge kept without a result": a line's lapsed attempt (it took its debit, then crashed before its
 * result was written, or its write failed and did not land) was settled only when the same line was claimed
 * again, which never happens once its batch is cancelled, expires or fails. The runner, which alone runs lines,
 * settles them here when it holds no line of its own in flight: each finished batch's unfinished lines let go of
 * their attempts (a late commit is then refused and refunds itself), the ledger settles every such attempt once
 * (refunded if it was debited; marked settled, so it can never debit later), then the lines forget them.
 * Idempotent: a crash anywhere repeats a settle that refunds nothing twice. (A deleted batch's attempts become
 * the ledger's refund intents in the delete itself: `deleteFinishedBatch`.)
 */
export async function settleFinishedBatches(
  deps: Pick<LineDeps, "db" | "ledger">,
  accountId: string,
): Promise<number> {
  let settled = 0;
  for (const b of await finishedBatchesToSettle(deps.db, accountId)) {
    const owed = [...new Set((await lapseUnfinishedLines(deps.db, b.id)).flatMap((l) => l.owed))];
    if (owed.length === 0) continue;
    if (b.mode === "live") {
      const out = await deps.ledger(accountId).settleLapsed(owed);
      settled += out.refunded.length;
      if (out.refunded.length > 0)
        logEvent("info", "batch_lapsed_refunded", { batch_id: b.id, refunded: out.refunded.length });
    }
    await clearSettled(deps.db, b.id, owed);
  }
  return settled;
}

/** settleFinishedBatches that never fails its caller: false when it must be tried again. */
export async function trySettleFinishedBatches(
  deps: Pick<LineDeps, "db" | "ledger">,
  accountId: string,
): Promise<boolean> {
  try {
    await settleFinishedBatches(deps, accountId);
    return true;
  } catch (err) {
    logEvent("warn", "batch_settle_failed", { account_id: accountId, error: errorText(err) });
    return false;
  }
}
