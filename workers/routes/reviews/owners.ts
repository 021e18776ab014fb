import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { orMaintenance } from "../../accounts/unavailable";
import type { AppEnv } from "../../context/app-env";
import { DECIDE_BODY_ERRORS, JSON_BODY_ERRORS } from "../../http/body-errors";
import { subjectOf } from "../../limits/key-limits";
import type { ReviewDeps, ReviewOwner } from "../../reviews/rules";
import type { TwinCallers } from "../define";
import { kickInBackground } from "../runner-kick";

/**
 * Who calls a review route (issue 51, as calibrations): any key of the account with `decide`, whose rules keep
 * and whose lists show only its own mode's decides; or the console session, which makes live rules and sees all.
 * The loop's evaluation runs on the daily test quota like every evaluation: a test key's under the key, anyone
 * else's as the console's (the account's playground caller). A store outage is 503 `maintenance`.
 */
export const REVIEW_CALLERS: TwinCallers<ReviewOwner> = {
  api: (c) => {
    const key = c.var.apiKey;
    const test = key.mode === "test";
    const keyId = test ? key.id : `playground_${key.accountId}`;
    const subject = test ? subjectOf(key) : { keyId, accountId: key.accountId, mode: "test" as const };
    return { accountId: key.accountId, mode: key.mode, sees: key.mode, reviewer: key.id, keyId, subject };
  },
  console: (c) => {
    const s = c.var.session;
    const keyId = `playground_${s.accountId}`;
    const subject = { keyId, accountId: s.accountId, mode: "test" as const };
    const reviewer = `session_${s.tokenSha256.slice(0, 16)}`;
    return { accountId: s.accountId, mode: "live", sees: null, reviewer, keyId, subject };
  },
  guard: (run) => orMaintenance("reviews", run),
};

/** The services a review operation uses, from the request's context. */
export function reviewDeps(c: Context<AppEnv>): ReviewDeps & { kick(accountId: string): void } {
  return { db: c.var.db, limits: c.var.limits, calibrations: c.var.calibrations, kick: kickInBackground(c) };
}

const BODY = JSON_BODY_ERRORS;

/** Codes of createReviewRule after its auth: the body, the question's own rules, the model, the cap. */
export const CREATE_RULE_ERRORS: readonly ErrorCode[] = [
  ...new Set([...BODY, ...DECIDE_BODY_ERRORS, "review_rule_limit_reached" as const]),
];
/** Codes of labelReview. */
export const LABEL_ERRORS: readonly ErrorCode[] = [...BODY, "review_not_found", "review_already_reviewed"];
/** Codes of createReviewRuleEvaluation: the rule, too few labels, then createEvaluation's own. */
export const LOOP_ERRORS: readonly ErrorCode[] = [
  ...new Set<ErrorCode>([
    "review_rule_not_found",
    "too_few_labels",
    ...DECIDE_BODY_ERRORS,
    "requests_per_minute",
    "evaluations_in_progress",
    "evaluation_storage_full",
  ]),
];
/** Codes of the list routes (their query parameters). */
export const LIST_ERRORS: readonly ErrorCode[] = ["unknown_field", "invalid_value"];
