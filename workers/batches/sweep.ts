import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { expiredResults } from "../stores/batch-results";
import { accountsWithBatchWork } from "../stores/batch-runs";
import { deleteFinishedBatch } from "../stores/batches";
import { database } from "../stores/db";
import { deleteBatchObjects } from "./objects";

/**
 * The cron's part for batches: delete those whose results are past their 30 days (objects first, then the rows),
 * and kick the runner of every account with a batch to run or an event to deliver — the safety net when a
 * runner's alarm was lost.
 */
export async function sweepBatches(env: Env): Promise<void> {
  const db = database(env);
  try {
    for (const b of await expiredResults(db, 100)) {
      await deleteBatchObjects(env.BATCHES, b.id);
      await deleteFinishedBatch(db, b.accountId, b.id);
    }
    for (const accountId of await accountsWithBatchWork(db)) await kickRunner(env, accountId);
  } catch (err) {
    logEvent("error", "batch_sweep_failed", { error: errorText(err) });
  }
}
