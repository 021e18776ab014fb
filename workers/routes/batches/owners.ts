import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { BatchOwner } from "../../batches/service";
import { ApiError } from "../../errors";
import { subjectOf } from "../../limits/key-limits";
import type { AppEnv } from "../../middleware/context";

/** The API-key side's owner: the key's account and mode, usage under the key. */
export function keyBatchOwner(c: Context<AppEnv>): BatchOwner {
  const key = c.var.apiKey;
  return { accountId: key.accountId, keyId: key.id, mode: key.mode, subject: subjectOf(key) };
}

/**
 * The console side's owner: the session's account. Uploads choose `?mode=test` (default: the daily test quota,
 * usage under the playground like its calls) or `?mode=live` (charged to the balance, usage under `console_<account>`).
 */
export function consoleBatchOwner(c: Context<AppEnv>): BatchOwner {
  const accountId = c.var.session.accountId;
  const mode = c.req.query("mode") ?? "test";
  if (mode !== "test" && mode !== "live")
    throw new ApiError("invalid_value", { param: "mode", message: "`mode` is `test` or `live`." });
  const keyId = mode === "test" ? `playground_${accountId}` : `console_${accountId}`;
  return { accountId, keyId, mode, subject: { keyId, accountId, mode } };
}

/** A store outage while serving a batch route: 503 `maintenance`, nothing changed. */
export function guarded(run: () => Promise<Response>): Promise<Response> {
  return orMaintenance("batches", run);
}

/** Codes of createBatch after its auth: the first invalid line's (a decide's codes) and the batch's own. */
export const CREATE_BATCH_ERRORS: readonly ErrorCode[] = [
  "invalid_header",
  "idempotency_key_reused",
  "invalid_json",
  "duplicate_key",
  "unsupported_media_type",
  "body_too_large",
  "batch_too_many_lines",
  "state_too_long",
  "question_too_long",
  "request_too_long",
  "model_not_found",
  "model_retired",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
  "field_not_allowed",
  "invalid_question_id",
  "too_many_questions",
  "too_many_options",
  "invalid_levels",
  "invalid_min_confidence",
  "duplicate_label",
  "state_path_not_found",
  "state_not_json",
  "duplicate_custom_id",
  "requests_per_minute",
  "batches_in_progress",
  "batch_storage_full",
];
