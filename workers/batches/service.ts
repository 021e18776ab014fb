import type { Context } from "hono";
import { ulid } from "ulid";
import { BATCH_CONTENT_TYPES, BATCH_ID_PATTERN, MAX_BATCH_BYTES } from "../../schema/batches";
import { hex } from "../../schema/signing";
import { kickRunner } from "../clients/runner";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";
import { ApiError } from "../errors";
import { IDEMPOTENCY_KEY_MAX } from "../http/front-door";
import { intParam, queryOf } from "../http/list-query";
import { validateTokenHeader } from "../http/token-header";
import type { MoneySubject } from "../limits/key-limits";
import type { BatchRow } from "../stores/batch-rows";
import {
  activeBatchCount,
  cancelBatch,
  deleteFinishedBatch,
  findBatch,
  findBatchByIdempotencyKey,
  insertBatch,
  listBatches,
} from "../stores/batches";
import { batchJson } from "./json";
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

/** Who owns a batch: the account, the key id its usage is recorded under, its mode and whose rpm it counts against. */
export interface BatchOwner {
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  subject: MoneySubject;
}

const notFound = (id: string) =>
  new ApiError("batch_not_found", { param: "id", message: `No batch \`${id}\` in this account.` });

const inProgress = () =>
  new ApiError("batches_in_progress", {
    message: `At most ${MAX_ACTIVE_BATCHES} batches may be queued, running or paused at once; wait for one to finish or cancel one.`,
  });

/** `application/jsonl` or `application/x-ndjson`, with an optional UTF-8 charset. */
function checkBatchContentType(value: string | undefined): void {
  const [type, ...params] = (value ?? "").split(";");
  const charset = params
    .map((p) => p.split("="))
    .find(([k]) => k?.trim().toLowerCase() === "charset")?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, "$1")
    .toLowerCase();
  const ok =
    (BATCH_CONTENT_TYPES as readonly string[]).includes(type?.trim().toLowerCase() ?? "") &&
    (charset === undefined || charset === "utf-8" || charset === "utf8");
  if (!ok)
    throw new ApiError("unsupported_media_type", {
      param: "content-type",
      message: "Send the lines as `content-type: application/jsonl` (or application/x-ndjson).",
    });
}

function declaredLength(c: Context<AppEnv>): number | null {
  const v = c.req.header("content-length")?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
}

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

function replayOf(c: Context<AppEnv>, prior: BatchRow, sha256: string): Response {
  if (prior.bodySha256 !== sha256)
    throw new ApiError("idempotency_key_reused", {
      param: "idempotency-key",
      message: "This idempotency key was used for another upload.",
    });
  c.header("idempotent-replayed", "true");
  return c.json(batchJson(prior), 201);
}

/**
 * createBatch, in order: `idempotency-key` (400), content type (400), the key's requests per minute (429), the
 * account's active batches (429) — all before the body is read; then the body line by line (the first invalid
 * line's own error under `lines.<n>`, 413 for too many lines or bytes), then the caps once more under a lock
 * (429 / 409). A repeated idempotency key with the same bytes answers the batch it created.
 */
