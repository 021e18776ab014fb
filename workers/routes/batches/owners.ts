import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { BatchDeps, BatchOwner } from "../../batches/service";
import type { AppEnv } from "../../context/app-env";
import { ApiError } from "../../errors";
import { DECIDE_BODY_ERRORS } from "../../http/body-errors";
import { subjectOf } from "../../limits/key-limits";
import type { TwinCallers } from "../define";
import { kickInBackground } from "../runner-kick";

/** The API-key side's owner: the key's account and mode, usage under the key; it sees only its mode's batches. */
function keyBatchOwner(c: Context<AppEnv>): BatchOwner {
  const key = c.var.apiKey;
  return { accountId: key.accountId, keyId: key.id, mode: key.mode, subject: subjectOf(key), sees: key.mode };
}

/**
 * The console side's owner: the session's account. Uploads choose `?mode=test` (default: the daily test quota,
 * usage under the playground like its calls) or `?mode=live` (charged to the balance, usage under `console_<account>`);
 * the session sees and manages the batches of both modes.
 */
function consoleBatchOwner(c: Context<AppEnv>): BatchOwner {
  const accountId = c.var.session.accountId;
  const mode = c.req.query("mode") ?? "test";
  if (mode !== "test" && mode !== "live")
    throw new ApiError("invalid_value", { param: "mode", message: "`mode` is `test` or `live`." });
  const keyId = mode === "test" ? `playground_${accountId}` : `console_${accountId}`;
  return { accountId, keyId, mode, subject: { keyId, accountId, mode }, sees: null };
}

/** A store outage while serving a batch route: 503 `maintenance`, nothing changed. */
export function guarded(run: () => Promise<Response>): Promise<Response> {
  return orMaintenance("batches", run);
}

/** Who calls a batch route: the key's owner, or the console session's in the mode it chose. */
export const BATCH_CALLERS: TwinCallers<BatchOwner> = {
  api: keyBatchOwner,
  console: consoleBatchOwner,
  guard: guarded,
};

/** The services a batch operation uses, from the request's context. */
export function batchDeps(c: Context<AppEnv>): BatchDeps {
  return {
    db: c.var.db,
    limits: c.var.limits,
    ledger: c.var.ledger,
    bucket: c.env.BATCHES,
    kick: kickInBackground(c),
  };
}

/** Codes of createBatch after its auth: the first invalid line's (a decide's codes) and the batch's own. */
export const CREATE_BATCH_ERRORS: readonly ErrorCode[] = [
  ...DECIDE_BODY_ERRORS,
  "invalid_header",
  "idempotency_key_reused",
  "batch_too_many_lines",
  "duplicate_custom_id",
  "requests_per_minute",
  "batches_in_progress",
  "batch_storage_full",
];
