import { ulid } from "ulid";
import { BACKOFF_MS, type NextRun, nextUtcMidnight, SLICE_MS } from "../clients/runner";
import type { CalibrationCaller } from "../decide/calibration";
import type { KeyRateLimiter, MoneySubject } from "../limits/key-limits";
import { errorText, logEvent } from "../observability/log";
import { type AccountRow, getAccount } from "../stores/accounts";
import { getApiKey } from "../stores/api-keys";
import {
  markLinesRecorded,
  openChunk,
  pendingLines,
  type UnrecordedLine,
  unrecordedLines,
} from "../stores/batch-lines";
import { chunkResults, closeChunk } from "../stores/batch-results";
import type { BatchRow } from "../stores/batch-rows";
import {
  batchProgress,
  markBatchPaused,
  markBatchRunning,
  nextRunnableBatch,
  touchBatch,
} from "../stores/batch-runs";
import { finishBatch } from "../stores/batches";
import type { DbEnv } from "../stores/db";
import { recordUsageEvents, type UsageEvent } from "../stores/usage";
import { type LineDeps, type LineLimit, type LineOutcomeKind, runLine } from "./line";
import { lineErrorCode } from "./line-result";
import { inputKey, resultKey } from "./objects";
import { trySettleFinishedBatches } from "./settle";
import type { StoredLine } from "./validate-line";

/** Lines of one account's batch in flight at once: enough to keep a GPU worker's batch lanes busy. */
export const LINES_AT_ONCE = 4;
/** A batch paused for its balance tries again this often (a top-up also resumes it at once). */
export const BALANCE_RETRY_MS = 60_000;

export interface BatchRunnerDeps extends LineDeps {
  bucket: R2Bucket;
  /** The keys' and accounts' tokens-per-minute windows, the same a decide takes from. */
  limits: Pick<KeyRateLimiter, "takeTokens" | "giveBackTokens">;
  /** For the usage events (the same exactly-once write as decide's). */
  env: DbEnv;
  linesAtOnce?: number;
}

/** What the batch runner remembers between alarms: consecutive failed groups of lines. */
export interface BatchMemory {
  failures: number;
}

const eventId = () => `evt_${ulid()}`;

/** A line's usage event: a decide's, told apart by its client name `(batch)` (docs/decisions.md). */
export function lineUsageEvent(b: BatchRow, l: UnrecordedLine): UsageEvent {
  return {
    request_id: l.attempt,
    account_id: b.accountId,
    key_id: b.keyId,
    mode: b.mode,
    model: l.model,
    served_by: l.status === 200 ? "gpu" : null,
    input_tokens: l.inputTokens,
    state_tokens: l.stateTokens,
    question_tokens: l.questionTokens,
    charge_micro_cents: l.chargeMicroCents,
    unit_price_micro_cents: l.unitPrice,
    tier: l.tier,
    status: l.status,
    error_code: lineErrorCode(l.status),
    replayed: false,
    at: l.finishedAt,
    client_request_id: null,
    client_name: BATCH_CLIENT_NAME,
    client_version: null,
    questions: l.questions,
  };
}

/**
 * The client name batch lines are recorded under in usage events: not a product token, so no caller's
 * `user-agent` can produce it (`clientOf`).
 */
export const BATCH_CLIENT_NAME = "(batch)";

/** Writes the usage events of finished lines not yet recorded (idempotent by request id), then marks them. */
async function recordUsage(deps: BatchRunnerDeps, b: BatchRow): Promise<void> {
  const lines = await unrecordedLines(deps.db, b.id);
  if (lines.length === 0) return;
  await recordUsageEvents(
    deps.env,
    lines.map((l) => lineUsageEvent(b, l)),
  );
  await markLinesRecorded(
    deps.db,
    b.id,
    lines.map((l) => l.line),
  );
}

