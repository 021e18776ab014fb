import { decodeTime } from "ulid";
import { BATCH_ID_PATTERN } from "../../schema/batches";
import { kickRunner } from "../clients/runner";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { expiredResults } from "../stores/batch-results";
import { accountsWithBatchWork } from "../stores/batch-runs";
import { batchIdsWithRows, deletePendingBatch, staleUploads } from "../stores/batch-uploads";
import { deleteFinishedBatch } from "../stores/batches";
import { type Database, database } from "../stores/db";
import { BATCHES_ROOT, deleteBatchObjects } from "./objects";

/** An `uploading` row untouched this long (no chunk written) is an upload that died mid-stream. */
export const UPLOAD_IDLE_MS = 15 * 60_000;
/** Objects of a batch id with no row are left alone this long after the id was made (an upload's first moments). */
export const ORPHAN_GRACE_MS = 3_600_000;
/** Pages of batch prefixes (1,000 each) one cron run looks at for orphans. */
const ORPHAN_PAGES = 10;

/**
 * The cron's part for batches: delete those whose results are past their 30 days (objects first, then the rows),
 * uploads that died mid-stream (their objects and `uploading` row) and objects no row points to (issue 50), and
 * kick the runner of every account with a batch to run or settle or an event to deliver — the safety net when a
 * runner's alarm was lost. (The bucket's lifecycle rule, docs/deploy.md, is the last net under all of this.)
 */
export async function sweepBatches(env: Env): Promise<void> {
  const db = database(env);
  try {
    for (const b of await expiredResults(db, 100)) {
      await deleteBatchObjects(env.BATCHES, b.id);
      await deleteFinishedBatch(db, b.accountId, b.id);
    }
    for (const id of await staleUploads(db, UPLOAD_IDLE_MS, 100)) {
      await deleteBatchObjects(env.BATCHES, id);
      await deletePendingBatch(db, id);
      logEvent("warn", "batch_upload_abandoned", { batch_id: id });
    }
    await sweepOrphans(db, env.BATCHES, Date.now());
    for (const accountId of await accountsWithBatchWork(db)) await kickRunner(env, accountId);
  } catch (err) {
    logEvent("error", "batch_sweep_failed", { error: errorText(err) });
  }
}

/**
 * Objects under `batches/<id>/` whose batch has no row, once the id is older than the grace period: a result chunk
 * a runner wrote as its batch was deleted, an upload whose row was lost. Listed a page of ids at a time.
 */
export async function sweepOrphans(db: Database, bucket: R2Bucket, now: number): Promise<number> {
  let cursor: string | undefined;
  let swept = 0;
  for (let page = 0; page < ORPHAN_PAGES; page++) {
    const listed = await bucket.list({ prefix: BATCHES_ROOT, delimiter: "/", cursor });
    const old = listed.delimitedPrefixes
      .map((p) => p.slice(BATCHES_ROOT.length, -1))
      .filter(
        (id) => BATCH_ID_PATTERN.test(id) && decodeTime(id.slice("batch_".length)) < now - ORPHAN_GRACE_MS,
      );
    const rows = await batchIdsWithRows(db, old);
    for (const id of old.filter((i) => !rows.has(i))) {
      await deleteBatchObjects(bucket, id);
      swept++;
    }
    if (!listed.truncated) break;
    cursor = listed.cursor;
  }
  if (swept > 0) logEvent("warn", "batch_orphans_deleted", { batches: swept });
  return swept;
}
