import type { Context } from "hono";
import type { ValidatedQuestion } from "../../schema/decide";
import { jsonObject } from "../../schema/json";
import { readJsonText } from "../../schema/json-text";
import {
  CLAIM_SECONDS,
  REVIEW_ID_PATTERN,
  REVIEW_RULE_ID_PATTERN,
  REVIEW_STATUSES,
  type ReviewStatus,
} from "../../schema/review-limits";
import type { AppEnv } from "../context/app-env";
import { checkQuestions } from "../decide/validate-question";
import { ApiError } from "../errors";
import { intParam, queryOf } from "../http/list-query";
import { Issues } from "../http/validate-issues";
import {
  claimNextReview,
  findReview,
  listReviews,
  type ReviewFilters,
  type ReviewRow,
  reviewItem,
} from "../stores/reviews";
import { getRule, type ReviewDeps, type ReviewOwner } from "./rules";

/** The queue list's query: filters, then the page. */
export interface ReviewQuery extends ReviewFilters {
  limit: number;
  after: string | null;
  /** `question` given as a rule id: the rule's fingerprint is looked up. */
  questionRule: string | null;
}

const FINGERPRINT = /^[0-9a-f]{64}$/;
const bad = (param: string, message: string) => new ApiError("invalid_value", { param, message });

/** GET /v1/reviews's query parameters (422 `unknown_field` / `invalid_value` with their `param`). */
export function reviewQuery(c: Context<AppEnv>): ReviewQuery {
  const q = queryOf(c, ["rule", "status", "question", "limit", "starting_after"]);
  const limit = intParam(q, "limit", 1, 100, 20);
  const after = q.get("starting_after") ?? null;
  if (after !== null && !REVIEW_ID_PATTERN.test(after))
    throw bad("starting_after", "`starting_after` is a review id.");
  const rule = q.get("rule") ?? null;
  if (rule !== null && !REVIEW_RULE_ID_PATTERN.test(rule)) throw bad("rule", "`rule` is a review rule id.");
  const status = q.get("status") ?? null;
  if (status !== null && !(REVIEW_STATUSES as readonly string[]).includes(status))
    throw bad("status", `\`status\` is one of ${REVIEW_STATUSES.join(", ")}.`);
  const question = q.get("question") ?? null;
  const asRule = question !== null && REVIEW_RULE_ID_PATTERN.test(question);
  if (question !== null && !asRule && !FINGERPRINT.test(question))
    throw bad("question", "`question` is a question's fingerprint (64 lower-case hex) or a review rule id.");
  return {
    limit,
    after,
    ruleId: rule,
    status: status as ReviewStatus | null,
    fingerprint: asRule ? null : question,
    questionRule: asRule ? question : null,
  };
}

/** listReviews: newest first, of the modes the caller sees (an unknown rule: 404 `review_rule_not_found`). */
export async function listQueue(deps: ReviewDeps, owner: ReviewOwner, query: ReviewQuery) {
  if (query.ruleId !== null) await getRule(deps, owner, query.ruleId);
  let fingerprint = query.fingerprint;
  if (query.questionRule !== null) fingerprint = (await getRule(deps, owner, query.questionRule)).fingerprint;
  return listReviews(
    deps.db,
    owner.accountId,
    owner.sees,
    { ...query, fingerprint },
    query.limit,
    query.after,
  );
}

const notFound = (id: string) =>
  new ApiError("review_not_found", { param: "id", message: `No review \`${id}\` in this account.` });
const alreadyReviewed = (r: ReviewRow) =>
  new ApiError("review_already_reviewed", {
    param: "id",
    message: `The review is already \`${r.status}\`: take the next one.`,
  });

async function pending(deps: ReviewDeps, owner: ReviewOwner, id: string): Promise<ReviewRow> {
  const row = REVIEW_ID_PATTERN.test(id) ? await findReview(deps.db, owner.accountId, id, owner.sees) : null;
  if (!row) throw notFound(id);
  if (row.status !== "pending") throw alreadyReviewed(row);
  return row;
}

/** The item's question as the decide wrote it. */
function questionOf(r: ReviewRow): ValidatedQuestion {
  const [q] = checkQuestions(jsonObject([[r.questionId, readJsonText(r.question)]]), new Issues());
  if (!q) throw new Error(`review ${r.id}'s question is unreadable`);
  return q;
}

/**
 * A label of the item's question: a pick's option label, a rate's level label (not its index: the evaluation's
 * `expected` names levels the same way), a check's true / false (422 `param: "label"` otherwise).
 */
export function checkLabel(q: ValidatedQuestion, label: unknown): string | boolean {
  if (q.type === "check") {
    if (typeof label !== "boolean")
      throw new ApiError("invalid_type", { param: "label", message: "A check's label is true or false." });
    return label;
  }
  const allowed = q.type === "pick" ? q.options.map((o) => o.label) : q.levels;
  const what = q.type === "pick" ? "one of the pick's option labels" : "one of the rate's level labels";
  if (typeof label !== "string")
    throw new ApiError("invalid_type", { param: "label", message: `The label is ${what}.` });
  if (!allowed.includes(label))
    throw new ApiError("invalid_value", {
      param: "label",
      message: `\`${label}\` is not ${what}: ${allowed.map((l) => JSON.stringify(l)).join(", ")}.`,
    });
  return label;
}

/**
 * Labels (`label` given) or skips a pending item: of several reviewers at once exactly one wins, the others get
 * 409 `review_already_reviewed`, as does a second label of the same item.
 */
export async function reviewOne(
  deps: ReviewDeps,
  owner: ReviewOwner,
  id: string,
  label: { value: unknown } | null,
): Promise<ReviewRow> {
  const row = await pending(deps, owner, id);
  const text = label === null ? null : JSON.stringify(checkLabel(questionOf(row), label.value));
  const done = await reviewItem(deps.db, owner.accountId, row.id, owner.sees, text);
  if (done) return done;
  const now = await findReview(deps.db, owner.accountId, row.id, owner.sees);
  throw now ? alreadyReviewed(now) : notFound(id);
}

/**
 * The rule's next item for this reviewer: the oldest pending one no other reviewer claimed in the last
 * CLAIM_SECONDS, claimed for them (their own unexpired claim first); null when the queue is done.
 */
export async function nextReview(
  deps: ReviewDeps,
  owner: ReviewOwner,
  ruleId: string,
): Promise<ReviewRow | null> {
  const rule = await getRule(deps, owner, ruleId);
  return claimNextReview(deps.db, rule.id, owner.reviewer, CLAIM_SECONDS);
}
