import { ulid } from "ulid";
import { BATCH_ID_PATTERN, MAX_BATCH_BYTES } from "../../schema/batches";
import { hex } from "../../schema/hex";
import { ApiError } from "../errors";
import type { PageQuery } from "../http/list-query";
import type { Ledger } from "../ledger/stub";
import type { KeyRateLimiter, MoneySubject } from "../limits/key-limits";
import { errorText, logEvent } from "../observability/log";
import type { BatchRow } from "../stores/batch-rows";
import {
  type BatchCapRefusal,
  completeUpload,
  deletePendingBatch,
  insertPendingBatch,
  touchUpload,
} from "../stores/batch-uploads";
import {
  type BatchModeScope,
  deleteFinishedBatch,
  findBatch,
  findBatchByIdempotencyKey,
  cancelBatch as markCancelled,
  listBatches as selectBatches,
} from "../stores/batches";
import type { Database } from "../stores/db";
import { deleteBatchObjects } from "./objects";
import { streamResults } from "./results";
import { storeUpload, tooLarge } from "./upload";

/** Batches queued, running or paused at once per account. */
export const MAX_ACTIVE_BATCHES = 3;
/** Upload bytes kept per account over its batches whose results have not expired. */
export const MAX_STORED_BATCH_BYTES = 1024 * 1024 * 1024;
/** A batch stops running this long after it was created. */
export const BATCH_WINDOW_MS = 24 * 3_600_000;
/** A batch that should be running but has not moved for this long is kicked again by a read. */
export const STALL_MS = 30_000;

/**
 * Who owns a batch: the account, the key id its usage is recorded under, its mode and whose rpm it counts against;
 * `sees`: the batches it may read and manage — an API key only its own mode's (issue 50: a test key never sees or
 * touches a live batch), the console session all of its account's (null).
 */
export interface BatchOwner {
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  subject: MoneySubject;
  sees: BatchModeScope;
}

/** What the batch operations use: the database, the rate limiter, the ledger, the uploads' bucket, the runner's kick. */
export interface BatchDeps {
  db: Database;
  limits: KeyRateLimiter;
  /** A deleted batch's lapsed attempts are refund intents its ledger applies at once (else at its next alarm). */
  ledger: (accountId: string) => Pick<Ledger, "applyRefundIntents">;
  bucket: R2Bucket;
  /** Wakes the account's runner in the background (the answer never waits for it). */
  kick(accountId: string): void;
}

/** An upload as the request brings it: its idempotency key (checked), the lines unread, the declared length. */
export interface BatchUpload {
  idempotencyKey: string | null;
  body: ReadableStream<Uint8Array> | null;
  declaredLength: number | null;
}

/** A created batch, or the one an earlier upload with the same idempotency key and bytes created. */
export interface CreatedBatch {
  batch: BatchRow;
  replayed: boolean;
}

const notFound = (id: string) =>
  new ApiError("batch_not_found", { param: "id", message: `No batch \`${id}\` in this account.` });

const inProgress = () =>
  new ApiError("batches_in_progress", {
    message: `At most ${MAX_ACTIVE_BATCHES} batches may be queued, running or paused at once; wait for one to finish or cancel one.`,
  });

/** SHA-256 (hex) of a body read as a stream, at most MAX_BATCH_BYTES (the idempotent repeat of an upload). */
async function bodyDigest(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  let bytes = 0;
  if (body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_BATCH_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      await writer.write(value);
    }
  }
  await writer.close();
  return hex(await digest.digest);
}

function replayOf(prior: BatchRow, sha256: string, owner: BatchOwner): CreatedBatch {
  // A batch of the other mode is never shown to a key: its idempotency key is simply taken.
  if (prior.bodySha256 !== sha256 || (owner.sees !== null && prior.mode !== owner.sees))
    throw new ApiError("idempotency_key_reused", {
      param: "idempotency-key",
      message: "This idempotency key was used for another upload.",
    });
  return { batch: prior, replayed: true };
}

/**
 * createBatch, after the route read `idempotency-key` (400) and the content type (400): the key's requests per
 * minute (429), then the batch's `uploading` row under the account's lock within its caps (429 active batches,
 * 429 kept bytes) — all before the body is read; then the body line by line (the first invalid line's own error
 * under `lines.<n>`, 413 for too many lines or bytes), then the row completes as `queued` (409 for an idempotency
 * key taken meanwhile, 429 when the real size passes the kept bytes). Whatever fails, the row and every object
 * written go; an upload killed mid-stream leaves its row for the sweep (`sweepBatches`). A repeated idempotency key with the same bytes answers the batch it created.
 */
