import { ulid } from "ulid";
import { MODEL_NAME_PATTERN } from "../../schema/decide";
import { type JsonValue, jsonObject } from "../../schema/json";
import { DEFAULT_SAMPLE_RATE, MAX_REVIEW_RULES, REVIEW_RULE_ID_PATTERN } from "../../schema/review-limits";
import type { Services } from "../context/services";
import { questionDefinition, questionFingerprint } from "../decide/question-fingerprint";
import { resolveModel } from "../decide/resolve-model";
import { checkQuestions } from "../decide/validate-question";
import { ApiError } from "../errors";
import { booleanRule, type FieldRule, objectRule, patternRule } from "../http/console-body";
import type { PageQuery } from "../http/list-query";
import { Issues } from "../http/validate-issues";
import type { MoneySubject } from "../limits/key-limits";
import {
  deleteReviewRule,
  findReviewRule,
  insertReviewRule,
  listReviewRules,
  type ReviewMode,
  type ReviewRuleRow,
  type ReviewScope,
} from "../stores/review-rules";
import { forgetRules } from "./capture";

/** What the review operations use: the database, the rate limiter, the decide path's calibration cache. */
export type ReviewDeps = Pick<Services, "db" | "limits" | "calibrations">;

/**
 * Who calls (issue 51, as calibrations, issue 50): the account; the mode a rule it creates gets (a test key's → test;
 * a live key's or the console's → live); the modes it sees; who it is for claims; whose requests per minute the
 * loop's evaluation counts against, and the key id its usage is recorded under.
 */
export interface ReviewOwner {
  accountId: string;
  mode: ReviewMode;
  sees: ReviewScope;
  reviewer: string;
  keyId: string;
  subject: MoneySubject;
}

/** A rule's body, read and checked. */
export interface ReviewRuleInput {
  question: JsonValue;
  model: string | null;
  abstained: boolean;
  belowConfidence: number | null;
  sampleRate: number;
  autoApply: boolean;
}

/** `question`: one question as a decide writes it, checked by the decide's own rules (param `question.<…>`). */
const questionRule: FieldRule = {
  required: true,
  check: (v) => {
    const issues = new Issues();
    checkQuestions(jsonObject([["q", v]]), issues);
    const first = issues.first();
    if (!first) return null;
    const param = (first.param ?? "question").replace(/^questions\.q/, "question");
    return { code: first.code as "invalid_value", message: first.message, named: true, param };
  },
  parse: (v) => v,
};

const numberRule = (lowOpen: boolean): FieldRule => ({
  required: false,
  check: (v) =>
    typeof v !== "number"
      ? { code: "invalid_type", message: "Expected a number." }
      : (lowOpen ? v > 0 : v >= 0) && v <= 1
        ? null
        : { code: "invalid_value", message: `Must be a number ${lowOpen ? "above 0" : "from 0"} up to 1.` },
});

/** The body of createReviewRule, field by field (readConsoleBody: 413, 400, then 422 by precedence). */
export const REVIEW_RULE_FIELDS: Record<string, FieldRule> = {
  question: questionRule,
  model: patternRule(MODEL_NAME_PATTERN, false),
  when: objectRule("when", {
    abstained: booleanRule(false),
    below_confidence: numberRule(true),
    sample_rate: numberRule(false),
  }),
  auto_apply: booleanRule(false),
};

/** The checked fields as a rule's input: 404 for an unknown model; 422 `when` when it keeps nothing. */
export function reviewRuleInput(fields: Record<string, unknown>): ReviewRuleInput {
  const model = (fields.model as string | undefined) ?? null;
  if (model !== null) resolveModel(model, "never");
  const when = fields.when as { abstained?: boolean; below_confidence?: number; sample_rate?: number };
  const input: ReviewRuleInput = {
    question: fields.question as JsonValue,
    model,
    abstained: when.abstained ?? false,
    belowConfidence: when.below_confidence ?? null,
    sampleRate: when.sample_rate ?? DEFAULT_SAMPLE_RATE,
    autoApply: (fields.auto_apply as boolean | undefined) ?? false,
  };
  if (!input.abstained && input.belowConfidence === null && input.sampleRate === 0)
    throw new ApiError("invalid_value", {
      param: "when",
      message: "`when` keeps nothing: set `abstained: true`, `below_confidence` or a `sample_rate` above 0.",
    });
  return input;
}

/** createReviewRule: the rule in the caller's mode (409 `review_rule_limit_reached` past the cap). */
export async function createReviewRule(
  deps: ReviewDeps,
  owner: ReviewOwner,
  input: ReviewRuleInput,
): Promise<ReviewRuleRow> {
  const issues = new Issues();
  const [q] = checkQuestions(jsonObject([["q", input.question]]), issues);
  if (!q) throw new Error("a checked question did not validate");
  const row = await insertReviewRule(
    deps.db,
    {
      id: `rrule_${ulid()}`,
      accountId: owner.accountId,
      mode: owner.mode,
      question: questionDefinition(q),
      fingerprint: await questionFingerprint(q),
      model: input.model,
      abstained: input.abstained,
      belowConfidence: input.belowConfidence,
      sampleRate: input.sampleRate,
      autoApply: input.autoApply,
    },
    MAX_REVIEW_RULES,
  );
  forgetRules(owner.accountId);
  if (!row)
    throw new ApiError("review_rule_limit_reached", {
      message: `The account has ${MAX_REVIEW_RULES} review rules: delete one first.`,
    });
  return row;
}

/** listReviewRules: newest first, of the modes the caller sees. */
export function listRules(deps: ReviewDeps, owner: ReviewOwner, page: PageQuery) {
  return listReviewRules(deps.db, owner.accountId, owner.sees, page.limit, page.after);
}

const notFound = (id: string) =>
  new ApiError("review_rule_not_found", {
    param: "id",
    message: `No review rule \`${id}\` in this account.`,
  });

/** getReviewRule (404 unless the account's, of the caller's mode). */
export async function getRule(deps: ReviewDeps, owner: ReviewOwner, id: string): Promise<ReviewRuleRow> {
  const row = REVIEW_RULE_ID_PATTERN.test(id)
    ? await findReviewRule(deps.db, owner.accountId, id, owner.sees)
    : null;
  if (!row) throw notFound(id);
  return row;
}

/** deleteReviewRule: the rule and every item it kept, at once; decides stop being kept within about a second. */
export async function deleteRule(deps: ReviewDeps, owner: ReviewOwner, id: string): Promise<string> {
  const gone =
    REVIEW_RULE_ID_PATTERN.test(id) && (await deleteReviewRule(deps.db, owner.accountId, id, owner.sees));
  if (!gone) throw notFound(id);
  forgetRules(owner.accountId);
  return id;
}
