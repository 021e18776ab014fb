import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { AppEnv } from "../../context/app-env";
import { ApiError } from "../../errors";
import type { EvaluationDeps, EvaluationOwner } from "../../evaluations/service";
import { DECIDE_BODY_ERRORS } from "../../http/body-errors";
import { type MoneySubject, subjectOf } from "../../limits/key-limits";
import type { TwinCallers } from "../define";
import { kickInBackground } from "../runner-kick";

/**
 * The API-key side's owner: the key's account, usage under the key. Evaluations run on the test quota, so only
 * test keys may use them: a live key gets 403 `live_key_not_allowed` (after auth and scope, before the body).
 */
function keyOwner(c: Context<AppEnv>): EvaluationOwner {
  const key = c.var.apiKey;
  if (key.mode !== "test")
    throw new ApiError("live_key_not_allowed", {
      message: "Evaluations run on the daily test quota: use a test key (svc_test_…).",
    });
  return { accountId: key.accountId, keyId: key.id, subject: subjectOf(key) };
}

/** The console side's owner: the session's account, usage under the console (as the playground's calls). */
function consoleOwner(c: Context<AppEnv>): EvaluationOwner {
  const accountId = c.var.session.accountId;
  const keyId = `playground_${accountId}`;
  // Counted as the playground's calls are: a test-mode caller of the account (30 requests a minute).
  const subject: MoneySubject = { keyId, accountId, mode: "test" };
  return { accountId, keyId, subject };
}

/** Who calls an evaluation route; a store outage while serving one is 503 `maintenance`, nothing changed. */
export const EVALUATION_CALLERS: TwinCallers<EvaluationOwner> = {
  api: keyOwner,
  console: consoleOwner,
  apiErrors: ["live_key_not_allowed"],
  guard: (run) => orMaintenance("evaluations", run),
};

/** The services an evaluation operation uses, from the request's context. */
export function evaluationDeps(c: Context<AppEnv>): EvaluationDeps {
  return { db: c.var.db, limits: c.var.limits, kick: kickInBackground(c) };
}

/** Codes of createEvaluation after its auth: the decide body's, per item, plus the extension codes. */
export const CREATE_ERRORS: readonly ErrorCode[] = [
  ...DECIDE_BODY_ERRORS,
  "requests_per_minute",
  "evaluations_in_progress",
  "evaluation_storage_full",
];
/** Codes of the list routes (their query parameters). */
export const LIST_ERRORS: readonly ErrorCode[] = ["unknown_field", "invalid_value"];