export async function createBatch(
  deps: BatchDeps,
  owner: BatchOwner,
  upload: BatchUpload,
): Promise<CreatedBatch> {
  const key = upload.idempotencyKey;
  if (key !== null) {
    const prior = await findBatchByIdempotencyKey(deps.db, owner.accountId, key);
    if (prior) return replayOf(prior, await bodyDigest(upload.body), owner);
  }
  const now = Date.now();
  const id = `batch_${ulid(now)}`;
  await deps.limits.takeRequest(owner.subject, id, now);
  // The row first (issue 50): under the account's lock and within its caps, before a byte reaches R2.
  const pending = await insertPendingBatch(
    deps.db,
    {
      id,
      accountId: owner.accountId,
      keyId: owner.keyId,
      mode: owner.mode,
      bytes: Math.min(upload.declaredLength ?? 0, MAX_BATCH_BYTES),
      createdAt: now,
      expiresAt: now + BATCH_WINDOW_MS,
    },
    { active: MAX_ACTIVE_BATCHES, bytes: MAX_STORED_BATCH_BYTES },
  );
  if (pending !== true) {
    await upload.body?.cancel().catch(() => {});
    throw capRefusal(pending);
  }
  const drop = async () => {
    await deleteBatchObjects(deps.bucket, id).catch(() => {});
    await deletePendingBatch(deps.db, id).catch(() => {});
  };
  let row: Awaited<ReturnType<typeof completeUpload>>;
  try {
    const stored = await storeUpload(upload.body, upload.declaredLength, deps.bucket, id, undefined, () =>
      touchUpload(deps.db, id),
    );
    row = await completeUpload(
      deps.db,
      id,
      owner.accountId,
      { ...stored, idempotencyKey: key, bodySha256: stored.sha256 },
      MAX_STORED_BATCH_BYTES,
    );
    if (row === null || typeof row === "string" || "existing" in row) {
      await drop();
      if (row === null)
        throw new ApiError("internal_error", { message: "The upload was interrupted; send it again." });
      if (row === "batch_storage_full") throw capRefusal(row);
      return replayOf(row.existing, stored.sha256, owner);
    }
  } catch (err) {
    await drop();
    throw err;
  }
  deps.kick(owner.accountId);
  return { batch: row, replayed: false };
}

function capRefusal(refusal: BatchCapRefusal): ApiError {
  if (refusal === "batches_in_progress") return inProgress();
  return new ApiError("batch_storage_full", {
    message: `Kept batch uploads may hold at most ${MAX_STORED_BATCH_BYTES / 1024 ** 3} GiB; delete finished batches.`,
  });
}

/** listBatches: the account's batches the owner sees, newest first (a page with a stalled one kicks the runner). */
export async function listBatches(
  deps: BatchDeps,
  owner: BatchOwner,
  query: PageQuery,
): Promise<{ data: BatchRow[]; hasMore: boolean }> {
  const page = await selectBatches(deps.db, owner.accountId, query.limit, query.after, owner.sees);
  const now = Date.now();
  if (page.data.some((b) => stalled(b, now))) deps.kick(owner.accountId);
  return page;
}

async function owned(deps: BatchDeps, owner: BatchOwner, id: string): Promise<BatchRow> {
  // A batch of a mode the caller does not see answers exactly as one that does not exist.
  const row = BATCH_ID_PATTERN.test(id) ? await findBatch(deps.db, owner.accountId, id, owner.sees) : null;
  if (!row) throw notFound(id);
  return row;
}

/** A batch that should be working but has not moved lately (e.g. after a restart) is kicked by this read. */
function stalled(b: BatchRow, now: number): boolean {
  if (b.status === "paused") return b.resumesAt !== null && b.resumesAt <= now;
  return (b.status === "running" || b.status === "queued") && now - b.updatedAt > STALL_MS;
}

/** getBatch (404 unless the account's). */
export async function getBatch(deps: BatchDeps, owner: BatchOwner, id: string): Promise<BatchRow> {
  const row = await owned(deps, owner, id);
  if (stalled(row, Date.now())) deps.kick(owner.accountId);
  return row;
}

/** cancelBatch: queued, running or paused → cancelled (lines in flight finish and are billed); a finished one as it is. */
export async function cancelBatch(deps: BatchDeps, owner: BatchOwner, id: string): Promise<BatchRow> {
  const row = await owned(deps, owner, id);
  const cancelled = await markCancelled(deps.db, row.id, `evt_${ulid()}`);
  if (cancelled) deps.kick(owner.accountId);
  return cancelled ?? (await owned(deps, owner, id));
}

/** deleteBatch: a finished batch's lines and results go at once (its id); an active one is 409 (cancel it first). */
export async function deleteBatch(deps: BatchDeps, owner: BatchOwner, id: string): Promise<string> {
  const row = await owned(deps, owner, id);
  if (row.status === "queued" || row.status === "running" || row.status === "paused")
    throw new ApiError("batch_not_finished", {
      message: `The batch is ${row.status}: cancel it first (POST /v1/batches/${row.id}/cancel), then delete it.`,
    });
  if (!(await deleteFinishedBatch(deps.db, owner.accountId, row.id))) throw notFound(row.id);
  await deleteBatchObjects(deps.bucket, row.id);
  if (row.mode === "live")
    await deps
      .ledger(owner.accountId)
      .applyRefundIntents(owner.accountId)
      .catch((err: unknown) =>
        logEvent("warn", "batch_refund_intents_deferred", { batch_id: row.id, error: errorText(err) }),
      );
  return row.id;
}

/** getBatchResults: the finished lines as JSONL, in input order, as a stream. */
export async function batchResults(
  deps: BatchDeps,
  owner: BatchOwner,
  id: string,
): Promise<ReadableStream<Uint8Array>> {
  const row = await owned(deps, owner, id);
  return streamResults(deps.db, deps.bucket, row);
}