/** A chunk's stored lines, read back from R2 (null: the object is gone). */
async function readChunk(bucket: R2Bucket, batchId: string, chunk: number): Promise<StoredLine[] | null> {
  const obj = await bucket.get(inputKey(batchId, chunk));
  if (!obj) return null;
  return (await obj.text()).split("\n").map((l) => JSON.parse(l) as StoredLine);
}

/** Whose calibrations the account's lines answer with (read once a slice). */
function callerOf(accountId: string, account: AccountRow | null): CalibrationCaller {
  return { accountId, account: { calibrationsGeneration: account?.calibrationsGeneration ?? 0 } };
}

/**
 * The windows a batch's lines take their tokens from: the creating key's tokens per minute (its own `tpm_limit`,
 * never above the account's caps) and the account's (its operator caps), as its decides do. A console batch has
 * no key of its own: the account's caps alone.
 */
async function lineLimit(deps: BatchRunnerDeps, b: BatchRow, account: AccountRow | null): Promise<LineLimit> {
  const key = b.keyId.startsWith("key_") ? await getApiKey(deps.db, b.accountId, b.keyId) : null;
  const subject: MoneySubject = {
    keyId: b.keyId,
    accountId: b.accountId,
    mode: b.mode,
    keyLimits: key ? { rpm: key.rpmLimit ?? undefined, tpm: key.tpmLimit ?? undefined } : null,
    accountLimits: { rpm: account?.rpmLimit ?? undefined, tpm: account?.tpmLimit ?? undefined },
  };
  return {
    take: (id, tokens, now) => deps.limits.takeTokens(subject, id, tokens, now),
    giveBack: (id, tokens) => deps.limits.giveBackTokens(subject, id, tokens),
  };
}

/**
 * Works on the account's batches for one slice: the running one (else a paused one that is due, else the oldest
 * queued), `LINES_AT_ONCE` lines at a time, chunk after chunk, until the slice ends, the balance or the test quota
 * runs out (paused), a serving path fails (back off) or nothing is left. A batch past `expires_at` stops: its
 * lines not yet run are never charged, and the lapsed attempts of every finished batch are settled (issue 50). Every state change is in Postgres, so a crash anywhere repeats only an
 * uncounted line (whose earlier debit, if any, is refunded first). Returns when to run again.
 */
export async function runBatchSlice(
  deps: BatchRunnerDeps,
  accountId: string,
  memory: BatchMemory,
  sliceMs: number = SLICE_MS,
): Promise<NextRun> {
  const clock = () => deps.now?.() ?? Date.now();
  const end = clock() + sliceMs;
  let account: { row: AccountRow | null } | null = null;
  // Batches that finished since the last slice (a cancel, a delete's kick) give back their lapsed attempts first.
  await trySettleFinishedBatches(deps, accountId);
  for (;;) {
    const b = await nextRunnableBatch(deps.db, accountId);
    // Nothing runs now: the batches this slice finished (expired, cancelled under it) are settled before it ends.
    if (!b) return (await trySettleFinishedBatches(deps, accountId)) ? null : clock() + BACKOFF_MS[0]!;
    if (clock() >= b.expiresAt) {
      await recordUsage(deps, b);
      await finishBatch(deps.db, b.id, "expired", eventId());
      continue;
    }
    if (b.status === "paused" && b.resumesAt !== null && b.resumesAt > clock())
      return Math.min(b.resumesAt, b.expiresAt);
    if (b.status !== "running") await markBatchRunning(deps.db, b.id);
    account ??= { row: await getAccount(deps.db, accountId) };
    await recordUsage(deps, b);
    const limit = await lineLimit(deps, b, account.row);
    const next = await runBatch(deps, b, callerOf(accountId, account.row), limit, memory, end);
    if (next !== "next") return next;
  }
}