export async function createBatchResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const key =
    validateTokenHeader(c.req.header("idempotency-key"), "idempotency-key", IDEMPOTENCY_KEY_MAX) ?? null;
  checkBatchContentType(c.req.header("content-type"));
  if (key !== null) {
    const prior = await findBatchByIdempotencyKey(c.var.db, owner.accountId, key);
    if (prior) return replayOf(c, prior, await bodyDigest(c.req.raw.body));
  }
  const now = Date.now();
  const id = `batch_${ulid(now)}`;
  await c.var.limits.takeRequest(owner.subject, id, now);
  if ((await activeBatchCount(c.var.db, owner.accountId)) >= MAX_ACTIVE_BATCHES) {
    await c.req.raw.body?.cancel().catch(() => {});
    throw inProgress();
  }
  const upload = await storeUpload(c.req.raw.body, declaredLength(c), c.env.BATCHES, id);
  const row = await insertBatch(
    c.var.db,
    {
      id,
      accountId: owner.accountId,
      keyId: owner.keyId,
      mode: owner.mode,
      model: upload.model,
      chunkLines: upload.chunkLines,
      total: upload.total,
      bytes: upload.bytes,
      idempotencyKey: key,
      bodySha256: upload.sha256,
      createdAt: now,
      expiresAt: now + BATCH_WINDOW_MS,
    },
    { active: MAX_ACTIVE_BATCHES, bytes: MAX_STORED_BATCH_BYTES },
  ).catch(async (err) => {
    await deleteBatchObjects(c.env.BATCHES, id).catch(() => {});
    throw err;
  });
  if (typeof row === "string" || "existing" in row) {
    await deleteBatchObjects(c.env.BATCHES, id);
    if (row === "batches_in_progress") throw inProgress();
    if (row === "batch_storage_full")
      throw new ApiError("batch_storage_full", {
        message: `Kept batch uploads may hold at most ${MAX_STORED_BATCH_BYTES / 1024 ** 3} GiB; delete finished batches.`,
      });
    return replayOf(c, row.existing, upload.sha256);
  }
  inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(batchJson(row), 201);
}

/** listBatches: newest first, `limit` 1–100 (default 20), `starting_after` a batch id. */
export async function listBatchesResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const q = queryOf(c, ["limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 100, 20);
  const after = q.get("starting_after") ?? null;
  if (after !== null && !BATCH_ID_PATTERN.test(after))
    throw new ApiError("invalid_value", {
      param: "starting_after",
      message: "`starting_after` is a batch id.",
    });
  const page = await listBatches(c.var.db, owner.accountId, limit, after);
  const now = Date.now();
  if (page.data.some((b) => stalled(b, now))) inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json({ object: "list" as const, data: page.data.map(batchJson), has_more: page.hasMore }, 200);
}

async function owned(c: Context<AppEnv>, owner: BatchOwner): Promise<BatchRow> {
  const id = c.req.param("id") ?? "";
  const row = BATCH_ID_PATTERN.test(id) ? await findBatch(c.var.db, owner.accountId, id) : null;
  if (!row) throw notFound(id);
  return row;
}

/** A batch that should be working but has not moved lately (e.g. after a restart) is kicked by this read. */
function stalled(b: BatchRow, now: number): boolean {
  if (b.status === "paused") return b.resumesAt !== null && b.resumesAt <= now;
  return (b.status === "running" || b.status === "queued") && now - b.updatedAt > STALL_MS;
}

/** getBatch. */
export async function getBatchResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const row = await owned(c, owner);
  if (stalled(row, Date.now())) inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(batchJson(row), 200);
}

/** cancelBatch: queued, running or paused → cancelled (lines in flight finish and are billed); a finished one as it is. */
export async function cancelBatchResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const row = await owned(c, owner);
  const cancelled = await cancelBatch(c.var.db, row.id, `evt_${ulid()}`);
  if (cancelled) inBackground(c, kickRunner(c.env, owner.accountId));
  return c.json(batchJson(cancelled ?? (await owned(c, owner))), 200);
}

/** deleteBatch: a finished batch's lines and results go at once; an active one is 409 (cancel it first). */
export async function deleteBatchResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const row = await owned(c, owner);
  if (row.status === "queued" || row.status === "running" || row.status === "paused")
    throw new ApiError("batch_not_finished", {
      message: `The batch is ${row.status}: cancel it first (POST /v1/batches/${row.id}/cancel), then delete it.`,
    });
  if (!(await deleteFinishedBatch(c.var.db, owner.accountId, row.id))) throw notFound(row.id);
  await deleteBatchObjects(c.env.BATCHES, row.id);
  return c.json({ id: row.id, object: "batch" as const, deleted: true as const }, 200);
}

/** getBatchResults: the finished lines as JSONL, in input order, streamed. */
export async function batchResultsResponse(c: Context<AppEnv>, owner: BatchOwner): Promise<Response> {
  const row = await owned(c, owner);
  c.header("content-type", "application/jsonl; charset=utf-8");
  c.header("cache-control", "no-store");
  return c.body(streamResults(c.var.db, c.env.BATCHES, row), 200);
}