/** Runs one batch's chunks in order; "next" when it finished, stopped or changed status. */
async function runBatch(
  deps: BatchRunnerDeps,
  b: BatchRow,
  caller: CalibrationCaller,
  limit: LineLimit,
  memory: BatchMemory,
  end: number,
): Promise<NextRun | "next"> {
  const clock = () => deps.now?.() ?? Date.now();
  let first = b.chunkLines.slice(0, b.chunksWritten).reduce((a, n) => a + n, 0);
  for (let chunk = b.chunksWritten; chunk < b.chunks; first += b.chunkLines[chunk]!, chunk++) {
    const lines = await readChunk(deps.bucket, b.id, chunk);
    if (!lines) {
      logEvent("error", "batch_input_missing", { batch_id: b.id, chunk });
      await finishBatch(deps.db, b.id, "failed", eventId(), {
        code: "internal_error",
        message: "The batch's stored lines could not be read.",
      });
      return "next";
    }
    await openChunk(deps.db, b.id, chunk, first, lines.length);
    for (;;) {
      if (clock() >= end) {
        await touchBatch(deps.db, b.id);
        return clock();
      }
      const now = await batchProgress(deps.db, b.id);
      if (now?.status !== "running" || clock() >= now.expiresAt) return "next";
      const pending = await pendingLines(deps.db, b.id, chunk, deps.linesAtOnce ?? LINES_AT_ONCE);
      if (pending.length === 0) break;
      const outcomes = await Promise.all(
        pending.map((l) => runLine(deps, b, caller, limit, l.line, lines[l.line - first]!)),
      );
      await recordUsage(deps, b);
      const stop = await stopFor(deps, b, outcomes, memory);
      if (stop !== null) return stop;
    }
    await recordUsage(deps, b);
    const results = await chunkResults(deps.db, b.id, chunk);
    await deps.bucket.put(resultKey(b.id, chunk), results.map((r) => `${r}\n`).join(""));
    if (!(await closeChunk(deps.db, b.id, chunk)) && !(await batchProgress(deps.db, b.id))) {
      // The batch was deleted as its results were written: no row will ever point at this object.
      await deps.bucket.delete(resultKey(b.id, chunk));
      return "next";
    }
  }
  await finishBatch(deps.db, b.id, "completed", eventId());
  return "next";
}

/**
 * After a group of lines: pause (balance, test quota), back off (a serving path failed), wait for the tokens-per-
 * minute window, or go on (null).
 */
async function stopFor(
  deps: BatchRunnerDeps,
  b: BatchRow,
  outcomes: LineOutcomeKind[],
  memory: BatchMemory,
): Promise<NextRun | null> {
  const clock = () => deps.now?.() ?? Date.now();
  if (outcomes.some((o) => o.kind === "balance")) {
    const at = clock() + BALANCE_RETRY_MS;
    await markBatchPaused(deps.db, b.id, "insufficient_balance", at);
    return at;
  }
  if (outcomes.some((o) => o.kind === "quota")) {
    const at = nextUtcMidnight(clock());
    await markBatchPaused(deps.db, b.id, "test_daily_quota", at);
    return at;
  }
  const failed = outcomes.filter((o): o is Extract<LineOutcomeKind, { kind: "retry" }> => o.kind === "retry");
  const waits = outcomes.flatMap((o) => (o.kind === "tpm" ? [o.at] : []));
  if (failed.length === 0 && waits.length > 0) {
    // The key's (or the account's) tokens per minute is used up: the lines wait for the window, uncharged, and
    // the batch stays running (a decide of the same key is answered 429 meanwhile, as without a batch).
    memory.failures = 0;
    await touchBatch(deps.db, b.id);
    return Math.min(...waits);
  }
  if (failed.length === 0) {
    memory.failures = 0;
    return null;
  }
  memory.failures++;
  logEvent("warn", "batch_line_retry", { batch_id: b.id, error: errorText(failed[0]!.error) });
  await touchBatch(deps.db, b.id);
  return clock() + BACKOFF_MS[Math.min(memory.failures, BACKOFF_MS.length) - 1]!;
}
